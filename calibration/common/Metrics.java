// The part of our servers' /metrics that bench reads between a sweep's
// steps to tell an idle server from a busy one: requests in flight and
// requests answered by route and status, under the same names
// (server_metrics::metrics). A server bench starts is sampled from /proc for its
// threads, RSS and CPU, like ours, so nothing else is needed here.

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

    /** The Prometheus text of both families. */
    String render() {
        StringBuilder b = new StringBuilder();
        b.append("# HELP http_requests_in_flight Requests being handled now.\n");
        b.append("# TYPE http_requests_in_flight gauge\n");
        b.append("http_requests_in_flight{server=\"").append(server).append("\"} ")
                .append(inFlight.get()).append('\n');
        b.append("# HELP http_requests_total Requests answered, by route and status.\n");
        b.append("# TYPE http_requests_total counter\n");
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
