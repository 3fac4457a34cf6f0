//! The profiles: per group, the load it gets, plus the rounds, warm-up and
//! cold-start probe. `quick` (CI's smoke test), `seed` (the seeds' own load
//! shapes) and `tiny` (the end-to-end tests'). Each profile is a table; a
//! group a profile has no load for is not run in it (the pool sweep's 23
//! columns and seed 000's burst as JMeter sent it only in `seed`), and the
//! run says so.

use std::time::Duration;

use super::jvm_warm_up::{JvmWarmUp, JVM_WARM_UP_EXPECTED_SEED, JVM_WARM_UP_LIMIT_SEED};
use super::loads::{IdleLoad, Load, Sweep};
use bench_model::GroupId;
use loadgen::BurstConnect::{First, InRequest};

/// The cold-start fairness probe (the check tiny_http 0.12 fails, and
/// why the blocking server has its own connector): on a freshly started server, `connections` keep-alive connections
/// are opened back to back, then each sends `GET /health` in a loop until
/// every connection has had an answer (or for `run_for` at the most); the
/// time of each connection's first answer is kept. Repeated
/// on `cold_starts` fresh processes per probed column, the columns
/// interleaved. How late counts as starved is a threshold of the finding
/// ([`bench_model::Thresholds::cold_start_answer_within_ms`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColdStartProbe {
    pub connections: usize,
    pub cold_starts: u32,
    pub run_for: Duration,
}

/// A named set of loads.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub cpu_n: u64,
    /// `/cpu?n=` in the stall-detector group: long enough that one request's
    /// loop outlasts the slow-poll threshold (5 ms) several times over on a
    /// fast machine (20,000,000 takes about 40 ms on one core here).
    pub stall_cpu_n: u64,
    /// Per-request timeout of the load generator.
    pub timeout: Duration,
    /// Rounds per column: every column of a group once per round.
    pub rounds: u32,
    /// Length of the warm-up window of timed loads ([`Load::warm_up`]).
    pub warm_up: Duration,
    /// The cold-start probe of the groups that have one (the baseline's).
    pub cold_start: ColdStartProbe,
    /// Whether the calibration groups run when `--groups` does not name
    /// them (seed: yes; quick and tiny keep to our own servers unless asked).
    pub calibration_by_default: bool,
    /// The JVM's own warm-up on each fresh Java server before the column's
    /// warm-up: its column's route, at [`JVM_WARM_UP_CONNECTIONS`], in
    /// windows until it settles or its limit.
    pub jvm_warm_up: JvmWarmUp,
    loads: Vec<(GroupId, Load)>,
    /// Groups whose timed loads warm up for less than `warm_up`.
    shorter_warm_ups: Vec<(GroupId, Duration)>,
}

/// The connections of the JVM's own warm-up ([`Profile::jvm_warm_up`]).
pub const JVM_WARM_UP_CONNECTIONS: usize = 64;

/// The values a column's path may name: `{cpu_n}` and `{stall_cpu_n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathValues {
    pub cpu_n: u64,
    pub stall_cpu_n: u64,
}

impl PathValues {
    /// `path` with its placeholders filled in.
    pub fn fill(&self, path: &str) -> String {
        path.replace("{cpu_n}", &self.cpu_n.to_string())
            .replace("{stall_cpu_n}", &self.stall_cpu_n.to_string())
    }
}

impl Profile {
    /// What its columns' paths name.
    pub fn path_values(&self) -> PathValues {
        PathValues {
            cpu_n: self.cpu_n,
            stall_cpu_n: self.stall_cpu_n,
        }
    }

    pub fn load(&self, group: GroupId) -> Option<&Load> {
        self.loads.iter().find(|(g, _)| *g == group).map(|(_, l)| l)
    }

