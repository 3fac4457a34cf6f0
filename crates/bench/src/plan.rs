//! The matrix: groups of columns (server + route) and, per profile, the load
//! each group gets. Pure data: nothing here starts a server or sends a request.

use std::time::Duration;

/// Which server a column targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Blocking,
    Async,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Blocking => "blocking",
            Target::Async => "async",
        }
    }
}

/// One column: a route on one server. In the mixed group, `background` is
/// loaded while `path` (always /health) is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub id: &'static str,
    pub target: Target,
    pub method: &'static str,
    /// May hold `{cpu_n}`, replaced by the profile's n.
    pub path: &'static str,
    pub body: Option<&'static str>,
    pub background: Option<&'static str>,
}

/// What the dependencies a group's routes need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    pub postgres: bool,
    pub redis: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub id: &'static str,
    pub title: &'static str,
    pub needs: Needs,
    pub columns: Vec<Column>,
}

/// Every group id, in report order.
pub const GROUP_IDS: &[&str] = &[
    "cpu", "database", "cache", "slow", "baseline", "json", "ramp", "mixed",
];

const ECHO_BODY: &str = r#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#;

fn col(id: &'static str, target: Target, path: &'static str) -> Column {
    Column {
        id,
        target,
        method: "GET",
        path,
        body: None,
        background: None,
    }
}

fn mixed(id: &'static str, target: Target, background: &'static str) -> Column {
    Column {
        id,
        target,
        method: "GET",
        path: "/health",
        body: None,
        background: Some(background),
    }
}

/// The matrix of seed 000, plus seeds 001-003 and the mixed group.
pub fn groups() -> Vec<Group> {
    use Target::{Async, Blocking};
    let none = Needs {
        postgres: false,
        redis: false,
    };
    let db = Needs {
        postgres: true,
        redis: false,
    };
    let both = Needs {
        postgres: true,
        redis: true,
    };
    vec![
        Group {
            id: "cpu",
            title: "CPU-bound (seed 000)",
            needs: none,
            columns: vec![
                col("blocking-cpu", Blocking, "/cpu?n={cpu_n}"),
                col("async-cpu", Async, "/cpu?n={cpu_n}"),
                col("async-cpu-rayon", Async, "/cpu/rayon?n={cpu_n}"),
                col(
                    "async-cpu-spawn-blocking",
                    Async,
                    "/cpu/spawn-blocking?n={cpu_n}",
                ),
            ],
        },
        Group {
            id: "database",
            title: "I/O-bound, database (seed 000)",
            needs: db,
            columns: vec![
                col("blocking-users", Blocking, "/users/1"),
                col("async-users", Async, "/users/1"),
                col("async-users-blocking", Async, "/users/1/blocking"),
                col(
                    "async-users-spawn-blocking",
                    Async,
                    "/users/1/spawn-blocking",
                ),
            ],
        },
        Group {
            id: "cache",
            title: "Cache, two Redis GETs (seed 001)",
            needs: both,
            columns: vec![
                col("blocking-cache", Blocking, "/users/1/cache"),
                col("async-cache", Async, "/users/1/cache"),
                col("async-cache-blocking", Async, "/users/1/cache/blocking"),
            ],
        },
        Group {
            id: "slow",
            title: "Slow downstream, 300 ms (seed 001)",
            needs: none,
            columns: vec![
                col("blocking-posts", Blocking, "/posts/1"),
                col("async-posts", Async, "/posts/1"),
                col("async-posts-blocking", Async, "/posts/1/blocking"),
            ],
        },
        Group {
            id: "baseline",
            title: "Baseline, /health (seed 001)",
            needs: none,
            columns: vec![
                col("blocking-health", Blocking, "/health"),
                col("async-health", Async, "/health"),
            ],
        },
        Group {
            id: "json",
            title: "JSON echo (seed 003)",
            needs: none,
            columns: vec![
                Column {
                    id: "blocking-echo",
                    target: Blocking,
                    method: "POST",
                    path: "/echo",
                    body: Some(ECHO_BODY),
                    background: None,
                },
                Column {
                    id: "async-echo",
                    target: Async,
                    method: "POST",
                    path: "/echo",
                    body: Some(ECHO_BODY),
                    background: None,
                },
            ],
        },
        Group {
            id: "ramp",
            title: "Ramping load on the database (seed 002)",
            needs: db,
            columns: vec![
                col("blocking-users-ramp", Blocking, "/users/{rand:1-10000}"),
                col("async-users-ramp", Async, "/users/{rand:1-10000}"),
            ],
        },
        Group {
            id: "mixed",
            title: "Mixed: /health next to a background load",
            needs: both,
            columns: vec![
                mixed("blocking-health-next-to-cpu", Blocking, "/cpu?n={cpu_n}"),
                mixed("async-health-next-to-cpu", Async, "/cpu?n={cpu_n}"),
                mixed(
                    "async-health-next-to-cpu-rayon",
                    Async,
                    "/cpu/rayon?n={cpu_n}",
                ),
                mixed("blocking-health-next-to-posts", Blocking, "/posts/1"),
                mixed(
                    "async-health-next-to-posts-blocking",
                    Async,
                    "/posts/1/blocking",
                ),
                mixed("async-health-next-to-posts", Async, "/posts/1"),
                mixed(
                    "async-health-next-to-users-blocking",
                    Async,
                    "/users/1/blocking",
                ),
                mixed("async-health-next-to-users", Async, "/users/1"),
            ],
        },
    ]
}

