//! The report files of a run, named and made in one place: `report.md`,
//! `report.html`, the run at a glance as a picture (`glance.svg`) and the
//! charts. bench writes them beside results.json after a run, and alone
//! for `bench render`.

use bench_model::{Finding, RunResults, Thresholds};

/// Every report file of a run, as (file name, text), in the order they are
/// written.
pub fn report_files(
    results: &RunResults,
    findings: &[Finding],
    t: &Thresholds,
) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "report.md".to_owned(),
            crate::markdown::render(results, findings, t),
        ),
        (
            "report.html".to_owned(),
            crate::html::render(results, findings, t),
        ),
        (
            crate::charts::GLANCE_SVG.to_owned(),
            crate::charts::glance_chart(&crate::glance::build(results, findings, t)),
        ),
    ];
    files.extend(crate::charts::all(results));
    files
}