    /// The warm-up of `group`'s timed loads: the profile's, or a shorter
    /// one of its own (the seed profile's pool sweep: its largest pool is
    /// open after a few hundred requests, and it has 23 columns).
    pub fn warm_up_of(&self, group: GroupId) -> Duration {
        self.shorter_warm_ups
            .iter()
            .find(|(g, _)| *g == group)
            .map_or(self.warm_up, |(_, d)| *d)
    }

    pub fn load_mut(&mut self, group: GroupId) -> Option<&mut Load> {
        self.loads
            .iter_mut()
            .find(|(g, _)| *g == group)
            .map(|(_, l)| l)
    }
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

/// Seed 000's burst of `requests` at once, its connections opened as `connect` says.
fn burst(requests: usize, connect: loadgen::BurstConnect) -> Load {
    Load::Burst { requests, connect }
}

/// `from`, doubling while at most `to`: 50, 100, ..., 3200.
pub fn doubling(from: usize, to: usize) -> Vec<usize> {
    std::iter::successors(Some(from.max(1)), |n| Some(n * 2))
        .take_while(|n| *n <= to)
        .collect()
}

/// The remote-database groups' loads: a closed loop of `connections`,
/// and the mixed one's background and /health probe rate, over `duration`.
/// More connections than the pool (10) outside the tiny profile: the
/// yielding driver's bottleneck is the pool, so it must be kept full.
fn remote_db(
    connections: usize,
    (background, probe_rps): (usize, f64),
    duration: Duration,
) -> [(GroupId, Load); 2] {
    [
        (
            GroupId::RemoteDb,
            Load::Closed {
                connections,
                duration,
            },
        ),
        (
            GroupId::RemoteMixed,
            Load::Mixed {
                background,
                probe_rps,
                duration,
            },
        ),
    ]
}

/// The calibration groups' loads in the profile `name`: /health and
/// /users/1 in a closed loop, the /posts/1 sweep, and the real Loom's
/// /users/1 a round trip away. The seed profile's: seed 001's 200
/// connections in 3-s windows, three steps of the sweep (below the
/// 200-thread cap, past it, and at 3200, where Tomcat's connection limits
/// could matter), and 2-s windows at 64 connections for the Loom.
fn calibration_loads(name: &str) -> [(GroupId, Load); 4] {
    let (connections, duration, sweep) = match name {
        // 3-s windows: /health and a local /users/1 answer tens of
        // thousands of requests a second; the windows were 5 s while the
        // JVMs got a fixed 2-s warm-up, and they now warm up until settled.
        "seed" => (
            200,
            secs(3),
            Sweep {
                steps: vec![100, 400, 3200],
                window: ms(2100),
                warm_up: secs(1),
                settle: secs(3),
                rounds: None,
            },
        ),
        "quick" => (
            32,
            ms(300),
            Sweep {
                steps: vec![50, 400],
                window: ms(300),
                warm_up: ms(120),
                settle: ms(700),
                rounds: Some(1),
            },
        ),
        _ => (
            4,
            ms(200),
            Sweep {
                steps: vec![4, 8],
                window: ms(600),
                warm_up: ms(100),
                settle: secs(1),
                rounds: None,
            },
        ),
    };
    let closed = Load::Closed {
        connections,
        duration,
    };
    // The real Loom's: 64 connections (more than the pool of 10, so that
    // on Java 25 the pool stays the queue) on a route whose throughput
    // the pool or the carriers fix, not the cores: short windows tell it,
    // as in the pool sweep.
    let (connections, duration) = match name {
        "seed" => (64, secs(2)),
        "quick" => (32, ms(300)),
        _ => (4, ms(200)),
    };
    let loom = Load::Closed {
        connections,
        duration,
    };
    [
        (GroupId::CalibrationHealth, closed.clone()),
        (GroupId::CalibrationPosts, Load::Sweep(sweep)),
        (GroupId::CalibrationUsers, closed),
        (GroupId::CalibrationLoom, loom),
    ]
}

/// `quick`: every group but the pool sweep, the calibration groups and the
/// groups of seed 000's burst as JMeter sent it (quick loads the CPU and
/// database groups in closed loops, not seed 000's burst at all), scaled
/// down, 3 rounds: CI's smoke test and a first look (under 3 minutes on 2
/// cores after the build).
#[allow(
    clippy::too_many_lines,
    reason = "a table: every group's load, one entry each"
)]
pub fn quick() -> Profile {
    use GroupId as G;
    let closed = |connections, duration| Load::Closed {
        connections,
        duration,
    };
    let counted = |connections, requests| Load::ClosedCount {
        connections,
        requests,
    };
    Profile {
        name: "quick",
        cpu_n: 1_000_000,
        stall_cpu_n: 20_000_000,
        timeout: secs(30),
        rounds: 3,
        // 70 ms: enough for the pools to connect at 32 connections; at
        // 120 ms the profile took 182-186 s on 2026-12-06 (some 230
        // warmed-up windows).
        warm_up: ms(70),
        // Each start costs ~1.7 s. How often tiny_http starves depends on
        // the machine: 1 of 4 starts in a quick run here, 10 of 12 with a
        // build running beside it, 4 of 4 on 2026-12-06; with no starved
        // start the finding says INCONCLUSIVE (8 clean starts are needed to
        // refute it). 3 starts, to keep the profile under 3 minutes.
        cold_start: ColdStartProbe {
            connections: 64,
            cold_starts: 3,
            run_for: ms(1500),
        },
        calibration_by_default: false,
        jvm_warm_up: JvmWarmUp {
            window: ms(300),
            limit: secs(3),
            expected: secs(3),
        },
        loads: vec![
            (G::Cpu, counted(16, 200)),
            // Windows of 0.3 s (sweeps: one 300-ms period of /posts/1, see
            // `Sweep::window`), every window and warm-up at 0.6x
            // what it was before virtual threads' 27 columns and the two
            // remote-database groups, so that the whole profile fits in 3
            // minutes on 2 cores.
            (G::Database, closed(32, ms(300))),
            (G::Cache, closed(32, ms(300))),
            // 8 connections: behind a blocked event loop (2 workers, one
            // 300-ms sleep each at a time) the window's last requests take
            // 8 x 300 ms / 2 to be answered; 16 took twice that per round.
            (G::Slow, closed(8, ms(360))),
            (G::Baseline, closed(32, ms(300))),
            (G::Json, closed(16, ms(300))),
            (
                G::Ramp,
                Load::Stages(vec![
                    (ms(150), 20),
                    (ms(150), 40),
                    (ms(150), 60),
                    (ms(150), 0),
                ]),
            ),
            (
                G::Mixed,
                Load::Mixed {
                    background: 16,
                    probe_rps: 100.0,
                    duration: ms(300),
                },
            ),
            (G::Stalls, closed(8, ms(240))),
            (
                G::Idle,
                // 9 server rounds: 17.7 s with 500 and 2,000 and 250-ms
                // probes on the busy 2-core machine, so smaller; 1,000 at
                // most since the profile took 185 s with 1,500 (2026-12-06).
                Load::Idle(IdleLoad {
                    sizes: vec![500, 1_000],
                    probe_connections: 4,
                    probe_for: ms(90),
                    open_within: secs(20),
                }),
            ),
            // Both sweeps in about 20 s: three steps, one round.
            (
                G::SweepPosts,
                Load::Sweep(Sweep {
                    steps: vec![50, 400, 3200],
                    window: ms(300),
                    warm_up: ms(120),
                    settle: ms(700),
                    rounds: Some(1),
                }),
            ),
            (
                G::SweepUsers,
                Load::Sweep(Sweep {
                    steps: vec![8, 64, 512],
                    window: ms(240),
                    warm_up: ms(90),
                    settle: ms(700),
                    rounds: Some(1),
                }),
            ),
        ]
        .into_iter()
        .chain(remote_db(32, (16, 100.0), ms(300)))
        .chain(calibration_loads("quick"))
        .collect(),
        shorter_warm_ups: Vec::new(),
    }
}

