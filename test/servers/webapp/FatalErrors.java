package diag;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.WebFilter;
import java.io.IOException;

/**
 * Remembers a VirtualMachineError (an OutOfMemoryError of any kind): the health check then
 * reports the instance down, as liveness checks of real applications do after a fatal error.
 * A plain Filter, so that the same source builds for Servlet 3.1 (Jetty 9) as javax.servlet.
 */
@WebFilter("/*")
public class FatalErrors implements Filter {
  static volatile Throwable fatal;

  @Override
  public void init(FilterConfig config) {}

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
    try {
      chain.doFilter(req, res);
    } catch (VirtualMachineError e) {
      fatal = e;
      throw e;
    }
  }

  @Override
  public void destroy() {}
}
