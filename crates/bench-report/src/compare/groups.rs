//! The groups and columns of two runs matched by (group id, column id), and
//! their figures side by side ([`super::figures`]).
//!
//! A load column gives its throughput (successful requests per second),
//! p99 and server CPU per request over its rounds. A sweep column gives the same per step, at every step both
//! runs took (as the sweep tables count them: successful answers, every
//! request in the p99, CPU per answer). An idle server gives its KiB and
//! threads per idle connection at the largest size both runs measured on
//! it. The cold-start probe is not compared here: its finding is.

use super::figures::{Figure, FigureChange};
use bench_analysis::stats::column_spread;
use bench_analysis::sweep;
use bench_model::figures::{p99_is_lower_bound, step_p99_ms, successful_rps};
use bench_model::figures::{p99_ms, server_cpu_us_per_answer, server_cpu_us_per_request};
use bench_model::Spread;
use bench_model::{ColumnId, GroupId};
use bench_model::{ColumnResult, GroupResult, IdleResult, IdleServer, Metric, RunResults};
use bench_model::{IdleCell, Skipped};

/// Which run alone has something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlyIn {
    Old,
    New,
}

impl OnlyIn {
    pub fn word(self) -> &'static str {
        match self {
            OnlyIn::Old => "only in OLD",
            OnlyIn::New => "only in NEW",
        }
    }
}

/// One group across the two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupChange {
    pub id: GroupId,
    pub title: String,
    /// Set when one run alone has the group (with why the other has not,
    /// when that run says: a group it skipped).
    pub only_in: Option<(OnlyIn, Option<String>)>,
    pub rows: Vec<FigureChange>,
    /// Columns (or idle servers) one run alone has.
    pub columns_only_in: Vec<(ColumnId, OnlyIn)>,
    /// What was not compared, and why, a line each.
    pub not_compared: Vec<String>,
}

/// Every group of either run: the old run's in its order, then the new
/// run's others; a change of a figure must exceed `margin` to be called.
pub fn compare_groups(old: &RunResults, new: &RunResults, margin: f64) -> Vec<GroupChange> {
    let mut out: Vec<GroupChange> = old
        .groups
        .iter()
        .map(|o| match new.groups.iter().find(|n| n.id == o.id) {
            Some(n) => compare_group(o, n, margin),
            None => alone(o, OnlyIn::Old, skip_reason(new, o.id)),
        })
        .collect();
    out.extend(
        new.groups
            .iter()
            .filter(|n| !old.groups.iter().any(|o| o.id == n.id))
            .map(|n| alone(n, OnlyIn::New, skip_reason(old, n.id))),
    );
    out
}

/// Why `run` skipped `group`, if it says it did.
fn skip_reason(run: &RunResults, group: GroupId) -> Option<String> {
    run.skipped
        .iter()
        .find(|s| s.group == Skipped::Group(group))
        .map(|s| s.reason.clone())
}

/// `g` with nothing compared yet.
fn empty(g: &GroupResult) -> GroupChange {
    GroupChange {
        id: g.id,
        title: g.title.clone(),
        only_in: None,
        rows: Vec::new(),
        columns_only_in: Vec::new(),
        not_compared: Vec::new(),
    }
}

fn alone(g: &GroupResult, side: OnlyIn, why_not_other: Option<String>) -> GroupChange {
    GroupChange {
        only_in: Some((side, why_not_other)),
        ..empty(g)
    }
}

fn compare_group(o: &GroupResult, n: &GroupResult, margin: f64) -> GroupChange {
    let mut out = empty(n);
    let ids = |g: &GroupResult| g.columns.iter().map(|c| c.id).collect::<Vec<_>>();
    out.columns_only_in = only_in_one(&ids(o), &ids(n));
    let steps = common_steps(o, n, &mut out);
    for oc in &o.columns {
        let Some(nc) = n.columns.iter().find(|c| c.id == oc.id) else {
            continue;
        };
        match &steps {
            Some(steps) => out.rows.extend(sweep_rows(oc, nc, steps, margin)),
            None => out.rows.extend(load_rows(oc, nc, margin)),
        }
    }
    if let (Some(a), Some(b)) = (&o.idle, &n.idle) {
        compare_idle(a, b, margin, &mut out);
    }
    if o.cold_start.is_some() || n.cold_start.is_some() {
        out.not_compared.push(
            "the cold-start probe: its finding (tiny-http-cold-start-unfair) compares it"
                .to_owned(),
        );
    }
    out
}