/// `seed`: the seeds' own load shapes, 3 rounds each, then the pool sweep
/// and the calibration groups. Two changes keep it near an hour on 2 cores,
/// both printed with the report:
/// timed windows are 8 s instead of one 30 s run, and the CPU group's
/// 10,000-request burst computes n = 1,000,000 square roots per request
/// (seed 000's 10,000,000 took 164 s per burst here, 4.5 s on its 12 cores).
#[allow(
    clippy::too_many_lines,
    reason = "a table: every group's load, one entry each"
)]
pub fn seed() -> Profile {
    use GroupId as G;
    let closed = |connections, duration| Load::Closed {
        connections,
        duration,
    };
    Profile {
        name: "seed",
        cpu_n: 1_000_000,
        stall_cpu_n: 20_000_000,
        timeout: secs(300),
        rounds: 3,
        // 1 s on the connections the window then uses: our servers have no
        // JIT to wait for and their pools fill in the first milliseconds,
        // and the Java servers warm up first until their JIT settles
        // (`jvm_warm_up`). It was 2 s while a fixed 2 s was all the JVMs
        // got; the second second went to the JVMs' own warm-up, which the
        // Java columns on Java 21 and 25 need within the run's budget.
        warm_up: secs(1),
        // 8 cold starts of 64 connections, as in docs/results/tiny-http-2026-12-01/.
        cold_start: ColdStartProbe {
            connections: 64,
            cold_starts: 8,
            run_for: ms(1500),
        },
        // Tomcat and Netty beside our twins when a JDK and Debian's jars
        // are found (else skipped, with the line that installs them).
        calibration_by_default: true,
        jvm_warm_up: JvmWarmUp {
            window: secs(1),
            limit: secs(JVM_WARM_UP_LIMIT_SEED),
            expected: secs(JVM_WARM_UP_EXPECTED_SEED),
        },
        loads: vec![
            // Seed 000: 10,000 requests at once, per column, every
            // connection opened first ...
            (G::Cpu, burst(10_000, First)),
            (G::Database, burst(10_000, First)),
            // ... and as JMeter sent them, each request opening its
            // connection, on a cold server: four columns each, about 2.5
            // minutes of the run on 2 cores.
            (G::CpuConnectInRequest, burst(10_000, InRequest)),
            (G::DatabaseConnectInRequest, burst(10_000, InRequest)),
            // Seed 001: JMeter with 200 threads.
            (G::Cache, closed(200, secs(8))),
            (G::Slow, closed(200, secs(8))),
            (G::Baseline, closed(200, secs(8))),
            // Seed 003: k6 with 16 VUs.
            (G::Json, closed(16, secs(8))),
            // Seed 002: k6 stages, each stage a quarter as long.
            (
                G::Ramp,
                Load::Stages(vec![
                    (ms(3750), 50),
                    (ms(7500), 100),
                    (ms(3750), 150),
                    (ms(7500), 0),
                ]),
            ),
            (
                G::Mixed,
                Load::Mixed {
                    background: 64,
                    probe_rps: 50.0,
                    duration: secs(8),
                },
            ),
            // Enough requests per window that a route blocking on every one
            // shows in its slow-poll share whatever the OS does meanwhile.
            (G::Stalls, closed(16, secs(3))),
            // 10,000 idle connections is 10,000 tiny_http threads.
            (
                G::Idle,
                Load::Idle(IdleLoad {
                    sizes: vec![1_000, 5_000, 10_000],
                    probe_connections: 8,
                    probe_for: ms(1_500),
                    open_within: secs(60),
                }),
            ),
            // The sweeps: 2 s windows (2.1 s on the 300 ms route, see
            // `Sweep::window`) after 1 s on the same connections, 3 rounds;
            // both groups in about 10 minutes.
            (
                G::SweepPosts,
                Load::Sweep(Sweep {
                    steps: doubling(50, 3200),
                    window: ms(2100),
                    warm_up: secs(1),
                    settle: secs(3),
                    rounds: None,
                }),
            ),
            (
                G::SweepUsers,
                Load::Sweep(Sweep {
                    steps: doubling(8, 512),
                    window: secs(2),
                    warm_up: secs(1),
                    settle: secs(3),
                    rounds: None,
                }),
            ),
        ]
        .into_iter()
        // Seed 001's 200 threads, against a pool of 10 a round trip away.
        .chain(remote_db(200, (64, 50.0), secs(8)))
        // 64 connections, more than the largest pool (40): each pooled
        // driver keeps its pool full. 2-s windows: 23 columns.
        .chain([(G::PoolSweep, closed(64, secs(2)))])
        .chain(calibration_loads("seed"))
        .collect(),
        shorter_warm_ups: vec![(G::PoolSweep, secs(1))],
    }
}

