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

use bench_model::SavedRun;

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The results.json at `path`, read and parsed.
fn read_run(path: &Path) -> SavedRun {
    let text = std::fs::read_to_string(path).unwrap();
    SavedRun::from_json(&text, &path.display().to_string()).unwrap()
}

/// The run saved in docs/results/`name`.
fn saved_run(name: &str) -> SavedRun {
    read_run(
        &workspace()
            .join("docs/results")
            .join(name)
            .join("results.json"),
    )
}

/// Every results.json saved under docs/results, sorted.
fn saved_runs() -> Vec<PathBuf> {
    let mut runs: Vec<PathBuf> = std::fs::read_dir(workspace().join("docs/results"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("results.json"))
        .filter(|p| p.is_file())
        .collect();
    runs.sort();
    runs
}
