package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** A request that waits on something that does not answer (?ms= how long). */
@WebServlet("/slow")
public class Slow extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    try {
      Thread.sleep(Long.parseLong(req.getParameter("ms")));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    res.getWriter().println("done");
  }
}
