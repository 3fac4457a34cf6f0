//! The report's findings first: how many held, then one row per finding
//! with its verdict badge, the claim and whose claim it is, its evidence as
//! the finding states it, and what it means for someone choosing a model.

use std::fmt::Write as _;

use super::page::{escape, verdict_class};
use bench_model::Finding;
use bench_model::Verdict;

/// "18 HELD, 2 NOT HELD, ..." as badges, verdicts that occur only.
fn summary(findings: &[Finding]) -> String {
    let mut out = String::from("<p class=\"summary\">");
    for v in [
        Verdict::Held,
        Verdict::NotHeld,
        Verdict::Inconclusive,
        Verdict::NotMeasured,
    ] {
        let n = findings.iter().filter(|f| f.verdict == v).count();
        if n > 0 {
            let _ = write!(
                out,
                "<span class=\"{}\">{n} {}</span>",
                verdict_class(v),
                v.word()
            );
        }
    }
    out.push_str("</p>\n");
    out
}

/// The findings section.
pub(super) fn section(findings: &[Finding]) -> String {
    let mut out = String::from("<section id=\"findings\">\n<h2>Findings</h2>\n");
    out.push_str(&summary(findings));
    out.push_str("<table class=\"findings\">\n<colgroup><col class=\"c-verdict\"><col class=\"c-claim\"><col class=\"c-evidence\"><col class=\"c-meaning\"></colgroup>\n<thead><tr><th>Verdict</th><th>Claim</th><th>Evidence</th><th>What it means</th></tr></thead>\n<tbody>\n");
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
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}
