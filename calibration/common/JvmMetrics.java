// What only the JVM knows about a window, in /metrics under the Prometheus
// Java client's names (client_java's JvmInfo, JvmCompilationMetrics and
// JvmGarbageCollectorMetrics): which JVM it is, the time the JIT has spent
// compiling and each collector's collections and time, since start-up. bench reads them
// before and after a window: a JIT still compiling in the window, or a
// collection in it, spends CPU no request asked for, which /proc counts
// against the server all the same.

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

final class JvmMetrics {
    private JvmMetrics() {}

    /** The JVM's own families, appended to `b`: which it is, the JIT, the collectors. */
    static void render(StringBuilder b, String server) {
        // Which JVM serves: bench keeps its version with every window, so
        // that a column on Java 21 and one on Java 25 say so themselves.
        Metrics.family(b, "jvm_info", "The JVM: its version, vendor and runtime (always 1).", "gauge");
        b.append("jvm_info{server=\"").append(server)
                .append("\",version=\"").append(label(System.getProperty("java.runtime.version")))
                .append("\",vendor=\"").append(label(System.getProperty("java.vm.vendor")))
                .append("\",runtime=\"").append(label(System.getProperty("java.runtime.name")))
                .append("\"} 1\n");
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        // A JVM without a JIT (-Xint) has no compile time to tell: no series.
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
            Metrics.single(b, server, "jvm_compilation_time_seconds_total",
                    "Time the JIT compilers spent compiling, since start-up.", "counter",
                    seconds(jit.getTotalCompilationTime()));
        }
        Metrics.family(b, "jvm_gc_collection_seconds",
                "Collections of each garbage collector and the time they took, since start-up.", "summary");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String labels = "{server=\"" + server + "\",gc=\"" + gc.getName() + "\"} ";
            // -1: this collector does not count (the MXBean's contract); 0 is as true.
            b.append("jvm_gc_collection_seconds_count").append(labels).append(Math.max(0, gc.getCollectionCount()))
                    .append('\n');
            b.append("jvm_gc_collection_seconds_sum").append(labels).append(seconds(gc.getCollectionTime()))
                    .append('\n');
        }
    }

    /** A system property as a label's value: quotes and backslashes escaped, "" when unset. */
    private static String label(String value) {
        return value == null ? "" : value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ");
    }

    /** Milliseconds as seconds, the unit of every Prometheus time. */
    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.3f", Math.max(0, millis) / 1000.0);
    }
}
