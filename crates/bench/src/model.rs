//! The results of a bench run: what `results.json` holds, and what every
//! printer reads. Plain data, serialisable both ways, so a report can be
//! re-rendered from a saved run and the rendering tested from fixed inputs.
//!
//! Times are milliseconds, memory bytes, CPU seconds; names carry their unit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// Version of this shape; bumped when a field changes meaning.
    pub schema_version: u32,
    pub started_at: String,
    pub wall_seconds: f64,
    pub machine: Machine,
    pub settings: RunSettings,
    pub groups: Vec<GroupResult>,
    /// Groups not run, and why (e.g. no Postgres could be found or started).
    pub skipped: Vec<SkippedGroup>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    pub cpu_model: String,
    pub memory_bytes: u64,
    pub os: String,
    /// The 1-minute load average when the run started: other work on the
    /// machine shows up in every figure, so the report says how busy it was.
    pub load_average_at_start: f64,
}

/// Every setting that shapes the figures, so two reports can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub profile: String,
    pub cold_start: bool,
    pub blocking_handler_threads: u32,
    pub async_worker_threads: u32,
    pub async_blocking_threads: u32,
    pub async_rayon_threads: u32,
    pub db_pool_size: u32,
    pub redis_pool_size: u32,
    pub loadgen_threads: u32,
    pub cpu_n: u64,
    /// Where the servers ran: "started by bench" or the URLs given.
    pub targets: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedGroup {
    pub group: String,
    pub reason: String,
}

/// One table of the report: a group of variants under the same load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Stable id used by `--groups` and by findings: cpu, database, cache, slow, baseline, json, ramp, mixed.
    pub id: String,
    pub title: String,
    /// The load, in words (e.g. "burst of 10000 requests at once").
    pub load: String,
    pub columns: Vec<ColumnResult>,
}

/// One variant: a server and a route under the group's load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnResult {
    /// Stable id used by findings, e.g. "async-cpu-rayon".
    pub id: String,
    /// Header in the table, e.g. "async /cpu/rayon".
    pub label: String,
    /// "blocking" or "async".
    pub server: String,
    pub method: String,
    pub path: String,
    /// For the mixed group: the route loaded in the background while `path` is measured.
    pub background_path: Option<String>,
    pub load: LoadStats,
    /// For the mixed group: what the background load itself got.
    pub background_load: Option<LoadStats>,
    pub server_process: ServerStats,
    /// Requests the server counted on /metrics during the column (None when unreadable).
    pub server_counted_requests: Option<u64>,
}

/// What the load generator saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadStats {
    pub total_requests: u64,
    pub errors: u64,
    /// Errors by kind: "status_500", "connect", "timeout", "other", ...
    pub errors_by_kind: BTreeMap<String, u64>,
    pub duration_seconds: f64,
    pub throughput_rps: f64,
    pub latency_ms: Latency,
    /// One entry per second of the run.
    pub timeline: Vec<Second>,
    /// CPU seconds the load generator itself used.
    pub client_cpu_seconds: f64,
}

impl LoadStats {
    /// Errors / total requests, 0 when nothing was sent.
    pub fn error_rate(&self) -> f64 {
        if self.total_requests == 0 {
            0.0
        } else {
            self.errors as f64 / self.total_requests as f64
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    pub stdev: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Second {
    pub second: u64,
    pub requests: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// What the server process did during the column, sampled from /proc.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    /// Threads just before the load started.
    pub threads_before: u64,
    /// Seed 000's "Peak Thread Count".
    pub peak_threads: u64,
    pub peak_rss_bytes: u64,
    pub cpu_seconds: f64,
    /// How many /proc samples the peaks come from (0 when the server was not ours to sample).
    pub samples: u64,
}

pub const SCHEMA_VERSION: u32 = 1;

/// Whether an error kind on `path` is the seed's deliberate failure:
/// a 500 from `/posts/{id}` with id >= 10 (seed 001's error path).
pub fn is_deliberate(path: &str, kind: &str) -> bool {
    let id = path
        .strip_prefix("/posts/")
        .and_then(|rest| rest.split(['/', '?']).next())
        .and_then(|id| id.parse::<i64>().ok());
    kind == "status_500" && id.is_some_and(|id| id >= contract::posts::FIRST_FAILING_POST_ID)
}

/// Columns with errors other than deliberate ones, as (column id, "kind=count, ...").
pub fn unexpected_errors(results: &RunResults) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for g in &results.groups {
        for c in &g.columns {
            let loads = std::iter::once((&c.path, &c.load))
                .chain(c.background_path.as_ref().zip(c.background_load.as_ref()));
            let kinds: Vec<String> = loads
                .flat_map(|(path, load)| {
                    load.errors_by_kind
                        .iter()
                        .filter(move |(kind, _)| !is_deliberate(path, kind))
                        .map(|(kind, n)| format!("{kind}={n}"))
                })
                .collect();
            if !kinds.is_empty() {
                out.push((c.id.clone(), kinds.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_posts_from_ten_fail_on_purpose() {
        assert!(is_deliberate("/posts/10", "status_500"));
        assert!(is_deliberate("/posts/12/blocking", "status_500"));
        assert!(!is_deliberate("/posts/9", "status_500"));
        assert!(!is_deliberate("/posts/10", "timeout"));
        assert!(!is_deliberate("/users/10", "status_500"));
    }
}
