package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A cache that never evicts: each call keeps memory until the heap is exhausted. */
@WebServlet("/leak")
public class Leak extends HttpServlet {
  private static final List<byte[]> CACHE = new ArrayList<>();

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    while (true) CACHE.add(new byte[1 << 20]);
  }
}
