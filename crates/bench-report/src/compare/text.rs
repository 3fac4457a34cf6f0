//! The comparison on the terminal: which runs, the matrices side by side,
//! the findings table, each
//! changed finding with both runs' evidence, then every group's figures and
//! the outcome. The warnings go to stderr (the command prints them), so
//! here they are only counted.

use std::fmt::Write as _;

use super::findings::summary;
use super::tables::{figures_legend, findings_table, group_heading, group_notes, group_table};
use super::{Change, Comparison, FindingChange, RunLabel};
use crate::text::render_table;

/// "OLD: path (started ..., profile seed, commit ...)".
pub(super) fn label_line(side: &str, l: &RunLabel) -> String {
    let commit = l
        .commit
        .as_ref()
        .map_or("no commit recorded".to_owned(), |c| format!("commit {c}"));
    format!(
        "{side}: {} (started {}, profile {}, {commit})",
        l.path, l.started_at, l.profile
    )
}

/// The outcome in one line: whether a finding flipped, and so the exit code.
pub(super) fn outcome_line(cmp: &Comparison) -> String {
    let flipped = cmp.flipped();
    if flipped.is_empty() {
        return "No finding flipped between HELD and NOT HELD.".to_owned();
    }
    let list: Vec<String> = flipped
        .iter()
        .map(|f| format!("{} ({})", f.id, f.change.describe()))
        .collect();
    format!(
        "{} finding{} flipped between HELD and NOT HELD: {}.",
        flipped.len(),
        if flipped.len() == 1 { "" } else { "s" },
        list.join(", ")
    )
}

/// Each finding whose verdict is not the same in both, with the evidence of
/// the runs that have it.
fn changed_findings(findings: &[FindingChange]) -> String {
    let mut out = String::new();
    for f in findings.iter().filter(|f| f.change != Change::Unchanged) {
        let _ = writeln!(out, "{}: {}", f.id, f.change.describe());
        for (side, j) in [("OLD", &f.old), ("NEW", &f.new)] {
            if let Some(j) = j {
                let _ = writeln!(out, "    {side} {}: {}", j.verdict.word(), j.evidence);
            }
        }
    }
    out
}

/// The whole comparison as text.
pub fn render(cmp: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", label_line("OLD", &cmp.old));
    let _ = writeln!(out, "{}", label_line("NEW", &cmp.new));
    if !cmp.warnings.is_empty() {
        let n = cmp.warnings.len();
        let _ = writeln!(
            out,
            "{n} warning{} about what else differs between the runs, on stderr.",
            if n == 1 { "" } else { "s" }
        );
    }
    if !cmp.glance.is_empty() {
        let _ = writeln!(out, "\nAt a glance\n{}", super::glance::LEGEND);
        out.push_str(&render_table(&super::glance::glance_table(&cmp.glance)));
    }
    let _ = writeln!(out, "\n{}", summary(&cmp.findings));
    out.push_str(&render_table(&findings_table(&cmp.findings, false)));
    let changed = changed_findings(&cmp.findings);
    if !changed.is_empty() {
        let _ = writeln!(
            out,
            "\nChanged findings, with each run's evidence:\n{changed}"
        );
    }
    let _ = writeln!(out, "\nColumns\n{}", figures_legend(cmp.margin));
    for g in &cmp.groups {
        let _ = writeln!(out, "\n{}", group_heading(g));
        if !g.rows.is_empty() {
            out.push_str(&render_table(&group_table(g)));
        }
        for note in group_notes(g) {
            let _ = writeln!(out, "{note}");
        }
    }
    let _ = writeln!(out, "\n{}", outcome_line(cmp));
    out
}