/// How a group is loaded.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// Seed 000: `requests` connections, one request each, all at once.
    Burst { requests: usize },
    /// JMeter threads / k6 VUs for a fixed time.
    Closed {
        connections: usize,
        duration: Duration,
    },
    /// Closed loop for a fixed number of requests.
    ClosedCount { connections: usize, requests: u64 },
    /// k6 stages: (duration, target connections).
    Stages(Vec<(Duration, usize)>),
    /// Mixed group: `background` connections loop on the background route while
    /// /health is sent at `probe_rps` (open model, so a stall cannot hide).
    Mixed {
        background: usize,
        probe_rps: f64,
        duration: Duration,
    },
}

impl Load {
    pub fn describe(&self) -> String {
        match self {
            Load::Burst { requests } => format!("burst of {requests} requests at once, one per connection"),
            Load::Closed { connections, duration } => format!("{connections} connections, closed loop, {} s", duration.as_secs_f64()),
            Load::ClosedCount { connections, requests } => format!("{connections} connections, closed loop, {requests} requests"),
            Load::Stages(st) => format!(
                "stages {}",
                st.iter().map(|(d, n)| format!("{}s:{n}", d.as_secs_f64())).collect::<Vec<_>>().join(",")
            ),
            Load::Mixed { background, probe_rps, duration } => format!(
                "{background} connections loop on the background route; /health sent at {probe_rps} req/s (open model, latency from intended send time) for {} s",
                duration.as_secs_f64()
            ),
        }
    }
}

/// A named set of loads.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub cpu_n: u64,
    /// Per-request timeout of the load generator.
    pub timeout: Duration,
    loads: Vec<(&'static str, Load)>,
}

impl Profile {
    pub fn load(&self, group: &str) -> Option<&Load> {
        self.loads.iter().find(|(g, _)| *g == group).map(|(_, l)| l)
    }

