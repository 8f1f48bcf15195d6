package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/** Allocates until the heap in use reaches ?ratio= of its maximum (a burst of requests would). */
@WebServlet("/fill")
public class Fill extends HttpServlet {
  static volatile byte[] sink;

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    double target = Double.parseDouble(req.getParameter("ratio"));
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    while ((double) heap.getUsed() / heap.getMax() < target) {
      sink = new byte[64 << 10];
      heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    }
    res.getWriter().println((double) heap.getUsed() / heap.getMax());
  }
}
