//! The results of a bench run: what `results.json` holds, and what every
//! printer reads. Plain data, serialisable both ways, so a report can be
//! re-rendered from a saved run and the rendering tested from fixed inputs.
//!
//! A column is measured in several rounds (every column of a group once per
//! round, the order rotated between rounds), each on a freshly started server
//! process, so every figure of a round comes from that column alone. The
//! rounds are all kept; printers and findings summarise them with
//! [`crate::stats`].
//!
//! Times are milliseconds, memory bytes, CPU seconds; names carry their unit.

mod cold_start;
mod detector;
mod errors;
mod idle;
mod sweep;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plan::{ColumnId, GroupId, Target};

pub use cold_start::{ColdStartResult, ColdStartServer};
pub use detector::{DetectorWindow, PoolWindow, RouteWindow};
pub use errors::ErrorKind;
pub use idle::{
    IdleCell, IdleResult, IdleRound, IdleServer, IdleStep, ProbeStats, ProcessFigures,
    IDLE_FDS_SLACK,
};
pub use sweep::{LittleCap, SweepInfo, SweepStep};

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
    /// The source the run was measured on, when bench could tell (it asks
    /// git in the checkout it was built from); absent in runs saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Whether the run was stopped (Ctrl-C) before its last column: then it
    /// holds the column rounds measured until then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The commit a run was measured on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The commit id, in full.
    pub commit: String,
    /// Whether the checkout had uncommitted changes to tracked files.
    pub uncommitted_changes: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    pub cpu_model: String,
    pub memory_bytes: u64,
    pub os: String,
    /// The 1-minute load average when the run started. Kept for the record
    /// only: the blocking server's own 200 threads push it past 50 under load,
    /// so whether the machine was quiet is judged from CPU accounting
    /// ([`CpuUse::other_seconds`]) instead.
    pub load_average_at_start: f64,
}

/// Every setting that shapes the figures, so two reports can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub profile: String,
    /// `--cold`: no warm-up window, a fresh process per round (seed 000);
    /// `None` when bench cannot tell (an import: the external tool ran it).
    pub cold_start: Option<bool>,
    /// Rounds per column.
    pub rounds: u32,
    pub blocking_handler_threads: u32,
    pub async_worker_threads: u32,
    pub async_blocking_threads: u32,
    pub async_rayon_threads: u32,
    pub db_pool_size: u32,
    pub redis_pool_size: u32,
    /// Carrier threads of the virtual-thread server (`--carriers`); absent
    /// in runs saved before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_carriers: Option<u32>,
    /// The round trip added in front of Postgres and Redis in the
    /// remote-database groups (`--db-latency`), in ms, when they ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_db_round_trip_ms: Option<f64>,
    pub loadgen_threads: u32,
    pub cpu_n: u64,
    /// Where the servers ran: "started by bench" or the URLs given.
    pub targets: String,
    /// The blocking server's URL when bench did not start it
    /// (`--blocking-url`); the server settings above are then bench's
    /// defaults, not what that server runs with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_url: Option<String>,
    /// The async server's URL when bench did not start it (`--async-url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_url: Option<String>,
    /// The tool that sent the load and measured it when not bench's own
    /// load generator (`bench import`), e.g. "locust 2.47.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_by: Option<String>,
    /// Where the server process rows come from when not /proc: "/metrics"
    /// for servers bench did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_figures_from: Option<String>,
}

/// A group, or one column of it, that was not run, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedGroup {
    pub group: Skipped,
    pub reason: String,
}

/// What was skipped: a whole group ("cache"), or one column of a group
/// ("database / blocking-users-tiny-http"), as results.json spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Skipped {
    Group(GroupId),
    Column(GroupId, ColumnId),
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skipped::Group(g) => write!(f, "{g}"),
            Skipped::Column(g, c) => write!(f, "{g} / {c}"),
        }
    }
}

