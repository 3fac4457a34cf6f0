// Which route pins its carrier: JFR's jdk.VirtualThreadPinned events,
// counted per route in this JVM as they happen, through an in-process
// RecordingStream (jdk.jfr, Java 14 and later), for /metrics'
// jvm_virtual_thread_pinned_total. It is the Java twin of blocking-server's
// pinning detector (crates/blocking-server/src/virtual_threads/pinning.rs).
//
// A virtual thread pins its carrier when it parks where the JVM cannot
// unmount it: before Java 24, inside a synchronized block. pgjdbc before
// 42.6.0 (Debian's is 42.5.5) waits for Postgres's answer inside
// QueryExecutorImpl.execute, a synchronized method, so on Java 21 every
// /users/{id} read pins; Java 24 unmounts such a thread (JEP 491), and on
// Java 25 the count stays 0.
//
// JFR hands the events over about once a second, after the request is long
// gone, so an event is put to a route by its stack: the handler method of
// the route (TomcatServer.App's health, cpu, user, post, metrics) is on it.
// Each pinned park is counted: the event's 20-ms default threshold is set
// to 0, since a local Postgres answers in well under a millisecond. That
// has a price where pins are many: JFR walks the stack of each (about one
// per /users/{id} read on Java 21), which a probe on a busy 2-core machine
// saw cost Tomcat on virtual threads some 10-30% of its /users/1
// throughput (docs/servers.md); --no-pin-events turns the stream off.

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingStream;

final class PinnedThreads {
    static final String EVENT = "jdk.VirtualThreadPinned";
    /** The label of a pin whose stack has no handler on it (a deep stack cut short). */
    static final String UNKNOWN = "unknown";

    private final String handlerClass;
    private final Map<String, String> routeOfHandler;
    private final ConcurrentHashMap<String, LongAdder> pins = new ConcurrentHashMap<>();
    /** Why nothing is counted, or null while the stream counts. */
    private final String notWatched;

    private PinnedThreads(String handlerClass, Map<String, String> routeOfHandler, String notWatched) {
        this.handlerClass = handlerClass;
        this.routeOfHandler = routeOfHandler;
        this.notWatched = notWatched;
        for (String route : routeOfHandler.values()) {
            pins.put(route, new LongAdder());
        }
    }

    /**
     * Counts the pins of `virtual` threads from now on, if `wanted`:
     * `routeOfHandler` maps each handler method of `handlerClass` to its
     * route. Without virtual threads, unwanted, or on a JVM without the event
     * (Java 17), nothing is counted, and the start-up line and /metrics say so.
     */
    static PinnedThreads start(boolean virtual, boolean wanted, String handlerClass,
            Map<String, String> routeOfHandler) {
        String why = null;
        if (!virtual) {
            why = "platform threads do not pin (no --virtual)";
        } else if (!wanted) {
            why = "--no-pin-events";
        } else if (!hasEvent()) {
            why = "Java " + Runtime.version().feature() + " has no " + EVENT + " event";
        }
        PinnedThreads counter = new PinnedThreads(handlerClass, routeOfHandler, why);
        if (why == null) {
            RecordingStream stream = new RecordingStream();
            stream.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
            stream.onEvent(EVENT, counter::count);
            // A daemon thread of JFR's own reads the events from here on.
            stream.startAsync();
        }
        return counter;
    }

    private static boolean hasEvent() {
        for (EventType type : FlightRecorder.getFlightRecorder().getEventTypes()) {
            if (type.getName().equals(EVENT)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the events are counted; if not, why (for the start-up line). */
    String watching() {
        return notWatched == null ? "counting " + EVENT + " events per route (JFR)"
                : "not counting pinned virtual threads: " + notWatched;
    }

    private void count(RecordedEvent event) {
        pins.computeIfAbsent(routeOf(event.getStackTrace()), k -> new LongAdder()).increment();
    }

    /** The route whose handler is on `stack`, the innermost first. */
    private String routeOf(RecordedStackTrace stack) {
        if (stack != null) {
            for (RecordedFrame frame : stack.getFrames()) {
                if (frame.getMethod() != null && frame.getMethod().getType().getName().equals(handlerClass)) {
                    String route = routeOfHandler.get(frame.getMethod().getName());
                    if (route != null) {
                        return route;
                    }
                }
            }
        }
        return UNKNOWN;
    }

    /** The families of /metrics: whether it counts, and the pins per route. */
    void render(StringBuilder b, String server) {
        Metrics.single(b, server, "jvm_virtual_thread_pinned_watched",
                "1 when JFR counts jdk.VirtualThreadPinned events here (virtual threads on Java 21 or later);"
                        + " 0: the counts below stay 0 whatever pins.",
                "gauge", notWatched == null ? 1 : 0);
        Metrics.family(b, "jvm_virtual_thread_pinned_total",
                "Times a virtual thread of the route parked pinned to its carrier (JFR's jdk.VirtualThreadPinned).",
                "counter");
        Map<String, Long> sorted = new TreeMap<>();
        pins.forEach((route, n) -> sorted.put(route, n.sum()));
        sorted.forEach((route, n) -> b.append("jvm_virtual_thread_pinned_total{server=\"").append(server)
                .append("\",route=\"").append(route).append("\"} ").append(n).append('\n'));
    }
}
