//! A run's files, read and written in this one place (bench-report, which
//! makes their text, touches no file): the run judged with this build's
//! thresholds, results.json (bench-model's writer) and the report files
//! (bench-report's). A finished run, an interrupted one and `bench import`
//! all end in [`judge_and_write`]; `bench render` writes only the report
//! files of a saved run ([`write_report`]), never its results.json; `bench
//! compare --out` writes the comparison's ([`write_files`]). A saved run is
//! read by [`saved`]; README.md's and docs/' tables by [`doc_tables`].

pub mod doc_tables;
pub mod saved;

use std::path::{Path, PathBuf};

use anyhow::Context;
use bench_model::{Finding, RunResults, Thresholds, THRESHOLDS};

/// Whether the terminal report is printed on stdout before the files are
/// written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    Print,
    Quiet,
}

/// Judges `results` with this build's thresholds, prints the terminal
/// report when `echo` says so, and writes every file of the run into
/// `dir`: results.json with the findings, then the report files.
pub fn judge_and_write(dir: &Path, results: &RunResults, echo: Echo) -> anyhow::Result<()> {
    let t = THRESHOLDS;
    let findings = bench_analysis::findings::check(results, &t);
    if echo == Echo::Print {
        print!("{}", bench_report::text::render(results, &findings, &t));
    }
    let json = bench_model::results_file::to_json(results, &t, &findings)?;
    write_file(dir, "results.json", &json)?;
    write_report(dir, results, &findings, &t)
}

/// The report files of a run (report.md, report.html and the charts),
/// without its results.json: what `bench render` writes for a saved run.
pub fn write_report(
    dir: &Path,
    results: &RunResults,
    findings: &[Finding],
    t: &Thresholds,
) -> anyhow::Result<()> {
    write_files(
        dir,
        &bench_report::files::report_files(results, findings, t),
    )?;
    Ok(())
}

/// Each (file name, text) of `files` into `dir`, the folder made if
/// missing; the paths written, in order.
pub fn write_files(dir: &Path, files: &[(String, String)]) -> anyhow::Result<Vec<PathBuf>> {
    files
        .iter()
        .map(|(name, text)| write_file(dir, name, text))
        .collect()
}

/// `text` into `dir/name`, the folder made if missing; the path written.
fn write_file(dir: &Path, name: &str, text: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
