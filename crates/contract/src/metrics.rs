//! `/metrics` in the Prometheus text format: what the seeds read from JMeter and
//! `docker stats`, served by the server itself.
//!
//! The counters are plain atomics, the same on both servers; reading `/proc` is left to the server (this crate does no I/O).
//!
//! When `/proc` cannot be read, both servers still answer 200: the process
//! gauges are left out (absent series, as Prometheus expects of a figure
//! nobody knows), the request counters and pool gauges are there as usual.
//!
//! Each server also reports how long its work waited for a thread, each in
//! its own terms (the event-loop lag on the async server, the wait for a free
//! handler thread on the blocking one); both are duration summaries
//! ([`crate::recent_durations`]) written by [`append_summaries`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::recent_durations::DurationSummary;
use crate::routes::{ROUTES, UNMATCHED};

/// The statuses counted without a lock: every status HTTP defines.
const COUNTED_STATUSES: std::ops::Range<u16> = 100..600;

/// How many copies of a counter the threads of a server share out
/// ([`this_threads_shard`]): each of the first `SHARDS` threads that counts
/// something has its own.
///
/// Why: a counter that every thread adds to on every request is a cache line
/// that the cores pass back and forth. On the async server's `/health`
/// (two workers on two cores) the stall detector's per-route counters, shared,
/// cost 6.5% of throughput; one copy per worker, almost nothing
/// (crates/async-server/src/route_monitors.rs has the figures). The request
/// counters here, which every request on every thread adds to three times,
/// are kept the same way; their own share of that cost was not measured
/// apart. The price is memory: [`RequestCounters`] is 8 copies of 64 KiB.
pub const SHARDS: usize = 8;

/// The calling thread's shard, below [`SHARDS`]: assigned in turn to each
/// thread the first time it asks, so the first `SHARDS` threads that count
/// each have their own and later ones share.
pub fn this_threads_shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
    }
    SHARD.with(|shard| *shard)
}

/// Requests by route and status, and requests in flight.
///
/// Counting a request is one atomic addition: there is a counter for each
/// route of [`ROUTES`] (plus [`UNMATCHED`]) and each status from 100 to 599,
/// about 8,000 counters, 64 KiB, in each of [`SHARDS`] copies that are
/// summed when read. A mutex-guarded map did the same job before and was
/// one of the costs the async server's `/health` paid over a bare axum app
/// (issue 9). A label or status outside that table (none today) is still
/// counted, in a map behind a mutex.
pub struct RequestCounters {
    shards: Box<[CounterShard]>,
    others: Mutex<BTreeMap<(&'static str, u16), u64>>,
}

/// One thread's copy of the counters, on cache lines of its own.
#[repr(align(128))]
struct CounterShard {
    /// Requests this shard's threads began minus those they finished: a
    /// request can begin on one thread and finish on another, so a shard's
    /// figure can be negative; the sum is the number in flight.
    in_flight: AtomicI64,
    by_route_status: Box<[AtomicU64]>,
}

impl Default for RequestCounters {
    fn default() -> Self {
        let slots = (ROUTES.len() + 1) * COUNTED_STATUSES.len();
        RequestCounters {
            shards: (0..SHARDS)
                .map(|_| CounterShard {
                    in_flight: AtomicI64::new(0),
                    by_route_status: (0..slots).map(|_| AtomicU64::new(0)).collect(),
                })
                .collect(),
            others: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for RequestCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCounters")
            .field("in_flight", &self.in_flight())
            .field("counts", &self.counts())
            .finish()
    }
}

/// The route labels with a row of counters, in row order.
fn counted_labels() -> impl Iterator<Item = &'static str> {
    ROUTES.iter().map(|r| r.pattern).chain([UNMATCHED])
}

impl RequestCounters {
    fn this_threads(&self) -> &CounterShard {
        &self.shards[this_threads_shard()]
    }

