package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;

/**
 * The health check a load balancer would call: it allocates a little (a full heap fails
 * it), reports a fatal error the application saw (FatalErrors), answers 503 while a drain
 * file exists (an operator took the instance out of rotation), writes a file (out of file
 * descriptors or disk fails it), and checks the downstream
 * services the application depends on (-Ddiag.downstream=host:port, a TCP service;
 * -Ddiag.downstream.https=URL, an HTTPS one), as readiness checks of real applications do.
 */
@WebServlet("/health")
public class Health extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    byte[] scratch = new byte[2 << 20];
    if (FatalErrors.fatal != null) {
      res.sendError(503, "fatal error: " + FatalErrors.fatal);
      return;
    }
    // A drain file takes the instance out of rotation (-Ddiag.drainFile=PATH), silently.
    String drain = System.getProperty("diag.drainFile");
    if (drain != null && new File(drain).exists()) {
      res.sendError(503, "out of rotation");
      return;
    }
    // The disk check of many health endpoints: can the application still write a file?
    try (FileOutputStream out = new FileOutputStream(new File(System.getProperty("java.io.tmpdir"), "health-check"))) {
      out.write('1');
    } catch (IOException e) {
      getServletContext().log("health check: cannot write to the temporary directory", e);
      res.sendError(503, "disk check failed");
      return;
    }
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
    String https = System.getProperty("diag.downstream.https");
    if (https != null) {
      try (InputStream in = new URL(https).openStream()) {
        in.readAllBytes();
      } catch (IOException e) {
        getServletContext().log("health check: the downstream service " + https + " is unavailable", e);
        res.sendError(503, "downstream unavailable");
        return;
      }
    }
    res.setContentType("text/plain");
    res.getWriter().println("ok " + scratch.length);
  }
}
