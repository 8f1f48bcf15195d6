package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The health check a load balancer would call: it allocates a little (a full heap fails
 * it) and, when the application depends on a downstream service (-Ddiag.downstream), opens
 * a connection to it, as readiness checks of real applications do.
 */
@WebServlet("/health")
public class Health extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    byte[] scratch = new byte[2 << 20];
    String downstream = System.getProperty("diag.downstream");
    if (downstream != null) {
      String[] hostPort = downstream.split(":");
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 1000);
      } catch (IOException e) {
        getServletContext().log("health check: the downstream service " + downstream + " is unavailable", e);
        res.sendError(503, "downstream unavailable");
        return;
      }
    }
    res.setContentType("text/plain");
    res.getWriter().println("ok " + scratch.length);
  }
}