    pub fn load_mut(&mut self, group: &str) -> Option<&mut Load> {
        self.loads
            .iter_mut()
            .find(|(g, _)| *g == group)
            .map(|(_, l)| l)
    }
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// `quick`: every group, scaled down, for CI and a first look (about 2 minutes on 2 cores).
pub fn quick() -> Profile {
    Profile {
        name: "quick",
        cpu_n: 1_000_000,
        timeout: secs(30),
        loads: vec![
            (
                "cpu",
                Load::ClosedCount {
                    connections: 16,
                    requests: 400,
                },
            ),
            (
                "database",
                Load::Closed {
                    connections: 32,
                    duration: secs(3),
                },
            ),
            (
                "cache",
                Load::Closed {
                    connections: 32,
                    duration: secs(3),
                },
            ),
            (
                "slow",
                Load::Closed {
                    connections: 16,
                    duration: secs(3),
                },
            ),
            (
                "baseline",
                Load::Closed {
                    connections: 32,
                    duration: secs(3),
                },
            ),
            (
                "json",
                Load::Closed {
                    connections: 16,
                    duration: secs(3),
                },
            ),
            (
                "ramp",
                Load::Stages(vec![
                    (secs(2), 20),
                    (secs(2), 40),
                    (secs(1), 60),
                    (secs(1), 0),
                ]),
            ),
            (
                "mixed",
                Load::Mixed {
                    background: 16,
                    probe_rps: 50.0,
                    duration: secs(3),
                },
            ),
        ],
    }
}

/// `seed`: the seeds' own loads.
pub fn seed() -> Profile {
    Profile {
        name: "seed",
        cpu_n: contract::workload::DEFAULT_CPU_N,
        timeout: secs(300),
        loads: vec![
            // Seed 000: 10,000 requests at once, per column.
            ("cpu", Load::Burst { requests: 10_000 }),
            ("database", Load::Burst { requests: 10_000 }),
            // Seed 001: JMeter with 200 threads.
            (
                "cache",
                Load::Closed {
                    connections: 200,
                    duration: secs(30),
                },
            ),
            (
                "slow",
                Load::Closed {
                    connections: 200,
                    duration: secs(30),
                },
            ),
            (
                "baseline",
                Load::Closed {
                    connections: 200,
                    duration: secs(30),
                },
            ),
            // Seed 003: k6 with 16 VUs for 30 s.
            (
                "json",
                Load::Closed {
                    connections: 16,
                    duration: secs(30),
                },
            ),
            // Seed 002: k6 stages.
            (
                "ramp",
                Load::Stages(vec![
                    (secs(15), 50),
                    (secs(30), 100),
                    (secs(15), 150),
                    (secs(30), 0),
                ]),
            ),
            (
                "mixed",
                Load::Mixed {
                    background: 64,
                    probe_rps: 50.0,
                    duration: secs(15),
                },
            ),
        ],
    }
}

/// A one-scenario-per-group profile for the end-to-end test: seconds, not minutes.
pub fn tiny() -> Profile {
    let c = |connections, ms| Load::Closed {
        connections,
        duration: Duration::from_millis(ms),
    };
    Profile {
        name: "tiny",
        cpu_n: 100_000,
        timeout: secs(30),
        loads: vec![
            (
                "cpu",
                Load::ClosedCount {
                    connections: 4,
                    requests: 20,
                },
            ),
            ("database", c(4, 300)),
            ("cache", c(4, 300)),
            ("slow", c(4, 700)),
            ("baseline", c(4, 300)),
            ("json", c(4, 300)),
            (
                "ramp",
                Load::Stages(vec![
                    (Duration::from_millis(300), 4),
                    (Duration::from_millis(300), 0),
                ]),
            ),
            (
                "mixed",
                Load::Mixed {
                    background: 4,
                    probe_rps: 20.0,
                    duration: Duration::from_millis(700),
                },
            ),
        ],
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_loads_every_group() {
        for name in PROFILE_NAMES {
            let p = profile(name).unwrap();
            for g in GROUP_IDS {
                assert!(p.load(g).is_some(), "profile {name} has no load for {g}");
            }
        }
        let ids: Vec<&str> = groups().iter().map(|g| g.id).collect();
        assert_eq!(ids, GROUP_IDS);
    }

    #[test]
    fn column_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for g in groups() {
            for c in g.columns {
                assert!(seen.insert(c.id), "{} twice", c.id);
            }
        }
    }
}
