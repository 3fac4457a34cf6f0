//! The equal-load windows a group gets after its own rounds, where the
//! cores decide: every column that does not block by design loaded again
//! at one arrival rate (open model, latency from each request's intended
//! start), a share of the lowest of their throughputs in the run
//! ([`bench_analysis::equal_load`]), so that server CPU per request is
//! compared at the same load on every server. Which groups, the share,
//! and each profile's windows are here; the rate comes from the run.
//!
//! The groups: those where nothing waits long and the machine's cores
//! are the limit, so that the load generator's own CPU per request (which
//! depends on the server it drives) decides part of a closed loop's
//! throughput. Not the CPU group (the server's work dwarfs the client's),
//! nor where a wait decides (the slow downstream, the remote database, the
//! sweeps, the pool sweep), nor the calibration groups (their finding is
//! CPU per request already, and only the seed profile's budget would pay).

use std::time::Duration;

use bench_analysis::by_design::blocks_by_design;
use bench_model::GroupId;

use super::group::Group;

/// The groups whose rows are ranked at equal load.
pub const EQUAL_LOAD_GROUPS: [GroupId; 5] = [
    GroupId::Database,
    GroupId::Cache,
    GroupId::Baseline,
    GroupId::Json,
    GroupId::Ramp,
];

/// The share of the lowest throughput every column is given: half, so
/// that the slowest column is far from its limit on this machine, beside
/// the load generator, and the rate is the load's, not a server's.
pub(super) const SHARE: f64 = 0.5;

/// A group's equal-load windows as the run will measure them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EqualLoadPlan {
    /// The share of the lowest throughput the rate is.
    pub share: f64,
    /// Each window's length.
    pub window: Duration,
    /// The warm-up at the same rate before each window; `None` with `--cold`.
    pub warm_up: Option<Duration>,
    /// Column rounds: every ranked column once per round.
    pub rounds: u32,
    /// The columns that get a window: those that do not block by design.
    pub columns: usize,
}

/// A profile's equal-load windows: their length, their warm-up when not
/// the profile's, and their rounds when not the profile's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct EqualLoadWindows {
    pub window: Duration,
    pub warm_up: Option<Duration>,
    pub rounds: Option<u32>,
}

/// The equal-load windows of the profile `name`. The seed profile's: 3-s
/// windows after 1 s at the rate, the profile's rounds: about 5 minutes
/// for its 24 ranked columns, each window's server CPU some 60 to 300
/// clock ticks. Quick's: one round of 0.4-s windows, to stay in its
/// budget (its figures are a first look: a few ticks each). Tiny's: the
/// end-to-end tests' 0.3 s.
pub(super) fn windows_of(profile: &str) -> EqualLoadWindows {
    let ms = Duration::from_millis;
    match profile {
        "seed" => EqualLoadWindows {
            window: ms(3000),
            warm_up: Some(ms(1000)),
            rounds: None,
        },
        "quick" => EqualLoadWindows {
            window: ms(400),
            warm_up: None,
            rounds: Some(1),
        },
        _ => EqualLoadWindows {
            window: ms(300),
            warm_up: None,
            rounds: None,
        },
    }
}

/// The columns of `group` that get an equal-load window.
pub(super) fn ranked_columns(group: &Group) -> usize {
    group
        .columns
        .iter()
        .filter(|c| !blocks_by_design(c.target, c.path, c.background))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_profiles_ranked_columns_are_the_two_dozen_its_budget_counts() {
        let counts: Vec<(GroupId, usize)> = super::super::groups()
            .iter()
            .filter(|g| EQUAL_LOAD_GROUPS.contains(&g.id))
            .map(|g| (g.id, ranked_columns(g)))
            .collect();
        // The database group's inline sync driver and pinning driver, and
        // the cache group's, block by design.
        assert_eq!(
            counts,
            [
                (GroupId::Database, 7),
                (GroupId::Cache, 5),
                (GroupId::Baseline, 4),
                (GroupId::Json, 3),
                (GroupId::Ramp, 5),
            ]
        );
    }
}
