//! The flags each part of bench reads, grouped as they are shared: the
//! profile and the overrides of its loads (the main job, `export`,
//! `import`), the groups (the main job, `export`), and the main job's own;
//! and what they ask for as the plan's plain data ([`crate::plan::Request`]).
//! What a flag means is the plan's: nothing here but names and parsing.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::plan::{JavaChoice, LoadOverrides, Request, Selection, ServerChoices};

/// The profile and the overrides of its loads.
#[derive(Debug, Clone, Args)]
pub struct ProfileFlags {
    /// The profile: quick (every group but the pool sweep, the calibration groups and seed 000's burst as JMeter sent it, scaled down, 3 rounds, under 3 min on 2 cores), seed (the seeds' own load shapes, the pool sweep and the calibration groups, 3 rounds, over an hour on 2 cores) or tiny (seconds: the end-to-end tests').
    #[arg(long, value_name = "quick|seed|tiny", default_value = "quick")]
    pub profile: String,

    /// The request count of bursts and counted loads.
    #[arg(long, value_name = "N")]
    pub requests: Option<u64>,

    /// The length of timed loads, e.g. 10s, 500ms, 1m30s (as loadgen reads it); a sweep's per-step window; the idle group's /health probe; the equal-load windows.
    #[arg(long, value_name = "DURATION", value_parser = loadgen::parse_duration)]
    pub duration: Option<Duration>,

    /// The connections of closed loads, and the mixed group's background.
    #[arg(long, value_name = "N")]
    pub connections: Option<usize>,

    /// The idle group's connection counts, e.g. 500,2000, opened in turn.
    ///
    /// Opened cumulatively on each server, in ascending order.
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub idle_connections: Option<Vec<usize>>,

    /// `/cpu?n=` (not the stalls group's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=contract::workload::MAX_CPU_N))]
    pub cpu_n: Option<u64>,
}

/// The groups to run.
#[derive(Debug, Clone, Default, Args)]
pub struct GroupsFlag {
    /// The groups, comma-separated, run in the matrix's order: cpu, cpu-connect-in-request, database, database-connect-in-request, cache, slow, baseline, json, ramp, mixed, stalls, idle, sweep-posts, sweep-users, remote-db, remote-mixed, pool-sweep, and the calibration groups calibration-health, calibration-posts, calibration-users, calibration-loom (`calibration` names all four); without it only the seed profile runs the pool sweep and the calibration groups, and the quick profile does not run the two of seed 000's burst as JMeter sent it (each is measured on its sibling's servers, first, where both run warmed up).
    #[arg(long, value_name = "GROUP,...", value_delimiter = ',')]
    pub groups: Option<Vec<String>>,
}

/// The servers an external load tool loads: the ones `export` writes its
/// tests for, the one `watch` samples while the tool runs.
#[derive(Debug, Clone, Args)]
pub struct ToolServers {
    /// The blocking server the tool loads, for the blocking and virtual-thread columns (export's default http://127.0.0.1:8080).
    #[arg(long, value_name = "URL")]
    pub blocking_url: Option<String>,

    /// The async server the tool loads, for the async columns (export's default http://127.0.0.1:8081).
    #[arg(long, value_name = "URL")]
    pub async_url: Option<String>,
}

/// The main job's flags: what to run, and how.
#[derive(Debug, Clone, Args)]
pub struct RunFlags {
    #[command(flatten)]
    pub profile: ProfileFlags,

    #[command(flatten)]
    pub groups: GroupsFlag,

    /// Rounds per column, sweeps' included (default: the profile's).
    ///
    /// Every column of a group is measured once per round, the order
    /// rotated between rounds; the report shows medians and their spread.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: Option<u32>,

    /// The warm-up window of timed loads and equal-load windows, e.g. 2s (default: the profile's).
    ///
    /// Counted loads and bursts warm up with the same load.
    #[arg(long, value_name = "DURATION", value_parser = loadgen::parse_duration)]
    pub warm_up: Option<Duration>,

    /// No warm-up before any measured window (seed 000 measured from a cold start); each round is still a fresh server.
    #[arg(long)]
    pub cold: bool,

    /// Cold starts per server of the baseline group's cold-start probe (default: the profile's); 0 skips the probe.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub cold_starts: Option<u32>,

    /// The round trip the proxy in front of Postgres and Redis adds in the remote-database groups and the pool sweep, half each way (default 2ms).
    #[arg(long, value_name = "DURATION", value_parser = loadgen::parse_duration)]
    pub db_latency: Option<Duration>,

    /// Measure a running blocking server, e.g. http://127.0.0.1:8080, instead of starting one.
    #[arg(long, value_name = "URL")]
    pub blocking_url: Option<String>,

    /// Measure a running async server, e.g. http://127.0.0.1:8081, instead of starting one.
    #[arg(long, value_name = "URL")]
    pub async_url: Option<String>,

    /// Load generator threads (default: cores).
    #[arg(long, value_name = "N")]
    pub loadgen_threads: Option<usize>,

    /// The blocking server's handler threads (default 200).
    #[arg(long, value_name = "N")]
    pub handler_threads: Option<u32>,

    /// The async server's worker threads (default: cores).
    #[arg(long, value_name = "N")]
    pub worker_threads: Option<u32>,

    /// The size of both servers' Postgres and Redis pools (default 10).
    #[arg(long, value_name = "N")]
    pub pool_size: Option<u32>,

    /// The JDK of the calibration servers (default: $JAVA_HOME, else the javac on PATH).
    #[arg(long, value_name = "DIR")]
    pub java_home: Option<PathBuf>,

    /// The folder of Debian's jars the calibration servers are built against (default /usr/share/java).
    ///
    /// Tomcat, Netty, pgjdbc and HikariCP.
    #[arg(long, value_name = "DIR")]
    pub java_jars: Option<PathBuf>,

    /// Exit 1 when a column failed or saw an error other than the seed's deliberate 500s (CI runs the quick profile this way).
    #[arg(long)]
    pub strict: bool,

    /// The longest a run whose stderr is not a terminal stays silent before
    /// it says what it is measuring (default 5s); tests shorten it.
    #[arg(long, hide = true, value_parser = loadgen::parse_duration)]
    pub heartbeat: Option<Duration>,

    /// Where the run's folder goes: a new <DIR>/<timestamp>/ (default results).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

impl ProfileFlags {
    /// The profile and its load overrides, with `groups`.
    pub fn selection(&self, groups: &GroupsFlag) -> Selection {
        Selection {
            profile: self.profile.clone(),
            groups: groups.groups.clone(),
            loads: LoadOverrides {
                requests: self.requests,
                duration: self.duration,
                connections: self.connections,
                idle_connections: self.idle_connections.clone(),
                cpu_n: self.cpu_n,
            },
        }
    }
}

impl RunFlags {
    /// What the main job was asked.
    pub fn request(&self) -> Request {
        Request {
            selection: self.profile.selection(&self.groups),
            rounds: self.rounds,
            warm_up: self.warm_up,
            cold: self.cold,
            cold_starts: self.cold_starts,
            db_latency: self.db_latency,
            servers: ServerChoices {
                blocking_url: self.blocking_url.clone(),
                async_url: self.async_url.clone(),
                handler_threads: self.handler_threads,
                worker_threads: self.worker_threads,
                pool_size: self.pool_size,
            },
            loadgen_threads: self.loadgen_threads,
            java: JavaChoice {
                home: self.java_home.clone(),
                jars: self.java_jars.clone(),
            },
            heartbeat: self.heartbeat,
        }
    }
}
