package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.FileInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A file-handle leak: a background task opens files and never closes them, taking every
 * descriptor the process gets back, as a leak under steady traffic does.
 */
@WebServlet("/files")
public class Files extends HttpServlet {
  private static final List<FileInputStream> OPEN = new ArrayList<>();

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    Thread leak =
        new Thread(
            () -> {
              while (true) {
                try {
                  OPEN.add(new FileInputStream("/dev/null"));
                } catch (IOException e) {
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException stop) {
                    return;
                  }
                }
              }
            },
            "report-cache-loader");
    leak.setDaemon(true);
    leak.start();
    res.getWriter().println("started");
  }
}
