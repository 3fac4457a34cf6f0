//! A load group: every column once per round under the group's load, each
//! round a fresh server warmed up and measured ([`super::window`]), then
//! the group's cold-start probe if it has one ([`super::cold_starts`]).

use super::rounds::{every_column_round, round_line, Measured};
use super::{cold_starts, window, Ctx};
use crate::plan::{GroupPlan, Load};
use bench_model::{ColumnResult, GroupResult};

/// `group` under `load` (its own, not a sweep's or the idle group's).
pub(super) fn measure_load_group(
    group: &GroupPlan,
    load: &Load,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let (columns, rounds, warm_up) = (&group.group.columns, group.rounds, group.warm_up_load());
    let mut results: Vec<ColumnResult> = columns
        .iter()
        .map(|c| c.empty_result(cx.options.paths))
        .collect();
    let labels: Vec<String> = results.iter().map(|c| c.label.clone()).collect();
    let measure = |i: usize, round, position| {
        let column = (&columns[i], load, warm_up.as_ref());
        let r = window::measure_column(cx.launch, cx.options, column, (round, position))?;
        Ok(Measured {
            lines: vec![round_line(&labels[i], round, rounds, &r)],
            rounds: vec![r],
        })
    };
    let result = |columns: Vec<ColumnResult>| GroupResult {
        columns,
        ..group.empty_result(cx.options)
    };
    let kept = |so_far: &[ColumnResult]| cx.snapshot.keep(result(so_far.to_vec()));
    every_column_round(&mut results, rounds, (cx.progress, kept), measure)?;
    let cold_start = match &group.cold_start {
        Some(probe) => cold_starts::measure_cold_starts(&group.group, probe, cx)?,
        None => None,
    };
    Ok(GroupResult {
        cold_start,
        ..result(results)
    })
}
