//! The figures of a round that a reader compares, each defined once, all
//! of one shape ([`Metric`]), so that the findings, the tables, the matrix
//! at a glance, the comparison of two runs and the charts cannot mean two
//! things by one word.
//!
//! Throughput is successful throughput: requests answered with a status
//! below 400, per second ([`successful_rps`]). Counted by every request
//! that ended, a column whose requests start failing fast would look like
//! a gain; counted by successes, a round in which nothing succeeded is at
//! 0. (Seed 000's table keeps its "Throughput (req/s)" row of every ended
//! request, [`crate::LoadStats::throughput_rps`], beside the successful one.)
//!
//! A sweep step's window ends with requests still in flight: its figures
//! ([`step_p99_ms`], [`unanswered`], [`server_cpu_us_per_answer`]) count
//! them apart.
//!
//! A latency percentile is a **lower bound** when the requests of its
//! window that got no answer (still in flight at the window's end, or
//! timed out) are at least the share of requests above it: 1% for a p99,
//! 50% for a p50 ([`percentile_is_lower_bound`]). Such a request's latency
//! is unknown, only known to be at least how long it waited, so every one
//! of them may belong in the tail; once they are as many as the tail
//! holds, the percentile may be one of them, and the figure counted at
//! their waits is the least it can be. Printers write it "≥ 2736 ms".

use crate::{ErrorKind, RoundResult};

/// A figure of one round, `None` where the round does not have it.
pub type Metric = fn(&RoundResult) -> Option<f64>;

/// Throughput: successful requests per second over the window (errors,
/// timeouts and requests unfinished at the window's end do not count).
pub fn successful_rps(r: &RoundResult) -> Option<f64> {
    Some(r.load.successful_throughput_rps)
}

/// The median of the window's latency, ms.
pub fn p50_ms(r: &RoundResult) -> Option<f64> {
    Some(r.load.latency_ms.p50)
}

/// The 99th percentile of the window's latency, ms.
pub fn p99_ms(r: &RoundResult) -> Option<f64> {
    Some(r.load.latency_ms.p99)
}

/// The 99th percentile of a burst's connects, ms ([`crate::LoadStats::connect_ms`]).
pub fn connect_p99_ms(r: &RoundResult) -> Option<f64> {
    Some(r.load.connect_ms?.p99)
}

/// The median of a burst's connects, ms.
pub fn connect_p50_ms(r: &RoundResult) -> Option<f64> {
    Some(r.load.connect_ms?.p50)
}

/// The server's peak thread count in the window, `None` when it was not
/// sampled.
pub fn peak_threads(r: &RoundResult) -> Option<f64> {
    (r.server_process.samples > 0).then_some(r.server_process.peak_threads as f64)
}

/// Server CPU per request in microseconds (the figure shared cores
/// disturb least), over every request it served ([`RoundResult::requests_served`]);
/// `None` when the server was not sampled or nothing was served.
pub fn server_cpu_us_per_request(r: &RoundResult) -> Option<f64> {
    let n = r.requests_served();
    (r.server_process.samples > 0 && n > 0).then(|| r.server_process.cpu_seconds * 1e6 / n as f64)
}

/// Round trips to Postgres per successful request of the window, from
/// the proxy's exchanges; `None` without a proxy reading or a success.
pub fn postgres_round_trips_per_request(r: &RoundResult) -> Option<f64> {
    r.postgres_proxy?.round_trips_per(r.load.ok_requests)
}

/// The mean round trip the proxy in front of Postgres delivered in the
/// window, in ms.
pub fn delivered_round_trip_ms(r: &RoundResult) -> Option<f64> {
    r.postgres_proxy?.delivered_round_trip_ms()
}

/// A sweep step's p99 with every request of its window counted, those
/// given no answer at their wait: a lower bound where any went unanswered.
pub fn step_p99_ms(r: &RoundResult) -> Option<f64> {
    r.step.map(|s| s.latency_lower_bound_ms.p99)
}

/// Requests of a sweep step's window that got no answer: still in flight
/// at its end, or timed out.
pub fn unanswered(r: &RoundResult) -> Option<f64> {
    r.step.map(|s| (s.unfinished + s.timeouts) as f64)
}

/// Requests of any window that got no answer: a sweep step's
/// ([`unanswered`]), else the window's timed-out and unfinished errors.
pub fn without_answer(r: &RoundResult) -> u64 {
    unanswered(r).map_or_else(
        || {
            [ErrorKind::Timeout, ErrorKind::Unfinished]
                .iter()
                .filter_map(|k| r.load.errors_by_kind.get(k))
                .sum()
        },
        |u| u as u64,
    )
}

/// Whether the `percentile` (99 for a p99) latency of a round is only a
/// lower bound: its requests without an answer ([`without_answer`]) are
/// at least (100 - `percentile`)% of the window's requests.
pub fn percentile_is_lower_bound(r: &RoundResult, percentile: f64) -> bool {
    let total = r.load.total_requests as f64;
    // In percent on both sides, so that 10 of 1000 is exactly a p99's 1%.
    total > 0.0 && without_answer(r) as f64 * 100.0 >= (100.0 - percentile) * total
}

/// [`percentile_is_lower_bound`] of the p99.
pub fn p99_is_lower_bound(r: &RoundResult) -> bool {
    percentile_is_lower_bound(r, 99.0)
}

/// Server CPU per answered request in a sweep step's window
/// (microseconds): requests unfinished at the window's end or timed out
/// are not divided by.
pub fn server_cpu_us_per_answer(r: &RoundResult) -> Option<f64> {
    let answered = r.load.total_requests.saturating_sub(unanswered(r)? as u64);
    (r.server_process.samples > 0 && answered > 0)
        .then(|| r.server_process.cpu_seconds * 1e6 / answered as f64)
}

/// The 99.9th percentile of the window's latency, ms; `None` in runs
/// saved before it was kept.
pub fn p99_9_ms(r: &RoundResult) -> Option<f64> {
    r.load.latency_ms.p99_9
}

/// What one core of a dedicated server would serve at the round's server
/// CPU per request: 1 s / CPU per request, requests per second. On a
/// machine of its own a server's capacity is its cores / CPU per request;
/// measured at an equal load ([`crate::EqualLoad`]), the figure a shared
/// machine can give fairly.
pub fn requests_per_server_cpu_second(r: &RoundResult) -> Option<f64> {
    server_cpu_us_per_request(r)
        .filter(|us| *us > 0.0)
        .map(|us| 1e6 / us)
}

/// `seconds` of some part of the window's CPU per request it served, us;
/// `None` where the machine's CPU was not split or nothing was served.
fn part_us_per_request(r: &RoundResult, seconds: f64) -> Option<f64> {
    let n = r.requests_served();
    (r.machine_cpu_measured && n > 0).then(|| seconds * 1e6 / n as f64)
}

/// The load generator's CPU per request (bench itself), us.
pub fn load_generator_cpu_us_per_request(r: &RoundResult) -> Option<f64> {
    part_us_per_request(r, r.cpu.load_generator_seconds)
}

/// Postgres' CPU per request (every process named postgres), us.
pub fn postgres_cpu_us_per_request(r: &RoundResult) -> Option<f64> {
    part_us_per_request(r, r.cpu.postgres_seconds)
}

/// Redis' CPU per request (every redis-server), us.
pub fn redis_cpu_us_per_request(r: &RoundResult) -> Option<f64> {
    part_us_per_request(r, r.cpu.redis_seconds)
}