    /// Call when a request starts; pair with [`RequestCounters::finished`].
    pub fn started(&self) {
        self.this_threads()
            .in_flight
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Call when a request's answer has been produced.
    pub fn finished(&self, route: &'static str, status: u16) {
        let shard = self.this_threads();
        shard.in_flight.fetch_sub(1, Ordering::Relaxed);
        let row = counted_labels().position(|label| label == route);
        match row {
            Some(row) if COUNTED_STATUSES.contains(&status) => {
                let slot =
                    row * COUNTED_STATUSES.len() + usize::from(status - COUNTED_STATUSES.start);
                shard.by_route_status[slot].fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                // Held for one map update; never across I/O or an await.
                let mut others = self
                    .others
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                *others.entry((route, status)).or_insert(0) += 1;
            }
        }
    }

    pub fn in_flight(&self) -> i64 {
        self.shards
            .iter()
            .map(|shard| shard.in_flight.load(Ordering::Relaxed))
            .sum()
    }

    /// The non-zero counts, ordered by route then status.
    pub fn counts(&self) -> Vec<(&'static str, u16, u64)> {
        let mut counts: Vec<(&'static str, u16, u64)> = self
            .others
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .map(|(&(r, s), &n)| (r, s, n))
            .collect();
        let per_route = COUNTED_STATUSES.len();
        for (row, label) in counted_labels().enumerate() {
            for (column, status) in COUNTED_STATUSES.enumerate() {
                let slot = row * per_route + column;
                let n: u64 = self
                    .shards
                    .iter()
                    .map(|shard| shard.by_route_status[slot].load(Ordering::Relaxed))
                    .sum();
                if n > 0 {
                    counts.push((label, status, n));
                }
            }
        }
        counts.sort_unstable();
        counts
    }
}

/// One connection pool's gauges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolGauges {
    /// `"postgres"`, `"redis"`, `"postgres_sync"`, ...
    pub pool: &'static str,
    pub max_size: u64,
    /// Connections open now (in use + idle).
    pub size: u64,
    pub idle: u64,
    /// Requests waiting for a connection, where the pool library tells us.
    pub waiters: Option<u64>,
}

/// The server process's own figures, read from `/proc`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessGauges {
    pub os_threads: u64,
    pub rss_bytes: u64,
    pub cpu_seconds: f64,
}

impl ProcessGauges {
    pub fn new(os_threads: u64, rss_bytes: u64, cpu_seconds: f64) -> Self {
        ProcessGauges {
            os_threads,
            rss_bytes,
            cpu_seconds,
        }
    }
}

/// Everything one `/metrics` answer shows.
#[derive(Debug, Clone)]
pub struct MetricsSnapshot {
    /// `"blocking"` or `"async"`.
    pub server: &'static str,
    /// `None` when `/proc` could not be read: those three series are left out.
    pub process: Option<ProcessGauges>,
    pub in_flight: i64,
    pub requests: Vec<(&'static str, u16, u64)>,
    pub pools: Vec<PoolGauges>,
}

/// Renders a snapshot in the Prometheus text exposition format (version 0.0.4).
pub fn render(s: &MetricsSnapshot) -> String {
    let mut out = String::new();
    let server = s.server;
    let gauge = |out: &mut String, name: &str, help: &str, value: String| {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} gauge");
        let _ = writeln!(out, "{name}{{server=\"{server}\"}} {value}");
    };
    if let Some(process) = &s.process {
        gauge(
            &mut out,
            "process_threads",
            "Live OS threads of the server process.",
            process.os_threads.to_string(),
        );
        gauge(
            &mut out,
            "process_resident_memory_bytes",
            "Resident set size.",
            process.rss_bytes.to_string(),
        );
        gauge(
            &mut out,
            "process_cpu_seconds_total",
            "User plus system CPU time.",
            format!("{:.3}", process.cpu_seconds),
        );
    }
    gauge(
        &mut out,
        "http_requests_in_flight",
        "Requests being handled now.",
        s.in_flight.to_string(),
    );

    let _ = writeln!(
        out,
        "# HELP http_requests_total Requests answered, by route and status."
    );
    let _ = writeln!(out, "# TYPE http_requests_total counter");
    for (route, status, n) in &s.requests {
        let _ = writeln!(
            out,
            "http_requests_total{{server=\"{server}\",route=\"{route}\",status=\"{status}\"}} {n}"
        );
    }

