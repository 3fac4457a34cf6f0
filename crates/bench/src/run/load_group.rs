//! A load group: every column once per round under the group's load, each
//! round on a fresh server, warmed up and measured ([`super::window`]), then
//! where the cores decide its equal-load windows ([`super::equal_load`]),
//! and the group's cold-start probe if it has one ([`super::cold_starts`]).

use super::rounds::{every_column_round, round_line, ColumnRound, Measured};
use super::{cold_starts, equal_load, window, Ctx};
use crate::plan::{GroupPlan, Load};
use bench_model::{ColumnResult, GroupResult};

/// `group` under `load` (its own, not a sweep's or the idle group's).
pub(super) fn measure_load_group(
    group: &GroupPlan,
    load: &Load,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let warm_up = group.warm_up_load();
    let measure = |at: &ColumnRound<'_>| {
        let column = &group.group.columns[at.column];
        let server = cx.launch.start_column(column)?;
        let r = window::measure_column(
            (cx.launch, &server),
            cx.options,
            (column, load, warm_up.as_ref()),
            (at.round, at.position),
        );
        // Killed, not drained: everything measured has been read, and a
        // drain of a queue of 300-ms sleeps would only make the run longer.
        server.kill();
        let r = r?;
        Ok(Measured {
            lines: vec![round_line(at, &r)],
            rounds: vec![r],
        })
    };
    let result = |columns: Vec<ColumnResult>| GroupResult {
        columns,
        ..group.empty_result(cx.options)
    };
    let kept = |so_far: &[ColumnResult]| cx.snapshot.keep(result(so_far.to_vec()));
    let mut columns = group.empty_columns(cx.options);
    every_column_round(&mut columns, group.rounds, (cx.progress, kept), measure)?;
    let equal_load = match &group.equal_load {
        Some(plan) => equal_load::measure_equal_load(group, plan, &columns, cx, |so_far| {
            cx.snapshot.keep(GroupResult {
                equal_load: Some(so_far.clone()),
                ..result(columns.clone())
            })
        })?,
        None => None,
    };
    let cold_start = match &group.cold_start {
        Some(probe) => cold_starts::measure_cold_starts(&group.group, probe, cx)?,
        None => None,
    };
    Ok(GroupResult {
        cold_start,
        equal_load,
        ..result(columns)
    })
}
