// What only the JVM knows about a window, in /metrics under the Prometheus
// Java client's names (client_java's JvmInfo, JvmCompilationMetrics and
// JvmGarbageCollectorMetrics): which JVM it is, the time the JIT has spent
// compiling and each collector's collections and time, since start-up. bench reads them
// before and after a window: a JIT still compiling in the window, or a
// collection in it, spends CPU no request asked for, which /proc counts
// against the server all the same.
//
// The JIT twice: CompilationMXBean's compile time is the compilers' elapsed
// time, which on two busy cores runs three to ten times their CPU (a compiler
// thread waits for a core like any other), so the compiler threads' own CPU
// time is read beside it from Linux's /proc (jvm_compiler_cpu_seconds_total,
// a name of this project's: client_java has no such series).

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

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
        double compilerCpu = compilerThreadsCpuSeconds();
        // Not on Linux, or no compiler thread (-Xint): no series.
        if (compilerCpu >= 0) {
            Metrics.single(b, server, "jvm_compiler_cpu_seconds_total",
                    "CPU time of the JIT's compiler threads, since start-up (Linux's /proc).", "counter",
                    String.format(java.util.Locale.ROOT, "%.3f", compilerCpu));
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

    /**
     * The CPU time of the JVM's compiler threads (HotSpot names them "C1
     * CompilerThread0", "C2 CompilerThread0", ...; Linux keeps 15 bytes of a
     * name), from each thread's /proc schedstat (nanoseconds on a core);
     * -1 when none can be read. A compiler thread that has ended since (HotSpot
     * starts and stops them as the queue grows and shrinks) is no longer
     * counted, so the sum can fall: bench takes a fall as no compiling.
     */
    private static double compilerThreadsCpuSeconds() {
        long nanos = 0;
        boolean found = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) continue;
                    String run = Files.readString(task.resolve("schedstat")).trim();
                    nanos += Long.parseLong(run.substring(0, run.indexOf(' ')));
                    found = true;
                } catch (java.io.IOException | RuntimeException gone) {
                    // The thread ended between the listing and the read.
                }
            }
        } catch (java.io.IOException | RuntimeException noProc) {
            return -1;
        }
        return found ? nanos / 1e9 : -1;
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