    for (name, help) in [
        (
            "pool_max_connections",
            "Configured maximum size of the pool.",
        ),
        ("pool_connections", "Connections open now, in use or idle."),
        ("pool_idle_connections", "Idle connections."),
        ("pool_waiters", "Requests waiting for a connection."),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for p in &s.pools {
            let value = match name {
                "pool_max_connections" => Some(p.max_size),
                "pool_connections" => Some(p.size),
                "pool_idle_connections" => Some(p.idle),
                _ => p.waiters,
            };
            if let Some(v) = value {
                let _ = writeln!(out, "{name}{{server=\"{server}\",pool=\"{}\"}} {v}", p.pool);
            }
        }
    }
    out
}

/// Writes the `# HELP` and `# TYPE` lines of one metric family.
pub fn write_family_header(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// One series of a summary family: its extra label (`("route", "/cpu")`), if
/// any, and its figures.
#[derive(Debug, Clone, Copy)]
pub struct SummarySeries<'a> {
    pub label: Option<(&'a str, &'a str)>,
    pub summary: DurationSummary,
}

/// Appends a summary family in seconds: the median, p99 and max
/// (`quantile="1"`) over the recent window, `NaN` when nothing was recorded
/// in it (Prometheus's convention for an empty summary; not 0, which would be
/// a measurement), then `_sum` and `_count` since start-up.
pub fn append_summaries(
    out: &mut String,
    name: &str,
    help: &str,
    server: &str,
    series: &[SummarySeries<'_>],
) {
    write_family_header(out, name, help, "summary");
    for s in series {
        let labels = match s.label {
            Some((key, value)) => format!("server=\"{server}\",{key}=\"{value}\""),
            None => format!("server=\"{server}\""),
        };
        let d = &s.summary;
        for (quantile, value) in [("0.5", d.p50), ("0.99", d.p99), ("1", d.max)] {
            let value = value.map_or_else(|| "NaN".to_owned(), seconds);
            let _ = writeln!(out, "{name}{{{labels},quantile=\"{quantile}\"}} {value}");
        }
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", seconds(d.sum));
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", d.count);
    }
}

/// A duration as Prometheus wants it: seconds, here to the microsecond.
pub fn seconds(d: std::time::Duration) -> String {
    format!("{:.6}", d.as_secs_f64())
}

/// The content type of [`render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_track_in_flight_and_totals() {
        let c = RequestCounters::default();
        c.started();
        c.started();
        assert_eq!(c.in_flight(), 2);
        c.finished("/health", 200);
        c.finished("/health", 200);
        c.started();
        c.finished("/posts/{id}", 500);
        assert_eq!(c.in_flight(), 0);
        assert_eq!(
            c.counts(),
            vec![("/health", 200, 2), ("/posts/{id}", 500, 1)]
        );
    }

