//! The findings' headline, the same in every printer: the predictions'
//! verdicts counted, and the design checks, which confirm what the build
//! guarantees, listed apart and never counted into it. A finding of a run
//! saved before kinds takes this build's kind of its id.

use bench_analysis::findings::kind_of;
use bench_model::{Finding, FindingKind, Verdict};

/// The heading of the design checks, wherever they are listed.
pub const DESIGN_CHECKS: &str = "What the build guarantees, checked";

/// The heading of the predictions.
pub const PREDICTIONS: &str = "Predictions";

/// The findings that are predictions, and the design checks, each in the
/// run's order. A finding whose kind this build does not know counts as a
/// prediction: the headline then claims less, never more.
pub fn split(findings: &[Finding]) -> (Vec<&Finding>, Vec<&Finding>) {
    findings
        .iter()
        .partition(|f| kind_of(f) != Some(FindingKind::DesignCheck))
}

/// The findings under their headings, the predictions first and the
/// design checks apart; a heading with none left out.
pub fn sections(findings: &[Finding]) -> Vec<(&'static str, Vec<&Finding>)> {
    let (predictions, checks) = split(findings);
    [(PREDICTIONS, predictions), (DESIGN_CHECKS, checks)]
        .into_iter()
        .filter(|(_, these)| !these.is_empty())
        .collect()
}

/// Each verdict that occurs among `findings` with its count, in the order
/// HELD, NOT HELD, SAME, INCONCLUSIVE, NOT MEASURED: a tie is an answer of
/// its own, counted apart from both and from the doubts.
pub fn verdict_counts(findings: &[&Finding]) -> Vec<(Verdict, usize)> {
    [
        Verdict::Held,
        Verdict::NotHeld,
        Verdict::Same,
        Verdict::Inconclusive,
        Verdict::NotMeasured,
    ]
    .into_iter()
    .map(|v| (v, findings.iter().filter(|f| f.verdict == v).count()))
    .filter(|(_, n)| *n > 0)
    .collect()
}

/// "8 HELD, 2 NOT HELD, 3 SAME, 4 INCONCLUSIVE", or "none".
pub fn counts_words(findings: &[&Finding]) -> String {
    let counts: Vec<String> = verdict_counts(findings)
        .into_iter()
        .map(|(v, n)| format!("{n} {}", v.word()))
        .collect();
    if counts.is_empty() {
        "none".to_owned()
    } else {
        counts.join(", ")
    }
}

/// "Predictions: 8 HELD, 2 NOT HELD, 7 INCONCLUSIVE. What the build
/// guarantees, checked apart: 10 design checks, 10 HELD."
pub fn headline(findings: &[Finding]) -> String {
    let (predictions, checks) = split(findings);
    let checks_words = if checks.is_empty() {
        String::new()
    } else {
        format!(
            " {DESIGN_CHECKS} apart: {} design check{}, {}.",
            checks.len(),
            if checks.len() == 1 { "" } else { "s" },
            counts_words(&checks)
        )
    };
    format!(
        "{PREDICTIONS}: {}.{checks_words}",
        counts_words(&predictions)
    )
}
