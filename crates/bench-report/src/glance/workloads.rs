//! The rows of the matrix, in one table: which group measures which
//! workload, what its plain variants are called and which findings judge
//! it (the first one the run has is the row's verdict). Nothing here says
//! how a workload came out: that is the run's, in its cells and in how
//! the models stood ([`super::standing`]).

use bench_model::GroupId;

/// One workload of the matrix: a row, when the run measured its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// The group that measures it.
    pub group: GroupId,
    /// Its name in the row's header.
    pub name: &'static str,
    /// What a thread-pool and an event-loop column without a variant of
    /// their own run in this workload (virtual threads always name their
    /// driver).
    pub plain: [&'static str; 2],
    /// The findings that judge the row, the one that decides it first (on
    /// a database, the one that compares the models' Spring defaults, the
    /// cells; a run saved before it existed, the next it has):
    /// a row shows the first of them the run measured (the first it has,
    /// when it measured none), so that a run saved before a finding
    /// existed shows the one it was judged by (a retired one among them:
    /// the throughput claims now judged at equal load).
    pub judged_by: &'static [&'static str],
}

/// Every workload, in the matrix's order: CPU, the database near and far,
/// Redis, a slow downstream, the cheap routes, the ramp, then what many
/// waiting and idle connections cost.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        group: GroupId::Cpu,
        name: "CPU-bound",
        plain: ["inline", "inline"],
        judged_by: &["cpu-offload-recovers", "cpu-inline-hurts-async"],
    },
    Workload {
        group: GroupId::Database,
        name: "Database, local",
        plain: ["sync driver", "sqlx"],
        judged_by: &[
            "db-async-deadpool-cheaper-at-equal-load",
            "db-async-pipelined-cheaper-at-equal-load",
            "db-async-driver-cheaper-at-equal-load",
            "db-spawn-blocking-close-at-equal-load",
            "db-async-deadpool-wins",
            "db-async-pipelined-wins",
            "db-async-driver-wins",
            "db-spawn-blocking-recovers",
        ],
    },
    Workload {
        group: GroupId::RemoteDb,
        name: "Database, remote",
        plain: ["sync driver", "sqlx"],
        judged_by: &[
            "remote-db-async-deadpool-wins",
            "remote-db-pipelined-over-blocking",
            "remote-db-yielding-reaches-pool",
        ],
    },
    Workload {
        group: GroupId::Cache,
        name: "Redis",
        plain: ["sync client", "shared connection"],
        judged_by: &[
            "cache-async-cheaper-at-equal-load",
            "cache-async-wins",
            "cache-shared-connection-beats-pool",
        ],
    },
    Workload {
        group: GroupId::Slow,
        name: "Slow downstream, 300 ms",
        plain: ["sleeping thread", "timer"],
        judged_by: &[],
    },
    Workload {
        group: GroupId::Baseline,
        name: "/health",
        plain: ["nio connector", "hyper"],
        judged_by: &[
            "baseline-async-cheaper-at-equal-load",
            "baseline-async-wins",
            "baseline-cpu-per-request",
        ],
    },
    Workload {
        group: GroupId::Json,
        name: "JSON echo",
        plain: ["nio connector", "hyper"],
        judged_by: &[],
    },
    Workload {
        group: GroupId::Ramp,
        name: "k6 ramp, database",
        plain: ["sync driver", "sqlx"],
        judged_by: &[
            "ramp-async-deadpool-cheaper-at-equal-load",
            "ramp-async-pipelined-cheaper-at-equal-load",
            "ramp-async-cheaper-at-equal-load",
            "ramp-async-deadpool-wins",
            "ramp-async-pipelined-wins",
            "ramp-async-wins",
        ],
    },
    Workload {
        group: GroupId::SweepPosts,
        name: "Many waiting connections",
        plain: ["sleeping thread", "timer"],
        judged_by: &[
            "sweep-async-past-cap",
            "sweep-virtual-past-cap",
            "sweep-blocking-plateau-at-cap",
        ],
    },
    Workload {
        group: GroupId::Idle,
        name: "Idle connections",
        plain: ["nio connector", "hyper"],
        judged_by: &[
            "idle-async-less-memory-than-tiny-http",
            "idle-nio-and-async-no-threads",
            "idle-virtual-no-threads",
        ],
    },
];

/// The workload group `id` measures, if it is a row of the matrix.
pub fn of_group(id: GroupId) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.group == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_one_row_at_most() {
        for w in WORKLOADS {
            assert_eq!(WORKLOADS.iter().filter(|o| o.group == w.group).count(), 1);
        }
        assert_eq!(of_group(GroupId::Mixed), None);
    }

    #[test]
    fn every_judging_finding_is_one_this_build_has_or_had() {
        let ids: Vec<&str> = bench_analysis::findings::kinds()
            .into_iter()
            .map(|k| k.0)
            .chain(bench_analysis::findings::RETIRED.iter().map(|r| r.0))
            .collect();
        for w in WORKLOADS {
            for id in w.judged_by {
                assert!(ids.contains(id), "{}: no finding {id}", w.name);
            }
        }
    }
}
