//! A group's windows at an equal load: on a shared machine the load
//! generator takes part of the cores, and what it takes per request
//! depends on the server it drives, so a closed loop's throughput is
//! partly the client's. Where the cores decide (nothing waits long), each
//! column that does not block by design is loaded again, after the
//! group's own rounds, at one arrival rate for all of them: a share of the
//! lowest of their throughputs. At that rate the server's CPU per request
//! is its own, and cores / CPU per request is what it would serve on a
//! dedicated server.
//!
//! The windows are ordinary rounds ([`ColumnResult`], [`crate::RoundResult`]):
//! an open model at the rate, latency from each request's intended start,
//! a fresh server per column round, warmed up first, the order rotated
//! between rounds.

use serde::{Deserialize, Serialize};

use crate::{ColumnId, ColumnResult};

/// The equal-load windows of a group and the rate they were given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EqualLoad {
    /// The share of the lowest throughput the rate is (0.5: half of it).
    pub share: f64,
    /// The arrival rate every column was given, requests per second.
    pub rate_rps: f64,
    /// The column whose throughput was the lowest of the ranked columns
    /// (successful requests per second, the median over its rounds) ...
    pub lowest: ColumnId,
    /// ... and that throughput.
    pub lowest_rps: f64,
    /// Each window's length, seconds.
    pub window_seconds: f64,
    /// The warm-up at the same rate before each window on the same
    /// server, seconds (0 with `--cold`).
    pub warm_up_seconds: f64,
    /// A column per ranked column of the group, in the group's order,
    /// each with its rounds at the rate.
    pub columns: Vec<ColumnResult>,
}

impl EqualLoad {
    /// The equal-load windows of column `id`, when it has a measured round.
    pub fn column(&self, id: ColumnId) -> Option<&ColumnResult> {
        self.columns
            .iter()
            .find(|c| c.id == id && !c.rounds.is_empty())
    }

    /// Whether some column has a measured round.
    pub fn measured(&self) -> bool {
        self.columns.iter().any(|c| !c.rounds.is_empty())
    }

    /// The rate in words: "29830 req/s (0.5 x blocking-health-tiny-http's
    /// 59660 req/s, the lowest)".
    pub fn rate_words(&self) -> String {
        format!(
            "{:.0} req/s ({} x {}'s {:.0} req/s, the lowest)",
            self.rate_rps, self.share, self.lowest, self.lowest_rps
        )
    }
}
