package diag;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/**
 * The JVM's own heap and thread figures in the Prometheus text format, with the names and
 * number formatting of the Prometheus Java client's hotspot exports (jvm_memory_bytes_*),
 * as a JMX exporter agent would serve them.
 */
@WebServlet("/metrics")
public class Metrics extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
    res.setContentType("text/plain; version=0.0.4; charset=utf-8");
    PrintWriter out = res.getWriter();
    out.println("# HELP jvm_memory_bytes_used Used bytes of a given JVM memory area.");
    out.println("# TYPE jvm_memory_bytes_used gauge");
    out.println("jvm_memory_bytes_used{area=\"heap\",} " + (double) heap.getUsed());
    out.println("jvm_memory_bytes_used{area=\"nonheap\",} " + (double) nonHeap.getUsed());
    out.println("# HELP jvm_memory_bytes_max Max (bytes) of a given JVM memory area.");
    out.println("# TYPE jvm_memory_bytes_max gauge");
    out.println("jvm_memory_bytes_max{area=\"heap\",} " + (double) heap.getMax());
    out.println("jvm_memory_bytes_max{area=\"nonheap\",} " + (double) nonHeap.getMax());
    out.println("# HELP jvm_threads_current Current thread count of a JVM");
    out.println("# TYPE jvm_threads_current gauge");
    out.println("jvm_threads_current " + (double) ManagementFactory.getThreadMXBean().getThreadCount());
  }
}
