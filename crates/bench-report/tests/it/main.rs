//! bench-report's integration tests, one test binary (each file under
//! tests/ would be a binary of its own, linked and run apart): the report
//! and findings from fixed runs, the run at a glance, report.html, two runs
//! compared, every saved run of docs/results, the doc tables, what goes
//! wrong, and that this crate links no server and touches no file. None starts a process but
//! `cargo tree`; none needs a runtime. The fixed runs are bench-model's
//! fixtures; the saved ones are read here, as bench reads them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod compare;
mod doc_tables;
mod equal_load;
mod glance;
mod honest_figures;
mod html_rendering;
mod links_no_server;
mod no_file_io;
mod report_rendering;
mod same_verdict;
mod saved_renders;
mod saved_runs;
mod wrongs;

use std::path::{Path, PathBuf};

use bench_analysis::findings::check;
use bench_model::fixtures::{read_run, saved_run, saved_runs};
use bench_model::{Finding, RunResults, Verdict, THRESHOLDS};

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The finding `id` of `run`, as this build judges it.
fn finding(run: &RunResults, id: &str) -> Finding {
    let findings = check(run, &THRESHOLDS);
    findings.into_iter().find(|f| f.id == id).unwrap()
}

/// [`finding`], failing with its evidence unless judged `expected`.
#[track_caller]
fn judged(run: &RunResults, id: &str, expected: Verdict) -> Finding {
    let f = finding(run, id);
    assert_eq!(f.verdict, expected, "{id}: {}", f.evidence);
    f
}

/// Fails, showing what was rendered, unless `text` is `lines` joined by
/// newlines.
#[track_caller]
fn assert_lines(text: &str, lines: &[&str]) {
    assert_eq!(text, lines.join("\n"), "got:\n{text}");
}
