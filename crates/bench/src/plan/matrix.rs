//! The matrix: every group, in report order, each made by its own
//! function in the files of its family. Pure data: nothing here starts a
//! server or sends a request.

use super::calibration_groups::{
    calibration_health_group, calibration_posts_group, calibration_users_group,
};
use super::connect_groups::{cpu_connect_group, database_connect_group};
use super::group::Group;
use super::loom_groups::calibration_loom_group;
use super::more_groups::{
    idle_group, mixed_group, remote_db_group, remote_mixed_group, stalls_group, sweep_posts_group,
    sweep_users_group,
};
use super::pool_sweep::pool_sweep_group;
use super::seed_groups::{
    baseline_group, cache_group, cpu_group, database_group, json_group, ramp_group, slow_group,
};
use bench_model::{ColumnId, GroupId};

/// The matrix of seed 000 (each group under its burst with the connections
/// opened first, then again with the connect in each request), plus seeds 001-003, the mixed group, the stall
/// detector's group, idle connections, the concurrency sweeps, the
/// remote-database groups and the pool sweep, then the calibration groups
/// (Tomcat and Netty beside our twins, and Tomcat on virtual threads on
/// Java 21 and 25 beside our virtual threads), in report order. Virtual threads have a column
/// wherever the other two servers do: one per driver where Postgres or
/// Redis is called, one (pinning: the driver is not called) elsewhere.
pub fn groups() -> Vec<Group> {
    vec![
        cpu_group(),
        cpu_connect_group(),
        database_group(),
        database_connect_group(),
        cache_group(),
        slow_group(),
        baseline_group(),
        json_group(),
        ramp_group(),
        mixed_group(),
        stalls_group(),
        idle_group(),
        sweep_posts_group(),
        sweep_users_group(),
        remote_db_group(),
        remote_mixed_group(),
        pool_sweep_group(),
        calibration_health_group(),
        calibration_posts_group(),
        calibration_users_group(),
        calibration_loom_group(),
    ]
}

/// The group a column belongs to.
pub fn group_of(column: ColumnId) -> Option<GroupId> {
    groups()
        .into_iter()
        .find(|g| g.columns.iter().any(|c| c.id == column))
        .map(|g| g.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::column::Column;

    #[test]
    fn column_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for g in groups() {
            for c in g.columns {
                assert!(seen.insert(c.id), "{} twice", c.id.as_str());
            }
        }
    }

    #[test]
    fn every_column_id_is_in_the_matrix_once_in_id_order() {
        let in_matrix: Vec<ColumnId> = groups()
            .into_iter()
            .flat_map(|g| g.columns)
            .map(|c| c.id)
            .collect();
        assert_eq!(in_matrix, ColumnId::measured().collect::<Vec<_>>());
        // A retired column is in no group, and still read from a saved run.
        for id in ColumnId::RETIRED {
            assert_eq!(group_of(*id), None);
            assert_eq!(ColumnId::parse(id.as_str()), Some(*id));
        }
        let groups: Vec<GroupId> = groups().into_iter().map(|g| g.id).collect();
        assert_eq!(groups, GroupId::ALL);
    }

    /// Pins are counted where something pins: Tomcat on virtual threads
    /// in the Loom's group; on /health its columns run without the counter.
    #[test]
    fn only_the_looms_tomcat_on_virtual_threads_counts_pins() {
        let counting: Vec<ColumnId> = groups()
            .into_iter()
            .flat_map(|g| g.columns)
            .filter(Column::counts_pins)
            .map(|c| c.id)
            .collect();
        let expected = [
            ColumnId::TomcatVirtualUsersJava21,
            ColumnId::TomcatVirtualUsersJava25,
        ];
        assert_eq!(counting, expected);
    }
}
