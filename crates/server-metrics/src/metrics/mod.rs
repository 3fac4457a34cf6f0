//! `/metrics` in the Prometheus text format: what the seeds read from JMeter and
//! `docker stats`, served by the server itself, under the names a Prometheus
//! user and a Spring team's dashboard expect.
//!
//! Written once for every server mode: the request table and its two
//! families ([`RequestCounters`]: `http_requests_total` by route and status,
//! and `http_server_requests_seconds`, the histogram with Spring Boot's
//! labels, [`request_histogram`]), the requests in flight, the request
//! bodies cut off at their deadline, the standard process metrics of the
//! Prometheus client libraries and the pool gauges ([`render`]), and the
//! summaries each server keeps about its own waiting ([`append_summaries`]).
//! Reading `/proc` is left to the server (this crate does no I/O).
//!
//! When `/proc` cannot be read, every server still answers 200: the process
//! metrics are left out (absent series, as Prometheus expects of a figure
//! nobody knows), the request counters and pool gauges are there as usual.

mod pool_waits;
mod request_counters;
pub mod request_histogram;
mod summaries;

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use pool_waits::{AcquireTimer, PoolWaitCounters};
pub use request_counters::{RequestCounters, RequestTotals};
pub use request_histogram::{RequestSeries, CLIENT_CLOSED_REQUEST, REQUEST_HISTOGRAM};
pub use summaries::{append_summaries, SummarySeries};

/// Requests answered, by route and status (the servers' own family, which
/// bench and the seeds' tables read; the histogram has the same counts).
pub const REQUESTS_TOTAL: &str = "http_requests_total";
/// Request bodies answered 408 because they missed their deadline.
pub const BODY_TIMEOUTS_TOTAL: &str = "http_request_body_timeouts_total";

/// How many copies of a counter the threads of a server share out
/// ([`this_threads_shard`]): each of the first `SHARDS` threads that counts
/// something has its own.
///
/// Why: a counter that every thread adds to on every request is a cache line
/// that the cores pass back and forth. On the async server's `/health`
/// (two workers on two cores) the stall detector's per-route counters, shared,
/// cost 6.5% of throughput; one copy per worker, almost nothing
/// (crates/async-server/src/route_monitors.rs has the figures). The request
/// counters, which every request on every thread adds to, are kept the same
/// way; their own share of that cost was not measured apart. The price is
/// memory: [`RequestCounters`] is 8 copies of 67 KiB.
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
    /// Checkouts since start-up and the time spent waiting for them, where
    /// the server times its own checkouts (every server's Postgres pool,
    /// the blocking servers' Redis pools).
    pub waits: Option<PoolWaitTotals>,
}

/// A pool's checkouts since start-up and the total time they waited for a
/// connection (`pool_acquires_total`, `pool_acquire_wait_seconds_total`):
/// the mean wait over a window is the difference of the second over the
/// difference of the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolWaitTotals {
    pub acquires: u64,
    pub waited: std::time::Duration,
}

/// The server process's own figures, read from `/proc`: the standard
/// process metrics of the Prometheus client libraries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessGauges {
    pub os_threads: u64,
    pub rss_bytes: u64,
    pub cpu_seconds: f64,
    pub open_fds: u64,
    /// The soft open-file limit; `None` when unlimited (then not shown).
    pub max_fds: Option<u64>,
    /// Seconds since the Unix epoch.
    pub start_time_seconds: f64,
}

/// Everything one `/metrics` answer shows of the contract's figures.
#[derive(Debug, Clone)]
pub struct MetricsSnapshot {
    /// `"blocking"` or `"async"`: the `server` label, and the histogram's
    /// `application`.
    pub server: &'static str,
    /// `None` when `/proc` could not be read: the process metrics are left out.
    pub process: Option<ProcessGauges>,
    pub requests: RequestTotals,
    pub pools: Vec<PoolGauges>,
}

/// Renders a snapshot in the Prometheus text exposition format (version 0.0.4).
pub fn render(s: &MetricsSnapshot) -> String {
    let mut out = String::new();
    if let Some(process) = &s.process {
        append_process(&mut out, s.server, process);
    }
    append_requests(&mut out, s.server, &s.requests);
    append_pools(&mut out, s.server, &s.pools);
    out
}

/// One family with one series labelled only by the server.
fn single(out: &mut String, server: &str, name: &str, help: &str, kind: &str, value: &str) {
    write_family_header(out, name, help, kind);
    let _ = writeln!(out, "{name}{{server=\"{server}\"}} {value}");
}

