//! A load group: every column once per round under the group's load, each
//! round on a fresh server, warmed up and measured ([`super::window`]), then
//! where the cores decide its equal-load windows ([`super::equal_load`]),
//! and the group's cold-start probe if it has one ([`super::cold_starts`]). A
//! group with another group's window first ([`GroupPlan::first_window`])
//! measures that window on the same fresh server in place of its warm-up,
//! and gives both groups' results.

use std::cell::RefCell;

use super::launch::RoundServer;
use super::rounds::{every_column_round, round_line, ColumnRound, Measured};
use super::{cold_starts, equal_load, window, Ctx};
use crate::measure::load::ColumnError;
use crate::plan::{GroupPlan, Load};
use bench_model::{ColumnResult, GroupResult, RoundResult};

/// `group` under `load` (its own, not a sweep's or the idle group's), and
/// the group measured first in its rounds if it has one, after it.
pub(super) fn measure_load_group(
    group: &GroupPlan,
    load: &Load,
    cx: &Ctx<'_>,
) -> anyhow::Result<Vec<GroupResult>> {
    let warm_up = group.warm_up_load();
    let first = group.first_window.as_deref();
    let first_columns = RefCell::new(first.map_or_else(Vec::new, |f| f.empty_columns(cx.options)));
    let measure = |at: &ColumnRound<'_>| {
        let column = &group.group.columns[at.column];
        let server = cx.launch.start_column(column)?;
        let r = match first {
            Some(f) => measure_first_then(&server, (f, group, load), at, cx, &first_columns),
            None => window::measure_column(
                (cx.launch, &server),
                cx.options,
                (column, load, warm_up.as_ref()),
                (at.round, at.position),
            )
            .map(|r| (r, Vec::new())),
        };
        // Killed, not drained: everything measured has been read, and a
        // drain of a queue of 300-ms sleeps would only make the run longer.
        server.kill();
        let (r, mut lines) = r?;
        lines.push(round_line(at, &r));
        Ok(Measured {
            lines,
            rounds: vec![r],
        })
    };
    let results = |columns: &[ColumnResult]| {
        let mut out = vec![GroupResult {
            columns: columns.to_vec(),
            ..group.empty_result(cx.options)
        }];
        out.extend(first.map(|f| GroupResult {
            columns: first_columns.borrow().clone(),
            ..f.empty_result(cx.options)
        }));
        out
    };
    let kept = |so_far: &[ColumnResult]| cx.snapshot.keep_all(results(so_far));
    let mut columns = group.empty_columns(cx.options);
    every_column_round(&mut columns, group.rounds, (cx.progress, kept), measure)?;
    let equal_load = match &group.equal_load {
        Some(plan) => equal_load::measure_equal_load(group, plan, &columns, cx, |so_far| {
            let mut all = results(&columns);
            all[0].equal_load = Some(so_far.clone());
            cx.snapshot.keep_all(all)
        })?,
        None => None,
    };
    let cold_start = match &group.cold_start {
        Some(probe) => cold_starts::measure_cold_starts(&group.group, probe, cx)?,
        None => None,
    };
    let mut out = results(&columns);
    out[0].cold_start = cold_start;
    out[0].equal_load = equal_load;
    Ok(out)
}

/// One column round of `group` with `first`'s window before its own on
/// `server`: the first window's round joins `first_columns` (its progress
/// line returned), or its failure fails both columns.
fn measure_first_then(
    server: &RoundServer,
    (first, group, load): (&GroupPlan, &GroupPlan, &Load),
    at: &ColumnRound<'_>,
    cx: &Ctx<'_>,
    first_columns: &RefCell<Vec<ColumnResult>>,
) -> Result<(RoundResult, Vec<String>), ColumnError> {
    let column = &group.group.columns[at.column];
    let windows = [
        (&first.group.columns[at.column], &first.load),
        (column, load),
    ];
    let measured = window::measure_first_then(
        (cx.launch, server),
        cx.options,
        windows,
        (at.round, at.position),
    );
    let mut first_columns = first_columns.borrow_mut();
    let first_column = &mut first_columns[at.column];
    match measured {
        Ok([r_first, r]) => {
            let label = format!("{} ({})", first_column.label, first.group.id);
            let line = round_line(
                &ColumnRound {
                    label: &label,
                    ..*at
                },
                &r_first,
            );
            first_column.rounds.push(r_first);
            Ok((r, vec![line]))
        }
        Err(e) => {
            if let ColumnError::Failed(cause) = &e {
                first_column.failure = Some(cause.clone());
            }
            Err(e)
        }
    }
}