impl From<Skipped> for String {
    fn from(s: Skipped) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for Skipped {
    type Error = String;

    fn try_from(text: String) -> Result<Skipped, String> {
        let group = |g: &str| GroupId::parse(g).ok_or_else(|| format!("unknown group {g:?}"));
        match text.split_once(" / ") {
            None => Ok(Skipped::Group(group(&text)?)),
            Some((g, c)) => {
                let column = ColumnId::parse(c).ok_or_else(|| format!("unknown column {c:?}"))?;
                Ok(Skipped::Column(group(g)?, column))
            }
        }
    }
}

/// One table of the report: a group of variants under the same load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Its id, as `--groups` and findings name it.
    pub id: GroupId,
    pub title: String,
    /// The load, in words (e.g. "burst of 10000 requests at once").
    pub load: String,
    /// The warm-up before each measured window, in words, or "none (cold start)".
    pub warm_up: String,
    pub columns: Vec<ColumnResult>,
    /// The cold-start fairness probe, for a group that has one (the baseline's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_start: Option<ColdStartResult>,
    /// The idle-connection group's measurement ([`crate::plan::IdleLoad`]);
    /// that group has no load-generator columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleResult>,
    /// For a concurrency sweep: its steps and the blocking server's predicted
    /// cap. Each of its columns' rounds is then one step of one column round
    /// ([`RoundResult::step`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepInfo>,
}

/// One variant: a server and a route under the group's load, in every round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnResult {
    /// Its id, as findings name it, e.g. "async-cpu-rayon".
    pub id: ColumnId,
    /// Header in the table, e.g. "async /cpu/rayon".
    pub label: String,
    /// The server it ran on.
    pub server: Target,
    pub method: String,
    pub path: String,
    /// For the mixed group: the route loaded in the background while `path` is measured.
    pub background_path: Option<String>,
    /// One entry per round that measured something, in round order.
    pub rounds: Vec<RoundResult>,
    /// Why the column failed, when a round could not be measured (for
    /// example "no request succeeded: every connection was refused"). A
    /// failed column keeps the rounds measured before the failure.
    pub failure: Option<String>,
}

/// One measured window of one column, on a server process started for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundResult {
    /// 1-based round number.
    pub round: u32,
    /// 0-based position of this column in the round's order (the order rotates
    /// between rounds, so drift over a run hits every column alike).
    pub position: u32,
    pub load: LoadStats,
    /// For the mixed group: what the background load itself got.
    pub background_load: Option<LoadStats>,
    pub server_process: ServerStats,
    /// Where the machine's CPU went during the measured window.
    pub cpu: CpuUse,
    /// Requests the server counted on /metrics during the window (None when unreadable).
    pub server_counted_requests: Option<u64>,
    /// Whether [`RoundResult::cpu`] was measured: false for a server bench
    /// did not start and for an import, whose CPU split /proc cannot give;
    /// the report then says "not measured".
    #[serde(default = "measured")]
    pub machine_cpu_measured: bool,
    /// Table rows (by name, e.g. "Std. Dev. (ms)") whose figure the tool that
    /// measured this round does not give; the report prints "not measured".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<String>,
    /// What the server's own stall detector said about this window
    /// ([`crate::detector`]); `None` when its `/metrics` has no detector
    /// figures (detector off, another connector, an import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detector: Option<DetectorWindow>,
    /// In a sweep group: which step this round is; a sweep column has one
    /// entry per step per round, `round` being the column round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<SweepStep>,
}

fn measured() -> bool {
    true
}

impl RoundResult {
    /// Requests the server answered in the window: the measured load plus the
    /// mixed group's background load.
    pub fn requests_served(&self) -> u64 {
        self.load.total_requests
            + self
                .background_load
                .as_ref()
                .map_or(0, |b| b.total_requests)
    }

    /// Server CPU per request in microseconds (the figure shared cores
    /// disturb least), `None` when the server was not sampled or nothing was served.
    pub fn server_cpu_us_per_request(&self) -> Option<f64> {
        let n = self.requests_served();
        (self.server_process.samples > 0 && n > 0)
            .then(|| self.server_process.cpu_seconds * 1e6 / n as f64)
    }
}

/// What the load generator saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadStats {
    pub total_requests: u64,
    /// Responses with a status below 400.
    pub ok_requests: u64,
    pub errors: u64,
    /// Errors by kind ("status_500", "connect", "timeout", ... in results.json).
    pub errors_by_kind: BTreeMap<ErrorKind, u64>,
    pub duration_seconds: f64,
    /// Every request that ended, per second (seed 000's "Throughput").
    pub throughput_rps: f64,
    /// Requests answered with a status below 400, per second.
    pub successful_throughput_rps: f64,
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

