//! One measured window of one column: what the load generator saw, the
//! server process, where the machine's CPU went, and the server's own
//! detector readings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{DetectorWindow, ErrorKind, JvmWindow, ProxyWindow, SweepStep};

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
    /// In a group whose servers reach Postgres through a proxy: what the
    /// proxy carried over the window (read by bench around it); `None`
    /// elsewhere, in the mixed groups (whose background's lead would be
    /// counted too), and in runs saved before bench read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres_proxy: Option<ProxyWindow>,
    /// On a Java server: what its JVM said about the window (the runtime,
    /// the JIT's and the collectors' time, pinned virtual threads) and how
    /// its warm-up went; `None` on our servers and in runs saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm: Option<JvmWindow>,
}

fn measured() -> bool {
    true
}

impl RoundResult {
    /// Requests the server answered in the window: the measured load plus the
    /// mixed group's background load. (The figures a reader compares are
    /// in [`crate::figures`].)
    pub fn requests_served(&self) -> u64 {
        self.load.total_requests
            + self
                .background_load
                .as_ref()
                .map_or(0, |b| b.total_requests)
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
    /// Every request that ended, per second (seed 000's "Throughput", which
    /// its table keeps); what the reports compare as throughput is the
    /// successful one ([`crate::figures::successful_rps`]).
    pub throughput_rps: f64,
    /// Requests answered with a status below 400, per second.
    pub successful_throughput_rps: f64,
    pub latency_ms: Latency,
    /// One entry per second of the run.
    pub timeline: Vec<Second>,
    /// CPU seconds the load generator itself used.
    pub client_cpu_seconds: f64,
    /// A burst's connects, ms, from `connect()` to connected: before the
    /// release with every connection opened first (outside the latency),
    /// inside each request's latency with the connect in the request.
    /// `None` for every other load, an import, and runs saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<Latency>,
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
    /// The 99.9th percentile; absent in runs saved before it was kept and
    /// in imports whose tool does not give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_9: Option<f64>,
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
///
/// The named parts (server, load generator, Postgres, Redis, proxies,
/// stolen, and softirq where the kernel keeps it out of process times) are
/// each counted once, and "everything else" is the machine's busy time less
/// them (a lower bound where steal fell in idle time). Runs saved before [`CpuUse::ticks`] counted softirq as a part of
/// its own on kernels whose process times already held most of it: their
/// parts can sum to more than the machine had.
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
    /// The kernel's softirq time (/proc/stat): mostly moving packets, the
    /// load's loopback ones included. A part of its own only where the
    /// kernel keeps it out of process times ([`WindowTicks::irq_apart`]);
    /// otherwise most of it is inside the parts above already, and it is
    /// shown as "of which" (0 in runs saved before it was split out).
    #[serde(default)]
    pub softirq_seconds: f64,
    /// Time the hypervisor gave to other machines while this one had work
    /// (/proc/stat's steal): a busy host, not a busy guest; in no
    /// process's time (0 where the kernel reports none, and in runs saved
    /// before it was split out).
    #[serde(default)]
    pub stolen_seconds: f64,
    /// The machine's busy time less the named parts: other programs, the
    /// kernel's own threads, other servers.
    pub other_seconds: f64,
    /// The window in clock ticks, each named part apart, so that a reader
    /// can check that they add up; absent in runs saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticks: Option<WindowTicks>,
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

    /// Whether softirq was a part of its own, subtracted from the busy time:
    /// where the kernel keeps it apart, and in every run saved before the
    /// ticks were (whose accounting subtracted it whatever the kernel).
    pub fn softirq_is_a_part(&self) -> bool {
        self.ticks.is_none_or(|t| t.irq_apart)
    }

    /// `seconds` as a fraction of one core over the window.
    pub fn cores(&self, seconds: f64) -> f64 {
        if self.window_seconds > 0.0 {
            seconds / self.window_seconds
        } else {
            0.0
        }
    }
}

/// One window's CPU in clock ticks over all cores, as measured: the
/// machine's busy time and each named part, so that any reader can check
/// the sum (the parts at most the busy time plus
/// [`WindowTicks::allowance`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowTicks {
    /// Clock ticks per second.
    pub per_second: u64,
    /// The machine's busy time: its cores' wall time less idle and iowait.
    pub busy: u64,
    pub server: u64,
    pub load_generator: u64,
    pub postgres: u64,
    pub redis: u64,
    pub proxies: u64,
    /// /proc/stat's steal: in no process's time, always a part; it can lie
    /// in the guest's idle time too ([`WindowTicks::in_busy`]).
    pub stolen: u64,
    /// /proc/stat's softirq and irq: parts of their own only when
    /// `irq_apart`.
    pub softirq: u64,
    pub irq: u64,
    /// Whether the kernel keeps softirq and irq time out of the processes'
    /// times (interrupt time accounting), so that they are parts of their
    /// own; otherwise they are mostly inside the processes' times.
    pub irq_apart: bool,
    /// Kernel threads (ksoftirqd, kworkers): inside "everything else",
    /// shown apart.
    pub kernel_threads: u64,
}

impl WindowTicks {
    /// The named parts subtracted from the busy time, by name.
    pub fn parts(&self) -> Vec<(&'static str, u64)> {
        let mut parts = vec![
            ("server", self.server),
            ("load generator", self.load_generator),
            ("Postgres", self.postgres),
            ("Redis", self.redis),
            ("proxies", self.proxies),
            ("stolen", self.stolen),
        ];
        if self.irq_apart {
            parts.extend([("softirq", self.softirq), ("irq", self.irq)]);
        }
        parts
    }

    /// The named parts' sum.
    pub fn named(&self) -> u64 {
        self.parts().iter().map(|p| p.1).sum()
    }

    /// The named parts that must lie inside the busy time: all but steal.
    /// Steal can overlap the guest's idle time: a core the guest halted
    /// and an interrupt woke stays idle in the guest's clock until the host
    /// runs it again, and the host counts that wait as steal. So on a busy
    /// host steal and the processes' times together can exceed the busy
    /// time with nothing counted twice, and only the rest is held to it.
    pub fn in_busy(&self) -> u64 {
        self.named() - self.stolen
    }

    /// What [`WindowTicks::in_busy`] may exceed the busy time by: two ticks
    /// per part in it, for the instants at which each was read.
    pub fn allowance(&self) -> u64 {
        2 * (self.parts().len() as u64 - 1)
    }

    /// By how many ticks the parts inside the busy time exceed it plus the
    /// allowance, when they do: a part counted twice, or a kernel whose
    /// accounting is not what bench took it for.
    pub fn excess(&self) -> Option<u64> {
        let over = self.in_busy().saturating_sub(self.busy + self.allowance());
        (over > 0).then_some(over)
    }

    /// "Everything else": the busy time less the named parts, 0 when they
    /// reach it. Where steal overlapped idle time, it is a lower bound.
    pub fn other(&self) -> u64 {
        self.busy.saturating_sub(self.named())
    }
}
