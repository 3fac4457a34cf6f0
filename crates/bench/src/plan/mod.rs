//! The matrix and its loads, as data: groups of columns ([`matrix`], made
//! of [`group`]s of [`column`]s, the calibration groups' Java columns among
//! them, and the real Loom's, [`loom_groups`]) with the stable ids of bench-model, the load shapes ([`loads`]),
//! the profiles that give each group its load ([`profiles`]) and the
//! profiles as the docs' tables ([`tables`]), the equal-load windows of
//! the groups where the cores decide ([`equal_load`]); and a run's plan
//! ([`RunPlan`]): what was asked ([`Request`]) and the profile made into
//! one value that says everything the run will do, with the servers'
//! arguments and settings ([`ServerPlan`]).
//! Nothing here starts a server or sends a request.

mod calibration_groups;
mod column;
mod connect_groups;
mod equal_load;
mod group;
mod jvm_warm_up;
mod loads;
mod loom_groups;
mod matrix;
mod more_groups;
mod pool_sweep;
mod profiles;
#[cfg(test)]
mod profiles_tests;
mod request;
mod run_plan;
#[cfg(test)]
mod run_plan_tests;
mod seed_groups;
mod servers;
pub mod tables;

pub use bench_model::{ColumnId, Driver, GroupId, JavaServer, Target};
pub use column::Column;
pub use equal_load::{EqualLoadPlan, EQUAL_LOAD_GROUPS};
pub use group::{Group, Needs, Network, REMOTE_DB_ROUND_TRIP, STALLS_ROUND_TRIP};
pub use jvm_warm_up::JvmWarmUp;
pub use loadgen::BurstConnect;
pub use loads::{IdleLoad, Load, Sweep};
pub use matrix::{group_of, groups};
pub use profiles::{
    doubling, profile, quick, seed, tiny, ColdStartProbe, PathValues, Profile,
    JVM_WARM_UP_CONNECTIONS, PROFILE_NAMES,
};
pub use request::{JavaChoice, LoadOverrides, Request, Selection, ServerChoices};
pub use run_plan::{GroupPlan, LoadOptions, RunPlan};
pub use servers::{binary, mode_args, ServerPlan};

/// The order of a group's `n` columns in round `round` (1-based): rotated by
/// one more place each round, so no column is always first or last.
pub fn round_order(n: usize, round: u32) -> Vec<usize> {
    let shift = (round as usize).saturating_sub(1) % n.max(1);
    (0..n).map(|i| (i + shift) % n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_rotate_the_column_order() {
        assert_eq!(round_order(3, 1), vec![0, 1, 2]);
        assert_eq!(round_order(3, 2), vec![1, 2, 0]);
        assert_eq!(round_order(3, 3), vec![2, 0, 1]);
        assert_eq!(round_order(3, 4), vec![0, 1, 2]);
        assert_eq!(round_order(0, 2), Vec::<usize>::new());
    }
}
