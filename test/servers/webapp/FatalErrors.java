package diag;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import java.io.IOException;

/**
 * Remembers a VirtualMachineError (an OutOfMemoryError of any kind): the health check then
 * reports the instance down, as liveness checks of real applications do after a fatal error.
 */
@WebFilter("/*")
public class FatalErrors extends HttpFilter {
  static volatile Throwable fatal;

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
    try {
      chain.doFilter(req, res);
    } catch (VirtualMachineError e) {
      fatal = e;
      throw e;
    }
  }
}
