package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * A framework that generates a proxy class per call in a class loader of its own and keeps
 * them all: class metadata grows until Metaspace is exhausted.
 */
@WebServlet("/classes")
public class Classes extends HttpServlet {
  private static final List<Object> KEPT = new ArrayList<>();

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    while (true) {
      ClassLoader loader = new ClassLoader(Classes.class.getClassLoader()) {};
      KEPT.add(Proxy.newProxyInstance(loader, new Class<?>[] {Runnable.class}, (proxy, method, args) -> null));
    }
  }
}
