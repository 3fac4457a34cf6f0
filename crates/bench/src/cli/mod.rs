//! Command-line flags of `bench`, and turning them into a profile to run.

pub mod commands;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::plan::{self, GroupId, Load, Profile, PROFILE_NAMES};

/// Runs the Spring MVC vs WebFlux matrix on the blocking and async reference
/// servers, on this machine, and prints the seeds' tables and findings.
#[derive(Debug, Parser)]
#[command(name = "bench", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// quick (every group but the pool sweep and the calibration groups, scaled down, 3 rounds, under 3 min on 2 cores), seed (the seeds' own load shapes, the pool sweep and the calibration groups, 3 rounds, over an hour on 2 cores) or tiny (seconds: the end-to-end tests').
    #[arg(long, global = true, default_value = "quick")]
    pub profile: String,

    /// Groups to run, comma-separated: cpu, database, cache, slow, baseline, json, ramp, mixed, stalls, idle, sweep-posts, sweep-users, remote-db, remote-mixed, pool-sweep, and the calibration groups calibration-health, calibration-posts, calibration-users (`calibration`: all three; without --groups, only the seed profile runs the pool sweep and the calibration groups).
    #[arg(long, global = true, value_delimiter = ',')]
    pub groups: Option<Vec<String>>,

    /// Rounds per column (default: the profile's, 3 for quick and seed). Every
    /// column of a group is measured once per round, the order rotated
    /// between rounds; the report shows medians and their spread.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: Option<u32>,

    /// Length of the warm-up window of timed loads (default: the profile's,
    /// 120ms quick, 2s seed). Counted loads and bursts warm up with the same load.
    #[arg(long, value_parser = loadgen::parse_duration)]
    pub warm_up: Option<Duration>,

    /// No warm-up window before each measured one (seed 000 measured from a
    /// cold start). Every round runs on a fresh server process either way.
    #[arg(long)]
    pub cold: bool,

    /// Override the request count of burst and counted loads.
    #[arg(long, global = true)]
    pub requests: Option<u64>,

    /// Override the duration of timed loads, e.g. 10s, 500ms, 2m (a sweep's: each step's window).
    #[arg(long, global = true, value_parser = loadgen::parse_duration)]
    pub duration: Option<Duration>,

    /// Override the connection count of closed loads (and the mixed group's background).
    #[arg(long, global = true)]
    pub connections: Option<usize>,

    /// Cold starts of the cold-start fairness probe, per probed server
    /// (default: the profile's, 4 quick, 8 seed; 0 skips the probe).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub cold_starts: Option<u32>,

    /// Override the idle group's connection counts, comma-separated (e.g.
    /// 500,2000), opened in turn on each server; ascending.
    #[arg(long, global = true, value_delimiter = ',')]
    pub idle_connections: Option<Vec<usize>>,

    /// Override `/cpu?n=`.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=contract::workload::MAX_CPU_N))]
    pub cpu_n: Option<u64>,

    /// Use a running blocking server instead of starting one (e.g. http://127.0.0.1:8080).
    #[arg(long, global = true)]
    pub blocking_url: Option<String>,

    /// Use a running async server instead of starting one (e.g. http://127.0.0.1:8081).
    #[arg(long, global = true)]
    pub async_url: Option<String>,

    /// The round trip the proxy in front of Postgres and Redis adds in the
    /// remote-database groups (remote-db, remote-mixed, pool-sweep), half
    /// each way, e.g. 2ms (the default) or 500us.
    #[arg(long, value_parser = loadgen::parse_duration)]
    pub db_latency: Option<Duration>,

    /// Load generator threads (default: cores).
    #[arg(long)]
    pub loadgen_threads: Option<usize>,

    /// Blocking server handler threads (default 200).
    #[arg(long)]
    pub handler_threads: Option<u32>,

    /// Async server worker threads (default: cores).
    #[arg(long)]
    pub worker_threads: Option<u32>,

    /// Pool size of both servers' Postgres and Redis pools (default 10).
    #[arg(long)]
    pub pool_size: Option<u32>,

    /// Exit with code 1 when any column saw an error that is not one of the
    /// seed's deliberate 500s (CI runs the quick profile this way).
    #[arg(long)]
    pub strict: bool,

    /// The longest a run whose stderr is not a terminal stays silent before
    /// it says what it is measuring (default 5s); tests shorten it.
    #[arg(long, hide = true, value_parser = loadgen::parse_duration)]
    pub heartbeat: Option<Duration>,

    /// The JDK of the calibration groups' Java servers (default: $JAVA_HOME,
    /// else the javac on PATH).
    #[arg(long, global = true)]
    pub java_home: Option<PathBuf>,

    /// The folder of Debian's jars the Java servers are built against
    /// (Tomcat, Netty, pgjdbc, HikariCP; default /usr/share/java).
    #[arg(long, global = true)]
    pub java_jars: Option<PathBuf>,

    /// Where files go (default: results): for a run, a new folder
    /// <out>/<timestamp>/; for export, import and watch, the folder itself;
    /// for render, the folder itself (default: `rendered/` beside the file).
    #[arg(long, global = true)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Renders a saved run (its results.json) with the current printers:
    /// prints the report and writes report.md, report.html and the charts into --out
    /// (default: a folder `rendered` beside the file). The saved file is
    /// never written. Its findings are the ones it was saved with, unless
    /// --recheck.
    Render {
        /// A run's results.json
        results: PathBuf,
        /// Judge the rounds again with this build's findings and thresholds.
        #[arg(long)]
        recheck: bool,
    },
    /// Compares two saved runs (their results.json): their matrices at a
    /// glance with the changed cells marked, every finding and every
    /// column's throughput, p99 and CPU per request side by side with the
    /// change; with --out DIR also compare.md and compare.html there. Exits 1
    /// when a finding went from HELD to NOT HELD or back, 2 on bad input.
    Compare {
        /// The earlier run's results.json
        old: PathBuf,
        /// The later run's results.json
        new: PathBuf,
    },
    /// Writes the selected groups (--profile, --groups and the load
    /// overrides apply) as ready-to-run tests for an external load tool, with
    /// a README of the commands, into --out.
    Export {
        /// jmeter, locust or k6
        #[arg(long)]
        tool: String,
    },
    /// Reads an external tool's results (for locust: its --csv *_stats.csv
    /// files; a <column>.watch.json beside them adds the server rows) and
    /// writes report.md, results.json and charts into --out.
    Import {
        /// jmeter (CSV JTL files), locust (--csv *_stats.csv files) or k6
        /// (JSON summaries)
        #[arg(long)]
        tool: String,
        /// The tool's result files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Runs a command (an external load tool) while sampling the column's
    /// server /metrics; writes <out>/<column>.watch.json for `bench import`.
    Watch {
        /// The column the command loads, e.g. async-users.
        #[arg(long)]
        column: String,
        /// The command, after --.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
    /// Makes anew the tables of figures in README.md and docs/ from the saved
    /// runs they cite (between `<!-- generated by bench doc-tables: ... -->`
    /// markers); with --check, only says which are out of date (exit 1).
    DocTables {
        /// Check instead of rewriting.
        #[arg(long)]
        check: bool,
    },
    /// Runs a TCP proxy that adds a round trip to every exchange with `--to`,
    /// printing where it listens and where it serves what it measured
    /// (bench starts its proxies this way).
    #[command(hide = true)]
    Proxy {
        /// Where to forward, host:port.
        #[arg(long)]
        to: std::net::SocketAddr,
        /// The round trip to add, in microseconds (half each way).
        #[arg(long)]
        round_trip_us: u64,
    },
    /// Runs one server in this process (bench starts its servers this way).
    #[command(hide = true)]
    Serve {
        /// Which server.
        server: ServerKind,
        /// The server's own flags.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The servers `bench serve` runs: ours in this process, the calibration
/// servers by replacing it with a JVM (`crate::servers::java`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ServerKind {
    Blocking,
    Async,
    Tomcat,
    Netty,
}

impl Cli {
    /// `--out`, or `results`.
    pub fn runs_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| PathBuf::from("results"))
    }

    /// The profile with every override applied, and the groups to run, or one line saying what is wrong.
    pub fn resolve(&self) -> Result<(Profile, Vec<GroupId>), String> {
        let mut profile = plan::profile(&self.profile).ok_or_else(|| {
            format!(
                "unknown profile {:?}; expected one of {}",
                self.profile,
                PROFILE_NAMES.join(", ")
            )
        })?;
        let groups = self.selected_groups(&profile)?;
        if let Some(r) = self.rounds {
            profile.rounds = r;
        }
        if let Some(n) = self.cpu_n {
            profile.cpu_n = n;
        }
        if let Some(n) = self.cold_starts {
            profile.cold_start.cold_starts = n;
        }
        let idle_sizes = self.idle_sizes()?;
        if self.requests == Some(0) || self.connections == Some(0) {
            return Err("--requests and --connections must be at least 1".into());
        }
        for g in GroupId::ALL {
            if let Some(load) = profile.load_mut(*g) {
                self.override_load(load, idle_sizes.as_deref());
            }
        }
        Ok((profile, groups))
    }

    /// `--groups`, each once, in the order given (`calibration` is the
    /// three calibration groups); without it every group, the calibration
    /// groups only where the profile runs them by default.
    fn selected_groups(&self, profile: &Profile) -> Result<Vec<GroupId>, String> {
        let Some(names) = &self.groups else {
            return Ok(GroupId::ALL
                .iter()
                .copied()
                .filter(|g| !g.is_calibration() || profile.calibration_by_default)
                .collect());
        };
        let mut out = Vec::new();
        for name in names {
            let ids = match name.trim() {
                "calibration" => GroupId::CALIBRATION.to_vec(),
                one => vec![GroupId::parse(one).ok_or_else(|| {
                    let all: Vec<&str> = GroupId::ALL.iter().map(|g| g.as_str()).collect();
                    format!("unknown group {name:?}; expected one of {}", all.join(", "))
                })?],
            };
            for id in ids {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        Ok(out)
    }

    /// `--idle-connections`, ascending and each once.
    fn idle_sizes(&self) -> Result<Option<Vec<usize>>, String> {
        let Some(sizes) = &self.idle_connections else {
            return Ok(None);
        };
        let mut sizes = sizes.clone();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.is_empty() || sizes[0] == 0 {
            return Err("--idle-connections must be counts of at least 1".into());
        }
        Ok(Some(sizes))
    }

    /// The load overrides that apply to `load`'s shape.
    fn override_load(&self, load: &mut Load, idle_sizes: Option<&[usize]>) {
        let set = |field: &mut usize, value: Option<usize>| {
            if let Some(v) = value {
                *field = v;
            }
        };
        match load {
            Load::Burst { requests } => set(requests, self.requests.map(|r| r as usize)),
            Load::ClosedCount {
                connections,
                requests,
            } => {
                if let Some(r) = self.requests {
                    *requests = r;
                }
                set(connections, self.connections);
            }
            Load::Closed {
                connections,
                duration,
            } => {
                *duration = self.duration.unwrap_or(*duration);
                set(connections, self.connections);
            }
            Load::Mixed {
                background,
                duration,
                ..
            } => {
                *duration = self.duration.unwrap_or(*duration);
                set(background, self.connections);
            }
            Load::Idle(idle) => {
                idle.probe_for = self.duration.unwrap_or(idle.probe_for);
                if let Some(sizes) = idle_sizes {
                    idle.sizes = sizes.to_vec();
                }
            }
            Load::Sweep(sweep) => {
                sweep.window = self.duration.unwrap_or(sweep.window);
                if self.rounds.is_some() {
                    sweep.rounds = None;
                }
            }
            Load::Stages(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn the_help_names_every_group_and_profile() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let help = |id: &str| {
            cmd.get_arguments()
                .find(|a| a.get_id() == id)
                .and_then(|a| a.get_help())
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        for g in GroupId::ALL {
            assert!(
                help("groups").contains(g.as_str()),
                "--groups' help lacks {g}"
            );
        }
        for p in PROFILE_NAMES {
            assert!(help("profile").contains(p), "--profile's help lacks {p}");
        }
    }

    #[test]
    fn unknown_group_and_profile_are_named() {
        let e = cli(&["--groups", "cpu,nope"]).resolve().unwrap_err();
        assert!(e.contains("unknown group \"nope\""), "{e}");
        let e = cli(&["--profile", "huge"]).resolve().unwrap_err();
        assert!(e.contains("unknown profile \"huge\""), "{e}");
    }

    #[test]
    fn overrides_reach_every_matching_load() {
        let (p, groups) = cli(&[
            "--groups",
            "cpu,cache",
            "--requests",
            "7",
            "--duration",
            "2s",
            "--connections",
            "3",
            "--cpu-n",
            "99",
        ])
        .resolve()
        .unwrap();
        assert_eq!(groups, vec![GroupId::Cpu, GroupId::Cache]);
        assert_eq!(p.cpu_n, 99);
        assert_eq!(
            p.load(GroupId::Cpu),
            Some(&Load::ClosedCount {
                connections: 3,
                requests: 7
            })
        );
        assert_eq!(
            p.load(GroupId::Cache),
            Some(&Load::Closed {
                connections: 3,
                duration: Duration::from_secs(2)
            })
        );
    }

    #[test]
    fn only_the_seed_profile_runs_the_calibration_groups_unless_asked() {
        let calibration = |args: &[&str]| -> Vec<GroupId> {
            let (_, groups) = cli(args).resolve().unwrap();
            groups.into_iter().filter(|g| g.is_calibration()).collect()
        };
        assert_eq!(calibration(&["--profile", "seed"]), GroupId::CALIBRATION);
        assert!(calibration(&["--profile", "quick"]).is_empty());
        assert!(calibration(&["--profile", "tiny"]).is_empty());
        assert_eq!(
            calibration(&[
                "--profile",
                "tiny",
                "--groups",
                "calibration,calibration-posts"
            ]),
            GroupId::CALIBRATION
        );
    }

    #[test]
    fn idle_connection_counts_are_sorted_and_must_be_positive() {
        let (p, _) = cli(&["--idle-connections", "2000,500,500", "--duration", "1s"])
            .resolve()
            .unwrap();
        let Some(Load::Idle(idle)) = p.load(GroupId::Idle) else {
            panic!("no idle load");
        };
        assert_eq!(idle.sizes, [500, 2000]);
        assert_eq!(idle.probe_for, Duration::from_secs(1));
        let e = cli(&["--idle-connections", "0,10"]).resolve().unwrap_err();
        assert!(e.contains("--idle-connections"), "{e}");
    }
}
