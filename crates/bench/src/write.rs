//! Writes a run's files: report.md, results.json (with the findings) and the charts.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::findings::{Finding, Thresholds};
use crate::model::RunResults;
use crate::report;

/// The shape of results.json: the run, then the findings and the thresholds they used.
#[derive(Serialize)]
pub struct ResultsFile<'a> {
    #[serde(flatten)]
    pub results: &'a RunResults,
    pub thresholds: &'a Thresholds,
    pub findings: &'a [Finding],
}

pub fn write_all(
    dir: &Path,
    results: &RunResults,
    findings: &[Finding],
    t: &Thresholds,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write("report.md", &report::markdown::render(results, findings, t))?;
    let json = serde_json::to_string_pretty(&ResultsFile {
        results,
        thresholds: t,
        findings,
    })?;
    write("results.json", &json)?;
    for (name, svg) in report::charts::all(results) {
        write(&name, &svg)?;
    }
    Ok(())
}