/// A one-scenario-per-group profile for the end-to-end test: seconds, not minutes.
#[allow(
    clippy::too_many_lines,
    reason = "a table: every group's load, one entry each"
)]
pub fn tiny() -> Profile {
    use GroupId as G;
    let c = |connections, m| Load::Closed {
        connections,
        duration: ms(m),
    };
    Profile {
        name: "tiny",
        cpu_n: 100_000,
        stall_cpu_n: 2_000_000,
        timeout: secs(30),
        rounds: 2,
        warm_up: ms(100),
        // One start each: the pipeline runs; the verdict needs more
        // (`--cold-starts`).
        cold_start: ColdStartProbe {
            connections: 64,
            cold_starts: 1,
            run_for: ms(1500),
        },
        calibration_by_default: false,
        jvm_warm_up: JvmWarmUp {
            window: ms(100),
            limit: ms(600),
            expected: ms(600),
        },
        loads: vec![
            (
                G::Cpu,
                Load::ClosedCount {
                    connections: 4,
                    requests: 20,
                },
            ),
            // Seed 000's shape, small, both ways.
            (G::Database, burst(100, First)),
            (G::CpuConnectInRequest, burst(20, InRequest)),
            (G::DatabaseConnectInRequest, burst(100, InRequest)),
            (G::Cache, c(4, 200)),
            (G::Slow, c(4, 400)),
            (G::Baseline, c(4, 200)),
            (G::Json, c(4, 200)),
            (G::Ramp, Load::Stages(vec![(ms(200), 4), (ms(200), 0)])),
            (
                G::Mixed,
                Load::Mixed {
                    background: 4,
                    probe_rps: 40.0,
                    duration: ms(400),
                },
            ),
            (G::Stalls, c(2, 300)),
            (
                G::Idle,
                Load::Idle(IdleLoad {
                    sizes: vec![100],
                    probe_connections: 2,
                    probe_for: ms(200),
                    open_within: secs(20),
                }),
            ),
            (
                G::SweepPosts,
                Load::Sweep(Sweep {
                    steps: vec![4, 8],
                    window: ms(600),
                    warm_up: ms(100),
                    settle: secs(1),
                    rounds: None,
                }),
            ),
            (
                G::SweepUsers,
                Load::Sweep(Sweep {
                    steps: vec![2, 4],
                    window: ms(200),
                    warm_up: ms(100),
                    settle: secs(1),
                    rounds: None,
                }),
            ),
        ]
        .into_iter()
        .chain(remote_db(4, (4, 40.0), ms(200)))
        .chain(calibration_loads("tiny"))
        .collect(),
        shorter_warm_ups: Vec::new(),
    }
}

pub fn profile(name: &str) -> Option<Profile> {
    match name {
        "quick" => Some(quick()),
        "seed" => Some(seed()),
        "tiny" => Some(tiny()),
        _ => None,
    }
}

pub const PROFILE_NAMES: &[&str] = &["quick", "seed", "tiny"];
