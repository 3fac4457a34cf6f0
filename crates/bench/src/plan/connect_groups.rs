//! Seed 000's two groups again, under its burst as JMeter sent it: each of
//! the requests opens its own connection after the release, so the server
//! accepts while it serves ([`loadgen::BurstConnect::InRequest`]), where
//! the cpu and database groups' burst opens every connection first. Each
//! is its sibling's columns, column for column, under ids of their own, so
//! that a run can measure both bursts on one server process per column
//! round (run_plan's `GroupPlan::first_window`). Pure data.

use super::column::Column;
use super::group::Group;
use super::seed_groups::{cpu_group, database_group};
use bench_model::GroupId;

/// `sibling`'s columns under their twins' ids
/// ([`bench_model::ColumnId::CONNECT_IN_REQUEST_TWINS`]), as group `id`.
fn twin_of(sibling: Group, id: GroupId, title: &'static str) -> Group {
    let columns: Vec<Column> = sibling
        .columns
        .into_iter()
        .filter_map(|c| {
            let twin = c.id.connect_in_request_twin()?;
            Some(Column { id: twin, ..c })
        })
        .collect();
    Group {
        id,
        title,
        columns,
        ..sibling
    }
}

/// Seed 000, CPU-bound, each request connecting: does an event loop busy
/// with inline CPU work accept late?
pub(super) fn cpu_connect_group() -> Group {
    let title = "CPU-bound, the connect in each request (seed 000 as JMeter sent it)";
    twin_of(cpu_group(), GroupId::CpuConnectInRequest, title)
}

/// Seed 000, I/O-bound, each request connecting: the database read with
/// each driver and offload.
pub(super) fn database_connect_group() -> Group {
    let title = "I/O-bound, database, the connect in each request (seed 000 as JMeter sent it)";
    twin_of(database_group(), GroupId::DatabaseConnectInRequest, title)
}

/// Each sibling group and its twin here.
pub(super) const TWIN_GROUPS: [(GroupId, GroupId); 2] = [
    (GroupId::Cpu, GroupId::CpuConnectInRequest),
    (GroupId::Database, GroupId::DatabaseConnectInRequest),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_twin_group_has_every_column_of_its_sibling_in_its_order() {
        for (sibling, twin) in [
            (cpu_group(), cpu_connect_group()),
            (database_group(), database_connect_group()),
        ] {
            assert_eq!(sibling.columns.len(), twin.columns.len(), "{}", twin.id);
            for (s, t) in sibling.columns.iter().zip(&twin.columns) {
                assert_eq!(s.id.connect_in_request_twin(), Some(t.id));
                assert_eq!(
                    Column {
                        id: s.id,
                        ..t.clone()
                    },
                    *s
                );
            }
            assert_eq!(twin.needs, sibling.needs);
        }
    }
}
