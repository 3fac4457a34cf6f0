//! Writes a run's files: results.json (with the findings, through
//! bench-model) and the report files (made by bench-report).

use std::path::Path;

use anyhow::Context;
use bench_model::{Finding, RunResults, Thresholds};

/// Every file of a run: results.json, then the report files.
pub fn write_all(
    dir: &Path,
    results: &RunResults,
    findings: &[Finding],
    t: &Thresholds,
) -> anyhow::Result<()> {
    let json = bench_model::results_file::to_json(results, t, findings)?;
    write_file(dir, "results.json", &json)?;
    write_report(dir, results, findings, t)
}

/// `text` into `dir/name`, the folder made if missing.
fn write_file(dir: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The report files of a run (report.md, report.html and the charts),
/// without its results.json: what `bench render` writes for a saved run.
pub fn write_report(
    dir: &Path,
    results: &RunResults,
    findings: &[Finding],
    t: &Thresholds,
) -> anyhow::Result<()> {
    for (name, text) in bench_report::files::report_files(results, findings, t) {
        write_file(dir, &name, &text)?;
    }
    Ok(())
}
