//! Seed 000's two groups again, under its burst as JMeter sent it: each of
//! the requests opens its own connection after the release, so the server
//! accepts while it serves ([`loadgen::BurstConnect::InRequest`]), where
//! the cpu and database groups' burst opens every connection first. Each
//! is its sibling's columns, column for column, under ids of their own, so
//! that a run can measure both bursts on one server process per column
//! round ([`super::GroupPlan::first_window`]). Pure data.

use super::column::Column;
use super::group::Group;
use super::run_plan::GroupPlan;
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
const TWIN_GROUPS: [(GroupId, GroupId); 2] = [
    (GroupId::Cpu, GroupId::CpuConnectInRequest),
    (GroupId::Database, GroupId::DatabaseConnectInRequest),
];

/// Where a run measures both a twin group and its sibling, each column
/// round's fresh server takes the twin's window first, in place of the
/// sibling's warm-up: seed 000's burst as JMeter sent it on a cold server,
/// as seed 000 measured it, then the burst with every connection opened
/// first on the server it warmed up, as a burst of the same size warmed it
/// before. Both bursts then cost the run the time of one group, and each
/// column's two windows are on one process. They stay apart, each column
/// round on a fresh server, where the sibling has no warm-up (`--cold`:
/// every window on a cold server), where their rounds differ, or where
/// their columns do not pair up (a server given by URL drops some).
pub(super) fn measure_twins_first(groups: &mut Vec<GroupPlan>) {
    let position = |groups: &[GroupPlan], id| groups.iter().position(|g| g.group.id == id);
    for (sibling, twin) in TWIN_GROUPS {
        let (Some(s), Some(t)) = (position(groups, sibling), position(groups, twin)) else {
            continue;
        };
        let (columns, twins) = (&groups[s].group.columns, &groups[t].group.columns);
        let pairs = columns.len() == twins.len()
            && columns
                .iter()
                .zip(twins)
                .all(|(c, t)| c.id.connect_in_request_twin() == Some(t.id));
        if !pairs || groups[s].warm_up_load().is_none() || groups[s].rounds != groups[t].rounds {
            continue;
        }
        let first = groups.remove(t);
        if let Some(s) = position(groups, sibling) {
            groups[s].first_window = Some(Box::new(first));
        }
    }
}

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
