//! A whole run as results.json holds it: when and where it ran, the
//! settings that shape its figures, its groups, and what it skipped.

use serde::{Deserialize, Serialize};

use crate::ids::{ColumnId, GroupId};
use crate::GroupResult;

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
    /// How the windows' CPU was split, from the kernel's accounting;
    /// absent in runs saved before, which subtracted softirq from the busy
    /// time as a part of its own whatever the kernel (see
    /// [`RunResults::cpu_split_words`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_accounting: Option<CpuAccounting>,
}

impl RunResults {
    /// How this run split its windows' CPU, in a few words: the kernel's
    /// accounting it used, or for a run saved before that was recorded,
    /// what its build did.
    pub fn cpu_split_words(&self) -> String {
        if let Some(a) = &self.cpu_accounting {
            return a.words();
        }
        let softirq_apart = self
            .groups
            .iter()
            .flat_map(|g| &g.columns)
            .flat_map(|c| &c.rounds)
            .any(|r| r.cpu.softirq_seconds > 0.0);
        if softirq_apart {
            "softirq subtracted as a part of its own though mostly inside the processes' times: counted twice".to_owned()
        } else {
            "the busy time less the named processes (softirq and steal in everything else)"
                .to_owned()
        }
    }
}

/// Where the kernel counts time spent in softirqs and interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IrqTime {
    /// Inside the interrupted processes' own times (tick-based accounting):
    /// softirq is shown as "of which", not subtracted.
    InProcessTimes,
    /// Kept out of every process's time: softirq and irq are parts.
    Apart,
}

/// How a run split its windows' CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuAccounting {
    pub irq_time: IrqTime,
    /// False when the kernel's accounting could not be told and
    /// [`IrqTime::InProcessTimes`] was assumed (which may call a quiet
    /// window busy, never a busy one quiet).
    pub known: bool,
    /// How it was told, e.g. "CONFIG_IRQ_TIME_ACCOUNTING is not set
    /// (/proc/config.gz)".
    pub basis: String,
}

impl CpuAccounting {
    /// "softirq inside the processes' times (CONFIG_IRQ_TIME_ACCOUNTING is
    /// not set (/proc/config.gz))".
    pub fn words(&self) -> String {
        let what = match (self.irq_time, self.known) {
            (IrqTime::InProcessTimes, true) => "softirq inside the processes' times",
            (IrqTime::InProcessTimes, false) => "softirq assumed inside the processes' times",
            (IrqTime::Apart, _) => "softirq and irq apart from the processes' times",
        };
        format!("{what} ({})", self.basis)
    }
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
    /// ([`crate::CpuUse::other_seconds`]) instead.
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
    /// The blocking server's Redis client (`--redis-client`: "shared" or
    /// "pool"); absent in runs saved before it had a choice, whose
    /// blocking columns used the pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_redis_client: Option<String>,
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
    /// The JVM the calibration servers ran on, when the run had any;
    /// absent in runs saved before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm: Option<JvmSettings>,
}

/// The JVM of the calibration servers (Tomcat, Netty): fixed flags, so that
/// two runs' Java columns are comparable. The JDK that built them runs the
/// columns that name no Java release; a column on Java 21 or 25 ran on that
/// pinned runtime, which each of its windows names
/// ([`crate::JvmWindow::version`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JvmSettings {
    /// The JDK's `JAVA_VERSION`, e.g. "17.0.15".
    pub version: String,
    /// The `java` it ran.
    pub java: String,
    /// Every flag given to the JVM before its main class (heap, GC).
    pub flags: Vec<String>,
    /// The JVM's own warm-up on each fresh process, before a column's
    /// warm-up and window: its route, at these connections, for this long
    /// (with [`JvmSettings::warm_up_rule`]: each warm-up window's length).
    pub warm_up_seconds: f64,
    pub warm_up_connections: usize,
    /// When the warm-up repeats its windows until the JVM settles: the
    /// rule; absent in runs saved before, whose JVMs warmed up once for
    /// `warm_up_seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up_rule: Option<crate::JvmWarmUpRule>,
}

impl JvmSettings {
    /// "Java 17.0.15 (/usr/bin/java) with -Xms512m ...; each fresh JVM
    /// first warms up on its own route at 64 connections ...".
    pub fn words(&self) -> String {
        let warm_up = match &self.warm_up_rule {
            Some(rule) if rule.until_no_climb => format!(
                "warms up in windows of {} s of its column's route at {} connections until the JIT's compiler threads use under {:.0}% of each of {} windows and their median throughput is within {:.0}% of the {} before (at most {} s: the JIT's warm-up)",
                self.warm_up_seconds,
                self.warm_up_connections,
                rule.max_jit_share * 100.0,
                rule.settled_windows,
                rule.tolerance * 100.0,
                rule.settled_windows,
                rule.limit_seconds
            ),
            Some(rule) => format!(
                "warms up in windows of {} s of its column's route at {} connections until {} windows agree within {:.0}% and the JIT compiles under {:.0}% of each (at most {} s: the JIT's warm-up)",
                self.warm_up_seconds,
                self.warm_up_connections,
                rule.settled_windows,
                rule.tolerance * 100.0,
                rule.max_jit_share * 100.0,
                rule.limit_seconds
            ),
            None => format!(
                "gets {} s of its column's route at {} connections (the JIT's warm-up)",
                self.warm_up_seconds, self.warm_up_connections
            ),
        };
        format!(
            "Java {} ({}) with {}; each fresh JVM first {warm_up}, then the column's own warm-up",
            self.version,
            self.java,
            self.flags.join(" ")
        )
    }
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