/// For two sweeps, the steps both took (a step one took alone noted as
/// not compared); `None` for groups that are not sweeps.
fn common_steps(o: &GroupResult, n: &GroupResult, out: &mut GroupChange) -> Option<Vec<usize>> {
    let (a, b) = (o.sweep.as_ref()?, n.sweep.as_ref()?);
    let apart = only_in_one(&a.steps, &b.steps);
    if !apart.is_empty() {
        let list: Vec<String> = apart
            .iter()
            .map(|(step, side)| format!("{step} ({})", side.word()))
            .collect();
        out.not_compared
            .push(format!("sweep steps of one run only: {}", list.join(", ")));
    }
    Some(
        a.steps
            .iter()
            .copied()
            .filter(|s| b.steps.contains(s))
            .collect(),
    )
}

/// The items of either list the other lacks, in the order of `a` then `b`.
fn only_in_one<T: Copy + PartialEq>(a: &[T], b: &[T]) -> Vec<(T, OnlyIn)> {
    let old = a
        .iter()
        .filter(|x| !b.contains(x))
        .map(|&x| (x, OnlyIn::Old));
    let new = b
        .iter()
        .filter(|x| !a.contains(x))
        .map(|&x| (x, OnlyIn::New));
    old.chain(new).collect()
}

/// Throughput (successful), p99 and server CPU per request of a load column.
fn load_rows(o: &ColumnResult, n: &ColumnResult, margin: f64) -> Vec<FigureChange> {
    let figures: [(Figure, Metric); 3] = [
        (Figure::Throughput, successful_rps),
        (Figure::P99, p99_ms),
        (Figure::CpuPerRequest, server_cpu_us_per_request),
    ];
    let bound = |c: &ColumnResult| c.rounds.iter().any(p99_is_lower_bound);
    figures
        .into_iter()
        .map(|(figure, m)| {
            let change = FigureChange::new(
                o.id.to_string(),
                figure,
                (column_spread(o, m), column_spread(n, m)),
                margin,
            );
            match figure {
                Figure::P99 => change.with_lower_bounds((bound(o), bound(n))),
                _ => change,
            }
        })
        .collect()
}

/// The same three figures of a sweep column at each of `steps`.
fn sweep_rows(
    o: &ColumnResult,
    n: &ColumnResult,
    steps: &[usize],
    margin: f64,
) -> Vec<FigureChange> {
    let figures: [(Figure, Metric); 3] = [
        (Figure::Throughput, successful_rps),
        (Figure::P99, step_p99_ms),
        (Figure::CpuPerRequest, server_cpu_us_per_answer),
    ];
    let mut rows = Vec::new();
    for &step in steps {
        let bound = |c: &ColumnResult| sweep::at_step(c, step).any(p99_is_lower_bound);
        for (figure, m) in figures {
            let change = FigureChange::new(
                format!("{} @ {step}", o.id),
                figure,
                (
                    sweep::step_spread(o, step, m),
                    sweep::step_spread(n, step, m),
                ),
                margin,
            );
            rows.push(match figure {
                Figure::P99 => change.with_lower_bounds((bound(o), bound(n))),
                _ => change,
            });
        }
    }
    rows
}

/// Each idle server at the largest size both runs measured on it.
fn compare_idle(o: &IdleResult, n: &IdleResult, margin: f64, out: &mut GroupChange) {
    let ids = |i: &IdleResult| i.servers.iter().map(|s| s.id).collect::<Vec<_>>();
    out.columns_only_in.extend(only_in_one(&ids(o), &ids(n)));
    for os in &o.servers {
        let Some(ns) = n.servers.iter().find(|s| s.id == os.id) else {
            continue;
        };
        let largest = o
            .sizes
            .iter()
            .rev()
            .copied()
            .find(|&size| n.sizes.contains(&size) && measured(os, size) && measured(ns, size));
        let Some(size) = largest else {
            out.not_compared
                .push(format!("{}: no idle size measured in both runs", os.id));
            continue;
        };
        for figure in [
            Figure::IdleKibPerConnection,
            Figure::IdleThreadsPerConnection,
        ] {
            out.rows.push(FigureChange::new(
                format!("{} @ {size} idle", os.id),
                figure,
                (idle_spread(os, size, figure), idle_spread(ns, size, figure)),
                margin,
            ));
        }
    }
}

fn measured(s: &IdleServer, size: usize) -> bool {
    matches!(s.cell(size), IdleCell::Measured(_))
}

/// A per-connection idle figure over the rounds that opened all of `size`.
fn idle_spread(s: &IdleServer, size: usize, figure: Figure) -> Option<Spread> {
    let IdleCell::Measured(rounds) = s.cell(size) else {
        return None;
    };
    Spread::of(rounds.iter().filter_map(|(round, step)| match figure {
        Figure::IdleThreadsPerConnection => step.threads_per_connection(&round.idle),
        _ => step.kib_per_connection(&round.idle),
    }))
}