    /// Threads count into their own shards and the figures are the sums: a
    /// request begun on one thread and finished on another leaves nothing
    /// in flight, and each thread's counts add up.
    #[test]
    fn counts_from_several_threads_add_up() {
        let c = RequestCounters::default();
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    c.started();
                    c.started();
                    c.finished("/health", 200);
                })
                .join()
                .unwrap();
            scope
                .spawn(|| {
                    c.finished("/health", 200);
                    c.finished("/users/{id}", 404);
                })
                .join()
                .unwrap();
        });
        c.started();
        assert_eq!(c.in_flight(), 0);
        assert_eq!(
            c.counts(),
            vec![("/health", 200, 2), ("/users/{id}", 404, 1)]
        );
    }

    /// Every label and status is counted, in the table or beside it, and
    /// they come back merged in one order.
    #[test]
    fn counts_outside_the_table_are_kept_and_merged_in_order() {
        let c = RequestCounters::default();
        for (route, status) in [
            ("unmatched", 404),
            ("/users/{id}", 599),
            ("/users/{id}", 100),
            ("not-a-route", 200),
            ("/health", 999),
            ("/health", 200),
            ("unmatched", 404),
        ] {
            c.started();
            c.finished(route, status);
        }
        assert_eq!(
            c.counts(),
            vec![
                ("/health", 200, 1),
                ("/health", 999, 1),
                ("/users/{id}", 100, 1),
                ("/users/{id}", 599, 1),
                ("not-a-route", 200, 1),
                ("unmatched", 404, 2),
            ]
        );
    }

    #[test]
    fn render_is_prometheus_text() {
        let text = render(&MetricsSnapshot {
            server: "async",
            process: Some(ProcessGauges {
                os_threads: 5,
                rss_bytes: 1024,
                cpu_seconds: 1.5,
            }),
            in_flight: 1,
            requests: vec![("/health", 200, 3)],
            pools: vec![PoolGauges {
                pool: "postgres",
                max_size: 10,
                size: 2,
                idle: 1,
                waiters: None,
            }],
        });
        let expected = "\
# HELP process_threads Live OS threads of the server process.
# TYPE process_threads gauge
process_threads{server=\"async\"} 5
# HELP process_resident_memory_bytes Resident set size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes{server=\"async\"} 1024
# HELP process_cpu_seconds_total User plus system CPU time.
# TYPE process_cpu_seconds_total gauge
process_cpu_seconds_total{server=\"async\"} 1.500
# HELP http_requests_in_flight Requests being handled now.
# TYPE http_requests_in_flight gauge
http_requests_in_flight{server=\"async\"} 1
# HELP http_requests_total Requests answered, by route and status.
# TYPE http_requests_total counter
http_requests_total{server=\"async\",route=\"/health\",status=\"200\"} 3
# HELP pool_max_connections Configured maximum size of the pool.
# TYPE pool_max_connections gauge
pool_max_connections{server=\"async\",pool=\"postgres\"} 10
# HELP pool_connections Connections open now, in use or idle.
# TYPE pool_connections gauge
pool_connections{server=\"async\",pool=\"postgres\"} 2
# HELP pool_idle_connections Idle connections.
# TYPE pool_idle_connections gauge
pool_idle_connections{server=\"async\",pool=\"postgres\"} 1
# HELP pool_waiters Requests waiting for a connection.
# TYPE pool_waiters gauge
";
        assert_eq!(text, expected);
    }

    #[test]
    fn summaries_show_quantiles_or_nan_then_sum_and_count() {
        use std::time::Duration;
        let mut out = String::new();
        let ms = Duration::from_millis;
        append_summaries(
            &mut out,
            "handler_queue_wait_seconds",
            "Wait for a handler thread.",
            "blocking",
            &[
                SummarySeries {
                    label: Some(("route", "/posts/{id}")),
                    summary: DurationSummary {
                        count: 8,
                        sum: ms(1200),
                        recent_count: 8,
                        p50: Some(ms(150)),
                        p99: Some(ms(301)),
                        max: Some(ms(301)),
                    },
                },
                SummarySeries {
                    label: None,
                    summary: DurationSummary {
                        count: 3,
                        sum: ms(1),
                        recent_count: 0,
                        p50: None,
                        p99: None,
                        max: None,
                    },
                },
            ],
        );
        let expected = "\
# HELP handler_queue_wait_seconds Wait for a handler thread.
# TYPE handler_queue_wait_seconds summary
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"0.5\"} 0.150000
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"0.99\"} 0.301000
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"1\"} 0.301000
handler_queue_wait_seconds_sum{server=\"blocking\",route=\"/posts/{id}\"} 1.200000
handler_queue_wait_seconds_count{server=\"blocking\",route=\"/posts/{id}\"} 8
handler_queue_wait_seconds{server=\"blocking\",quantile=\"0.5\"} NaN
handler_queue_wait_seconds{server=\"blocking\",quantile=\"0.99\"} NaN
handler_queue_wait_seconds{server=\"blocking\",quantile=\"1\"} NaN
handler_queue_wait_seconds_sum{server=\"blocking\"} 0.001000
handler_queue_wait_seconds_count{server=\"blocking\"} 3
";
        assert_eq!(out, expected);
    }

    #[test]
    fn without_proc_the_process_gauges_are_left_out_and_the_rest_stays() {
        let text = render(&MetricsSnapshot {
            server: "blocking",
            process: None,
            in_flight: 0,
            requests: vec![("/health", 200, 3)],
            pools: vec![],
        });
        assert!(!text.contains("process_"), "{text}");
        assert!(text.contains("http_requests_in_flight{server=\"blocking\"} 0\n"));
        assert!(
            text.contains(
                "http_requests_total{server=\"blocking\",route=\"/health\",status=\"200\"} 3\n"
            ),
            "{text}"
        );
    }
}
