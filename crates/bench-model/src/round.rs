//! One measured window of one column: what the load generator saw, the
//! server process, where the machine's CPU went, and the server's own
//! detector readings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{DetectorWindow, ErrorKind, SweepStep};

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
    /// (read by bench around the window); `None` when its `/metrics` has no detector
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
