package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps ?retainMb= of the heap live, then allocates short-lived garbage for ?seconds=: with
 * the heap nearly full of live data, collection follows collection and frees little.
 */
@WebServlet("/pressure")
public class Pressure extends HttpServlet {
  private static final List<byte[]> RETAINED = new ArrayList<>();

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    int retainMb = Integer.parseInt(req.getParameter("retainMb"));
    for (int i = 0; i < retainMb; i++) RETAINED.add(new byte[1 << 20]);
    long until = System.nanoTime() + Long.parseLong(req.getParameter("seconds")) * 1_000_000_000L;
    // Short-lived, but alive across a young collection or two: promoted, then garbage in the old generation.
    byte[][] window = new byte[32][];
    for (int i = 0; System.nanoTime() < until; i = (i + 1) % window.length) window[i] = new byte[64 << 10];
    res.getWriter().println("done");
  }
}
