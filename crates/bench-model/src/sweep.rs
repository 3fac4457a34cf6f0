//! A concurrency sweep's results: its steps, the blocking server's cap by
//! Little's law, and what each step of a column round recorded.

use serde::{Deserialize, Serialize};

use super::Latency;

/// A concurrency sweep group (bench's `Sweep`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepInfo {
    /// Connections per step, ascending.
    pub steps: Vec<usize>,
    /// Column rounds (each a fresh server taking every step).
    pub rounds: u32,
    pub window_seconds: f64,
    pub warm_up_seconds: f64,
    /// The blocking server's throughput cap by Little's law, where the
    /// route's time per request is fixed; `None` with the reason in
    /// `cap_note` otherwise.
    pub cap: Option<LittleCap>,
    /// How the cap was found, or why there is none.
    pub cap_note: String,
}

/// Little's law for the blocking server: at most `handler_threads` requests
/// are served at once, each for `latency_ms`, so at most
/// `handler_threads / latency` complete per second, whatever the load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LittleCap {
    pub handler_threads: u32,
    pub latency_ms: f64,
    pub rps: f64,
}

/// One step of a sweep, on one column round ([`crate::RoundResult::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepStep {
    /// The step's connections.
    pub connections: usize,
    /// Whether the step ran on a fresh server process because the one before
    /// was not idle within the settle time (the sweep's settle time in bench's plan).
    pub fresh_server: bool,
    /// Latency over every request of the window: answered ones, timed-out
    /// ones at the time they were given up and those still in flight at the
    /// window's end at their age then; lower bounds where any went unanswered.
    pub latency_lower_bound_ms: Latency,
    /// Requests still in flight at the window's end (also in `errors_by_kind` as "unfinished").
    pub unfinished: u64,
    /// Timed-out requests (also in `errors_by_kind` as "timeout").
    pub timeouts: u64,
    /// Connections the kernel refused to queue in the window because a
    /// listen backlog was full (`TcpExtListenOverflows`, counted for the
    /// whole machine): their SYN was dropped, and the client tried again
    /// a second later. `None` where it could not be read, and in runs saved
    /// before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen_overflows: Option<u64>,
}
