//! The `summary PATH` kind: what a saved run found, in sentences of a
//! fixed frame whose every claim is the run's: per workload how the models
//! stood, round by round by the one rule ([`crate::glance::standing`]),
//! with the verdict that judges the row as saved; what goes wrong, with
//! its figures; the calibration columns against our models; then the
//! predictions that did not hold, that came out the same and that the
//! rounds could not tell, by id and claim. A rerun whose figures or
//! verdicts differ reads differently, and `bench doc-tables --check`
//! catches a summary left behind.

use std::fmt::Write as _;

use bench_model::{Finding, SavedRun, Verdict};

use crate::glance::words::{calibration_line, verdict, wrong_figures};
use crate::headline::split;

fn md(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The predictions of `findings` with `v`, as "`id` (claim)".
fn with_verdict(findings: &[&Finding], v: Verdict) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.verdict == v)
        .map(|f| format!("`{}` ({})", f.id, md(&f.claim)))
        .collect()
}

/// The run's summary in Markdown, with its `findings` as saved.
pub(super) fn summary(run: &SavedRun, findings: &[Finding]) -> String {
    let r = &run.results;
    let t = &run.thresholds;
    let g = crate::glance::build(r, findings, t);
    let mut out = format!(
        "On {} cores ({}, profile {}), each workload's models compared round by round by the one rule: a lead beyond the {:.0}% margin in every round, the same within it in every round, or neither.\n\n",
        r.machine.cores,
        r.started_at,
        r.settings.profile,
        t.margin * 100.0
    );
    for row in &g.rows {
        let _ = writeln!(
            out,
            "- **{}** (`{}`): {} ({}).",
            row.workload.name,
            md(&row.route),
            md(&row.standing_words()),
            md(&verdict(row.verdict.as_ref()))
        );
    }
    if !g.wrongs.is_empty() {
        out.push_str("\nWhat goes wrong, beside the same work done right:\n\n");
        for w in &g.wrongs {
            let judged = w
                .verdict
                .as_ref()
                .map_or(String::new(), |v| format!(" ({})", verdict(Some(v))));
            let _ = writeln!(
                out,
                "- {} with {}: {}{}.",
                w.kind.words(),
                md(&w.what),
                md(&wrong_figures(w)),
                md(&judged)
            );
        }
    }
    if !g.calibration.is_empty() {
        out.push_str("\nThe Java servers beside our models:\n\n");
        for c in &g.calibration {
            let _ = writeln!(out, "- {}.", md(&calibration_line(c)));
        }
    }
    let (predictions, _) = split(findings);
    for (v, heading) in [
        (
            Verdict::NotHeld,
            "Predictions that did not hold, as the run judged them",
        ),
        (
            Verdict::Same,
            "Predictions that came out the same, as the run judged them",
        ),
        (
            Verdict::Inconclusive,
            "Predictions the rounds could not tell, as the run judged them",
        ),
    ] {
        let these = with_verdict(&predictions, v);
        if !these.is_empty() {
            let _ = writeln!(out, "\n{heading} ({}): {}.", these.len(), these.join("; "));
        }
    }
    out
}
