//! The cold-start fairness probe's results: per probed column, every
//! connection's first answer on each cold start.

use serde::{Deserialize, Serialize};

use crate::ids::ColumnId;

/// The cold-start fairness probe of a group (bench's `ColdStartProbe`):
/// on each fresh server, many connections at once, each one's first answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdStartResult {
    /// Connections opened at once on each cold start.
    pub connections: usize,
    /// How long each connection kept sending requests.
    pub run_for_ms: f64,
    /// One entry per probed column, in the group's probe order.
    pub servers: Vec<ColdStartServer>,
}

/// One probed column's server over its cold starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdStartServer {
    /// The column whose server (and server flags) was probed, e.g. "blocking-health-tiny-http".
    pub id: ColumnId,
    /// Its label, e.g. "blocking /health (tiny_http)".
    pub label: String,
    /// One entry per cold start: every connection's first answer, in ms
    /// after the start signal; `None`: no answer within the run.
    pub starts: Vec<Vec<Option<f64>>>,
    /// Why it could not be probed (e.g. a server bench did not start).
    pub failure: Option<String>,
}

impl ColdStartServer {
    /// Per cold start, how many connections had no answer within `within_ms`.
    pub fn late_per_start(&self, within_ms: f64) -> Vec<usize> {
        self.starts
            .iter()
            .map(|start| {
                start
                    .iter()
                    .filter(|first| first.is_none_or(|ms| ms > within_ms))
                    .count()
            })
            .collect()
    }
}
