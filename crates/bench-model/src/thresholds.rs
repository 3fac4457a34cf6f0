//! The numbers that turn the seeds' words into checks, in one place, printed
//! with every report.

use serde::{Deserialize, Serialize};

/// The numbers that turn the seeds' words into checks. A `results.json`
/// written before a threshold existed reads it as today's ([`THRESHOLDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Relative margin either side of a claim's line: a claim holds only when
    /// every round clears the line by more than this, and fails only when
    /// every round misses it by more (0.05: 5%).
    pub margin: f64,
    /// "An offload brings async close to blocking": within this fraction of blocking's throughput.
    pub offload_within: f64,
    /// "Far fewer threads": async peak threads at most this fraction of blocking's.
    pub thread_fraction: f64,
    /// "A blocked event loop stalls everyone": /health p99 next to an inline blocking
    /// load is at least this many times its p99 next to the offloaded or non-blocking load.
    pub mixed_p99_factor: f64,
    /// A measured window in which everything but the server, bench, Postgres
    /// and Redis used more than this many cores was not quiet.
    pub quiet_other_cores: f64,
    /// The cold-start probe: a connection with no answer within this many
    /// milliseconds of the start was starved.
    pub cold_start_answer_within_ms: f64,
    /// The cold-start probe: cold starts of tiny_http without a starved
    /// connection it takes to call its unfairness refuted (NOT HELD); with
    /// fewer, INCONCLUSIVE. It starved some on 5 to 7 of 8 starts here, so
    /// 8 clean starts in a row would happen by chance well under 1% of runs.
    pub cold_start_refute_starts: usize,
    /// The stall detector flags a route in a window when at least this
    /// share of its polls were slow (`--slow-poll-ms`, 5 ms). A route that
    /// blocks by design does its blocking work inside a poll on every
    /// request, so once that work outlasts the threshold about every
    /// request makes a slow poll (a share of 1 / polls per request: tens of
    /// percent). A route that never blocks makes one only when the OS
    /// takes its worker's core in the middle of a quick poll, which happens
    /// on a machine busier than its cores but rarely (once in this
    /// project's detector tests). 1% lies far from both; it was chosen
    /// before the matrix was run, not fitted to it.
    pub detector_slow_poll_share: f64,
    /// The stall detector's blocking-call half flags a route in a window
    /// when it made at least this many blocking calls on an event-loop
    /// worker per poll of its handler. Unlike a slow poll, a blocking call
    /// is counted by the code, not timed by the clock, so there is no noise
    /// to stay clear of: a route that blocks by design makes at least one
    /// per request (one to two per poll: its blocking call sits in the
    /// handler's one poll), a route that never blocks on a worker makes
    /// exactly none. Any line between 0 and 1 per poll separates them; 0.01
    /// (1%) was chosen from that design, before a run, to read like the
    /// slow-poll line, and leaves room for a route whose blocking call is
    /// made only on some of its requests (a cache miss, say).
    pub detector_blocking_calls_per_poll: f64,
    /// The idle group: "a thread per idle connection" means at least this
    /// many threads above idle per open connection at the largest size.
    pub idle_threads_per_connection: f64,
    /// The idle group: "no threads for idle connections" means at most this
    /// many threads above idle with the largest size open (a runtime may
    /// start a helper thread; a thread per connection is thousands).
    pub idle_threads_allowance: f64,
    /// Sweep: the blocking server's plateau is "at its cap" when within this
    /// fraction of Little's law's prediction (10%).
    pub sweep_cap_within: f64,
    /// Sweep: the plateau is the median throughput over this many of the
    /// highest steps, per round.
    pub sweep_plateau_steps: usize,
    /// Virtual threads on the /posts/1 sweep "pass the 200-thread cap":
    /// their plateau is at least this many times Little's law's cap of the
    /// blocking server (5x 667 req/s).
    pub virtual_plateau_factor: f64,
    /// The yielding driver "moves the bottleneck to the pool": in the
    /// remote-database group it serves at least this fraction of pool size
    /// / round trip (0.8).
    pub pool_bound_fraction: f64,
    /// The pinning driver "caps at the carriers": its throughput within
    /// this fraction of carriers / query time (15%).
    pub carrier_cap_within: f64,
    /// ... and at most this fraction of the yielding driver's (half).
    pub pinning_share_of_yielding: f64,
    /// The virtual-thread detector's marks flag a route in a window when it
    /// made at least this many blocking calls on a carrier per request. As
    /// on the event loop the calls are counted by the code, not timed: a
    /// route that pins by design makes one or two per request (a query, two
    /// Redis GETs, the inline loop), one that does not makes none. 0.01 was
    /// chosen from that design, before a run, to read like the event loop's.
    pub detector_blocking_calls_per_request: f64,
    /// Its timing flags a route in a window when at least this share of its
    /// requests made a carrier stall (a run between two parks of 5 ms or
    /// more). A route that pins for longer than that stalls on about every
    /// request; one that parks stalls only when the OS takes its carrier's
    /// core mid-run. 1%, like the slow-poll line, chosen before a run.
    pub detector_carrier_stalls_per_request: f64,
    /// Round trips per request, counted by the proxy in front of Postgres,
    /// are "two on sqlx, one on the other pooled drivers" within this
    /// fraction of the design's count (15%: a window's requests in flight
    /// at its ends, and a connection's first exchanges, move it a little).
    pub round_trips_within: f64,
    /// "The pool is the queue": a pooled driver serves within this fraction
    /// of pool size / (round trips per request x delivered round trip).
    pub pool_queue_within: f64,
    /// The pipelined async driver "passes the pool's bound": in the
    /// remote-database group at least this many times the blocking server.
    pub pipelined_over_blocking: f64,
    /// The pool sweep: the pipelined driver with two clients is within this
    /// fraction of its best client count (20%) ...
    pub pool_sweep_pipelined_within: f64,
    /// ... while each pooled driver at pool 2 serves below this fraction of
    /// its best pool size (half).
    pub pool_sweep_small_pool_share: f64,
    /// A calibration: our blocking server's successful throughput at each
    /// step of the /posts/1 sweep "matches Tomcat's" within this fraction
    /// (5%), and its failed requests (errors less those cut off in flight at
    /// the window's end) exceed Tomcat's by at most this share of the step's
    /// requests.
    pub calibration_within: f64,
    /// Tomcat on virtual threads on Java 21, where pgjdbc 42.5.5 waits for
    /// Postgres inside a `synchronized` method, "caps at the carriers":
    /// with Postgres a round trip away its throughput is within this
    /// fraction of carriers / the round trip the proxy delivered in the
    /// same window (25%). Wider than our pinning driver's line
    /// ([`Thresholds::carrier_cap_within`]), which divides by how long each
    /// query held its carrier as the server timed it: here only the proxy's
    /// half of that is read, and a pinned carrier also holds through
    /// pgjdbc's and HikariCP's own work and the hops either side of the
    /// proxy. The alternative, a JVM that unmounts, is pool / round trip,
    /// five times away with a pool of 10 on 2 cores. Chosen before a run.
    pub loom_carrier_cap_within: f64,
    /// ... its pinned virtual threads at least this many per `/users/{id}`
    /// request (pgjdbc pins once per query; a probe counted about 1.2,
    /// HikariCP's own monitors adding some): half of one.
    pub loom_pins_per_request: f64,
    /// ... and on Java 25 (JEP 491: a thread blocked in a monitor
    /// unmounts) fewer than this many per request: a class initialiser
    /// still pins, but only at a JVM's first requests, in its warm-up.
    pub loom_unpinned_pins_per_request: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        THRESHOLDS
    }
}

