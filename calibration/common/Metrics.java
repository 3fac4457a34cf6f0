// The part of our servers' /metrics that bench reads between a sweep's
// steps to tell an idle server from a busy one: requests in flight and
// requests answered by route and status, under the same names
// (server_metrics::metrics). A server bench starts is sampled from /proc for its
// threads, RSS and CPU, like ours; what only the JVM knows (the JIT, the
// collectors: JvmMetrics; Tomcat's pool, pinned virtual threads) each
// server adds after these, every series labelled with the server as ours.

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

final class Metrics {
    private final String server;
    private final AtomicLong inFlight = new AtomicLong();
    private final ConcurrentHashMap<String, LongAdder> answered = new ConcurrentHashMap<>();

    Metrics(String server) {
        this.server = server;
    }

    /** A request arrived (a /metrics read counts itself, as ours do). */
    void started() {
        inFlight.incrementAndGet();
    }

    /** Its answer was handed to the connection. */
    void finished(String route, int status) {
        answered.computeIfAbsent(route + "\u0000" + status, k -> new LongAdder()).increment();
        inFlight.decrementAndGet();
    }

    /** The server label of every series, e.g. "tomcat-virtual". */
    String server() {
        return server;
    }

    /** A family's HELP and TYPE lines (server_metrics::metrics::write_family_header). */
    static void family(StringBuilder b, String name, String help, String type) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** A family of one series, labelled with the server alone. */
    static void single(StringBuilder b, String server, String name, String help, String type, Object value) {
        family(b, name, help, type);
        b.append(name).append("{server=\"").append(server).append("\"} ").append(value).append('\n');
    }

    /** The Prometheus text of both families. */
    String render() {
        StringBuilder b = new StringBuilder();
        single(b, server, "http_requests_in_flight", "Requests being handled now.", "gauge", inFlight.get());
        family(b, "http_requests_total", "Requests answered, by route and status.", "counter");
        Map<String, Long> sorted = new TreeMap<>();
        answered.forEach((k, v) -> sorted.put(k, v.sum()));
        sorted.forEach((k, v) -> {
            String[] parts = k.split("\u0000", 2);
            b.append("http_requests_total{server=\"").append(server).append("\",route=\"")
                    .append(parts[0]).append("\",status=\"").append(parts[1]).append("\"} ")
                    .append(v).append('\n');
        });
        return b.toString();
    }
}
