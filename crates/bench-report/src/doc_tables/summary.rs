//! The `summary PATH` kind: what a saved run found, in sentences of a
//! fixed frame whose every claim is the run's: the workloads grouped by
//! how the models stood, round by round by the one rule
//! ([`crate::glance::standing`]: who led in every round, all the same, or
//! neither); what goes wrong that the run measured, with its verdicts;
//! then the predictions that did not hold, that came out the same and that
//! the rounds could not tell, by id, as the run judged them. Short, one
//! line a paragraph: the matrix beside it has the figures. A rerun whose figures or
//! verdicts differ reads differently, and `bench doc-tables --check`
//! catches a summary left behind.

use std::fmt::Write as _;

use bench_model::{Finding, SavedRun, Verdict};

use crate::headline::split;

fn md(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The predictions of `findings` with `v`, by id.
fn with_verdict(findings: &[&Finding], v: Verdict) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.verdict == v)
        .map(|f| format!("`{}`", f.id))
        .collect()
}

/// How a row came out, for grouping rows into one sentence: who leads in
/// every round, all the same, or neither.
fn outcome(row: &crate::glance::Row) -> String {
    use crate::glance::standing::the;
    let Some(s) = &row.standing else {
        return "fewer than two models ranked".to_owned();
    };
    if s.against.iter().all(|a| a.verdict == Verdict::Same) {
        "every ranked model the same within the margin".to_owned()
    } else if s.against.iter().all(|a| a.verdict == Verdict::Held) {
        let verb = if row.figure.higher_is_better() {
            "ahead of every other in every round"
        } else {
            "the cheapest in every round"
        };
        format!("{} {verb}", the(s.best.0))
    } else if s
        .against
        .iter()
        .all(|a| matches!(a.verdict, Verdict::Held | Verdict::Same))
    {
        format!("{} ahead or the same in every round", the(s.best.0))
    } else {
        "no model ahead in every round".to_owned()
    }
}

/// The run's summary in Markdown, with its `findings` as saved: a
/// paragraph per kind of claim, each on one line.
pub(super) fn summary(run: &SavedRun, findings: &[Finding]) -> String {
    let r = &run.results;
    let t = &run.thresholds;
    let g = crate::glance::build(r, findings, t);
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for row in &g.rows {
        let o = outcome(row);
        match groups.iter_mut().find(|(k, _)| *k == o) {
            Some((_, names)) => names.push(format!("**{}**", row.workload.name)),
            None => groups.push((o, vec![format!("**{}**", row.workload.name)])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(o, names)| format!("{o}: {}", names.join(", ")))
        .collect();
    let mut out = format!(
        "On {} cores ({}, profile {}), each workload's models compared round by round by the one rule (a lead beyond the {:.0}% margin in every round, the same within it, or neither; the matrix above says by how much): {}.\n",
        r.machine.cores,
        r.started_at,
        r.settings.profile,
        t.margin * 100.0,
        md(&parts.join("; "))
    );
    let wrongs: Vec<String> = g
        .wrongs
        .iter()
        .map(|w| {
            let judged = w.verdict.as_ref().map_or(String::new(), |v| {
                format!(" ({} `{}`)", v.words(), v.finding)
            });
            format!("{} with {}{judged}", w.kind.words().to_lowercase(), w.what)
        })
        .collect();
    if !wrongs.is_empty() {
        let _ = writeln!(
            out,
            "\nWhat goes wrong, measured: {}.",
            md(&wrongs.join("; "))
        );
    }
    let (predictions, _) = split(findings);
    let lists: Vec<String> = [
        (Verdict::NotHeld, "did not hold"),
        (Verdict::Same, "came out the same"),
        (Verdict::Inconclusive, "the rounds could not tell"),
    ]
    .into_iter()
    .filter_map(|(v, words)| {
        let these = with_verdict(&predictions, v);
        (!these.is_empty()).then(|| format!("{words} ({}): {}", these.len(), these.join(", ")))
    })
    .collect();
    if !lists.is_empty() {
        let _ = writeln!(
            out,
            "\nPredictions, as the run judged them, that {}.",
            lists.join("; that ")
        );
    }
    out
}