pub const THRESHOLDS: Thresholds = Thresholds {
    margin: 0.05,
    offload_within: 0.15,
    thread_fraction: 0.25,
    mixed_p99_factor: 5.0,
    quiet_other_cores: 0.10,
    cold_start_answer_within_ms: 1000.0,
    cold_start_refute_starts: 8,
    detector_slow_poll_share: 0.01,
    detector_blocking_calls_per_poll: 0.01,
    idle_threads_per_connection: 0.9,
    idle_threads_allowance: 4.0,
    sweep_cap_within: 0.10,
    sweep_plateau_steps: 2,
    virtual_plateau_factor: 5.0,
    pool_bound_fraction: 0.8,
    carrier_cap_within: 0.15,
    pinning_share_of_yielding: 0.5,
    detector_blocking_calls_per_request: 0.01,
    detector_carrier_stalls_per_request: 0.01,
    round_trips_within: 0.15,
    pool_queue_within: 0.15,
    pipelined_over_blocking: 2.0,
    pool_sweep_pipelined_within: 0.2,
    pool_sweep_small_pool_share: 0.5,
    calibration_within: 0.05,
    loom_carrier_cap_within: 0.25,
    loom_pins_per_request: 0.5,
    loom_unpinned_pins_per_request: 0.01,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A results.json from before a threshold existed (here, one with only
    /// the first five) reads the missing ones as today's.
    #[test]
    fn thresholds_missing_from_an_older_results_json_are_todays() {
        let old = r#"{"margin":0.1,"offload_within":0.15,"thread_fraction":0.25,"mixed_p99_factor":5.0,"quiet_other_cores":0.1}"#;
        let t: Thresholds = serde_json::from_str(old).unwrap();
        assert_eq!(
            t,
            Thresholds {
                margin: 0.1,
                ..THRESHOLDS
            }
        );
    }
}