/// The server process in one round, sampled from /proc: idle just after it
/// started (before any warm-up), peak within the measured window. The
/// default, all zero with `samples: 0`, is a server nobody sampled: the
/// report prints "not measured" for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    pub idle_threads: u64,
    /// Seed 000's "Peak Thread Count", within the measured window.
    pub peak_threads: u64,
    pub idle_rss_bytes: u64,
    pub peak_rss_bytes: u64,
    /// CPU seconds the server used in the measured window.
    pub cpu_seconds: f64,
    /// How many /proc samples the peaks come from (0 when the server was not ours to sample).
    pub samples: u64,
}

/// Where the machine's CPU time went during one measured window, in CPU
/// seconds, from /proc/stat and each process's /proc/<pid>/stat. The
/// default, all zero, is a window nobody split (an import).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUse {
    /// Wall seconds of the window.
    pub window_seconds: f64,
    /// The server process measured.
    pub server_seconds: f64,
    /// bench itself, which runs the load generator.
    pub load_generator_seconds: f64,
    /// Every process named postgres.
    pub postgres_seconds: f64,
    /// Every process named redis-server.
    pub redis_seconds: f64,
    /// The proxies bench put in front of Postgres and Redis for the group
    /// (0 for a group without, and in runs saved before they existed).
    #[serde(default)]
    pub proxy_seconds: f64,
    /// The kernel's softirq time (/proc/stat), which no process's own time
    /// counts: mostly moving packets, the load's loopback ones included (0 in
    /// runs saved before it was split out, whose "everything else" holds it).
    #[serde(default)]
    pub softirq_seconds: f64,
    /// Time the hypervisor gave to other machines while this one had work
    /// (/proc/stat's steal): a busy host, not a busy guest (0 where the
    /// kernel reports none, and in runs saved before it was split out).
    #[serde(default)]
    pub stolen_seconds: f64,
    /// The machine's busy time (/proc/stat: all but idle and iowait) minus
    /// the parts above: other programs, the kernel's own threads, other
    /// servers.
    pub other_seconds: f64,
}

impl CpuUse {
    /// "Everything else" as a fraction of one core over the window.
    pub fn other_cores(&self) -> f64 {
        self.cores(self.other_seconds)
    }

    /// Time stolen by the hypervisor as a fraction of one core over the window.
    pub fn stolen_cores(&self) -> f64 {
        self.cores(self.stolen_seconds)
    }

    fn cores(&self, seconds: f64) -> f64 {
        if self.window_seconds > 0.0 {
            seconds / self.window_seconds
        } else {
            0.0
        }
    }
}

/// The shape of results.json this build writes. 3 added `source`, the
/// settings' server URLs and an unknown `cold_start`; a file of shape 2
/// reads as one of shape 3 without them.
pub const SCHEMA_VERSION: u32 = 3;

/// The shapes of results.json this build reads.
pub const READABLE_SCHEMA_VERSIONS: std::ops::RangeInclusive<u32> = 2..=3;

/// Columns with errors other than deliberate ones, or that failed, as
/// (column id, "kind=count, ..." or the failure's cause), summed over rounds.
/// A sweep step's requests unfinished at its window's end are by design (a
/// closed loop always has some in flight when it is cut), not unexpected.
pub fn unexpected_errors(results: &RunResults) -> Vec<(ColumnId, String)> {
    let mut out = Vec::new();
    for g in &results.groups {
        for c in &g.columns {
            let mut kinds: BTreeMap<ErrorKind, u64> = BTreeMap::new();
            for r in &c.rounds {
                let loads = std::iter::once((&c.path, &r.load))
                    .chain(c.background_path.as_ref().zip(r.background_load.as_ref()));
                for (path, load) in loads {
                    for (kind, n) in &load.errors_by_kind {
                        let by_design = r.step.is_some() && *kind == ErrorKind::Unfinished;
                        if !kind.is_deliberate_on(path) && !by_design {
                            *kinds.entry(*kind).or_default() += n;
                        }
                    }
                }
            }
            let mut parts: Vec<String> = kinds.iter().map(|(k, n)| format!("{k}={n}")).collect();
            if let Some(f) = &c.failure {
                parts.push(format!("failed: {f}"));
            }
            if !parts.is_empty() {
                out.push((c.id, parts.join(", ")));
            }
        }
    }
    out
}
