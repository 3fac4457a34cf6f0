//! The comparison's tables, made once for every printer: the findings (a
//! row per finding, its verdict in each run and the change) and a group's
//! figures (a row per figure of each column, both runs' medians with their
//! round ranges, the relative change and its word).

use super::figures::{describe_relative, describe_spread};
use super::{FindingChange, GroupChange, Judged};
use crate::table::Table;

/// "HELD 1.16": the verdict with its interval's median, written beside
/// its line; "-" when absent.
pub(super) fn verdict_cell(j: Option<&Judged>) -> String {
    match j.map(Judged::verdict_and_median) {
        None => "-".to_owned(),
        Some((verdict, Some(median))) => format!("{verdict} {median}"),
        Some((verdict, None)) => verdict.to_owned(),
    }
}

/// A row per finding: id, OLD, NEW, change; with `evidence`, each side's
/// evidence after them.
pub(super) fn findings_table(findings: &[FindingChange], evidence: bool) -> Table {
    let mut header: Vec<String> = ["finding", "OLD", "NEW", "change"]
        .map(str::to_owned)
        .to_vec();
    if evidence {
        header.extend(["OLD evidence".to_owned(), "NEW evidence".to_owned()]);
    }
    let rows = findings
        .iter()
        .map(|f| {
            let mut row = vec![
                f.id.clone(),
                verdict_cell(f.old.as_ref()),
                verdict_cell(f.new.as_ref()),
                f.change.describe(),
            ];
            if evidence {
                let ev =
                    |j: &Option<Judged>| j.as_ref().map_or("-".to_owned(), |j| j.evidence.clone());
                row.extend([ev(&f.old), ev(&f.new)]);
            }
            row
        })
        .collect();
    Table { header, rows }
}

/// A row per figure: the column (on its first row only), the figure, both
/// runs' median (min..max), the relative change and its word.
pub(super) fn group_table(g: &GroupChange) -> Table {
    let header = ["column", "figure", "OLD", "NEW", "change", "result"]
        .map(str::to_owned)
        .to_vec();
    let mut last = None;
    let rows = g
        .rows
        .iter()
        .map(|r| {
            let column = if last == Some(&r.column) {
                String::new()
            } else {
                r.column.clone()
            };
            last = Some(&r.column);
            vec![
                column,
                r.figure.name().to_owned(),
                describe_spread(r.old.as_ref(), r.lower_bound.0),
                describe_spread(r.new.as_ref(), r.lower_bound.1),
                describe_relative(r.relative()),
                r.word.word().to_owned(),
            ]
        })
        .collect();
    Table { header, rows }
}

/// The lines under a group's table: columns one run alone has, and what
/// was not compared.
pub(super) fn group_notes(g: &GroupChange) -> Vec<String> {
    let mut out: Vec<String> = g
        .columns_only_in
        .iter()
        .map(|(id, side)| format!("{id}: {}", side.word()))
        .collect();
    out.extend(g.not_compared.iter().map(|n| format!("not compared: {n}")));
    out
}

/// A group's heading: "cpu: CPU-bound (seed 000)", and for a group one run
/// alone has, which and why the other has not.
pub(super) fn group_heading(g: &GroupChange) -> String {
    let mut out = format!("{}: {}", g.id, g.title);
    if let Some((side, why)) = &g.only_in {
        out.push_str(&format!(" ({}", side.word()));
        if let Some(why) = why {
            out.push_str(&format!("; the other run skipped it: {why}"));
        }
        out.push(')');
    }
    out
}

/// What each cell of a group table means, and the noise rule with its
/// `margin`, in one line.
pub(super) fn figures_legend(margin: f64) -> String {
    format!(
        "Each cell: the median over the run's rounds (min..max over rounds); change: the new median against the old. A change is called improved or regressed only when the two runs' round ranges do not overlap (a run's rounds are its only measure of its own spread; otherwise: within noise) and the medians differ by more than the findings' margin of {:.0}% (otherwise: below margin). Sweep rows are per step (@ connections) and count as the sweep tables do; idle rows are at the largest size both runs measured.",
        margin * 100.0
    )
}