/// The standard process metrics, with the help texts of the Prometheus
/// client libraries (`process_threads` as the Rust client has it).
fn append_process(out: &mut String, server: &str, p: &ProcessGauges) {
    let families = [
        (
            "process_threads",
            "Number of OS threads in the process.",
            "gauge",
            p.os_threads.to_string(),
        ),
        (
            "process_resident_memory_bytes",
            "Resident memory size in bytes.",
            "gauge",
            p.rss_bytes.to_string(),
        ),
        (
            "process_cpu_seconds_total",
            "Total user and system CPU time spent in seconds.",
            "counter",
            format!("{:.3}", p.cpu_seconds),
        ),
        (
            "process_open_fds",
            "Number of open file descriptors.",
            "gauge",
            p.open_fds.to_string(),
        ),
        (
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.",
            "gauge",
            format!("{:.2}", p.start_time_seconds),
        ),
    ];
    for (name, help, kind, value) in &families {
        single(out, server, name, help, kind, value);
    }
    if let Some(max) = p.max_fds {
        let help = "Maximum number of open file descriptors.";
        single(
            out,
            server,
            "process_max_fds",
            help,
            "gauge",
            &max.to_string(),
        );
    }
}

/// Requests in flight, `http_requests_total`, the histogram and the body
/// timeouts.
fn append_requests(out: &mut String, server: &str, requests: &RequestTotals) {
    let in_flight = requests.in_flight.to_string();
    let help = "Requests being handled now.";
    single(
        out,
        server,
        "http_requests_in_flight",
        help,
        "gauge",
        &in_flight,
    );
    let help = "Requests answered, by route and status.";
    write_family_header(out, REQUESTS_TOTAL, help, "counter");
    for (route, status, n) in requests.by_route_and_status() {
        let _ = writeln!(
            out,
            "{REQUESTS_TOTAL}{{server=\"{server}\",route=\"{route}\",status=\"{status}\"}} {n}"
        );
    }
    request_histogram::append_request_histogram(out, server, &requests.series);
    let help = "Requests answered 408 because their body did not arrive within \
                --body-read-timeout-ms of the end of their head.";
    let timeouts = requests.body_timeouts.to_string();
    single(out, server, BODY_TIMEOUTS_TOTAL, help, "counter", &timeouts);
}

fn append_pools(out: &mut String, server: &str, pools: &[PoolGauges]) {
    type Figure = fn(&PoolGauges) -> Option<u64>;
    let families: [(&str, &str, Figure); 4] = [
        (
            "pool_max_connections",
            "Configured maximum size of the pool.",
            |p| Some(p.max_size),
        ),
        (
            "pool_connections",
            "Connections open now, in use or idle.",
            |p| Some(p.size),
        ),
        ("pool_idle_connections", "Idle connections.", |p| {
            Some(p.idle)
        }),
        ("pool_waiters", "Requests waiting for a connection.", |p| {
            p.waiters
        }),
    ];
    for (name, help, figure) in families {
        write_family_header(out, name, help, "gauge");
        for p in pools {
            if let Some(v) = figure(p) {
                let _ = writeln!(out, "{name}{{server=\"{server}\",pool=\"{}\"}} {v}", p.pool);
            }
        }
    }
    let timed: Vec<(&str, PoolWaitTotals)> = pools
        .iter()
        .filter_map(|p| p.waits.map(|w| (p.pool, w)))
        .collect();
    if timed.is_empty() {
        return;
    }
    let help = "Connections checked out of the pool since start-up.";
    write_family_header(out, "pool_acquires_total", help, "counter");
    for (pool, w) in &timed {
        let _ = writeln!(
            out,
            "pool_acquires_total{{server=\"{server}\",pool=\"{pool}\"}} {}",
            w.acquires
        );
    }
    let help = "Time spent waiting for a connection from the pool since start-up.";
    write_family_header(out, "pool_acquire_wait_seconds_total", help, "counter");
    for (pool, w) in &timed {
        let _ = writeln!(
            out,
            "pool_acquire_wait_seconds_total{{server=\"{server}\",pool=\"{pool}\"}} {}",
            seconds(w.waited)
        );
    }
}

/// Writes the `# HELP` and `# TYPE` lines of one metric family.
pub fn write_family_header(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A duration as Prometheus wants it: seconds, here to the microsecond.
pub fn seconds(d: std::time::Duration) -> String {
    format!("{:.6}", d.as_secs_f64())
}

/// The content type of [`render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[cfg(test)]
mod tests;
