package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A walk over a structure that refers back to itself, with no base case: three methods call
 * one another until the request thread's stack, of the JVM's default size (no -Xss), overflows.
 * The JVM records the top 1,024 frames of the trace: a cycle of three frames, repeated.
 */
@WebServlet("/recurse")
public class Recurse extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    res.getWriter().print(visit(0));
  }

  private static long visit(long depth) {
    return expand(depth + 1) + 1;
  }

  private static long expand(long depth) {
    return resolve(depth + 1) + 1;
  }

  private static long resolve(long depth) {
    return visit(depth + 1) + 1;
  }
}
