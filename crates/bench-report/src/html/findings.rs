//! The report's findings first: how many predictions held, then one row
//! per prediction with its verdict badge, the claim and whose claim it is,
//! its evidence as the finding states it, and what it means for someone
//! choosing a model; then the design checks, apart, the same way.

use std::fmt::Write as _;

use super::page::{escape, verdict_class};
use crate::headline::{split, verdict_counts, DESIGN_CHECKS, PREDICTIONS};
use bench_model::Finding;

/// "8 HELD, 2 NOT HELD, ..." as badges, verdicts that occur only.
fn summary(findings: &[&Finding]) -> String {
    let mut out = String::from("<p class=\"summary\">");
    for (v, n) in verdict_counts(findings) {
        let _ = write!(
            out,
            "<span class=\"{}\">{n} {}</span>",
            verdict_class(v),
            v.word()
        );
    }
    out.push_str("</p>\n");
    out
}

/// The findings section: the predictions, counted, then the design checks.
pub(super) fn section(findings: &[Finding]) -> String {
    let (predictions, checks) = split(findings);
    let mut out = String::from("<section id=\"findings\">\n<h2>Findings</h2>\n");
    let _ = writeln!(out, "<h3>{PREDICTIONS}</h3>");
    out.push_str(&summary(&predictions));
    out.push_str(&table(&predictions));
    if !checks.is_empty() {
        let _ = writeln!(
            out,
            "<h3>{DESIGN_CHECKS}</h3>\n<p class=\"muted\">Design checks: each confirms what the build guarantees (a thread count a setting fixes, marks only marked code sets), so it is not counted among the predictions above.</p>"
        );
        out.push_str(&summary(&checks));
        out.push_str(&table(&checks));
    }
    out.push_str("</section>\n");
    out
}

/// One table of findings.
fn table(findings: &[&Finding]) -> String {
    let mut out = String::from("<table class=\"findings\">\n<colgroup><col class=\"c-verdict\"><col class=\"c-claim\"><col class=\"c-evidence\"><col class=\"c-meaning\"></colgroup>\n<thead><tr><th>Verdict</th><th>Claim</th><th>Evidence</th><th>What it means</th></tr></thead>\n<tbody>\n");
    for f in findings {
        let _ = writeln!(
            out,
            "<tr class=\"finding\" data-id=\"{id}\"><td><span class=\"verdict {class}\">{verdict}</span></td><td><p class=\"claim\">{claim}</p><p class=\"seed\">{seed} · <code>{id}</code></p></td><td class=\"evidence\">{evidence}</td><td class=\"meaning\">{meaning}</td></tr>",
            id = escape(&f.id),
            class = verdict_class(f.verdict),
            verdict = f.verdict.word(),
            claim = escape(&f.claim),
            seed = escape(&f.seed),
            evidence = escape(&f.evidence),
            meaning = escape(bench_analysis::findings::meaning_of(f).unwrap_or_default()),
        );
    }
    out.push_str("</tbody>\n</table>\n");
    out
}
