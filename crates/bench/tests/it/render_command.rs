//! `bench render` as a user runs it: every run saved under docs/results
//! renders into a folder of its own and stays a record (the saved files
//! byte for byte what they were, no results.json written beside the report,
//! the report showing every finding the run was saved with); it refuses to
//! write over the saved run (one line on stderr, exit 2), and a
//! results.json of another shape is refused before anything is written.
//! (What a saved run renders to is bench-report's `saved_runs` test.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bench_model::fixtures::saved_runs;

/// Every file of a folder (not below it) with its bytes.
fn files_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn every_saved_run_renders_into_its_own_folder_and_stays_as_saved() {
    let runs = saved_runs();
    assert!(runs.len() >= 3, "found only {runs:?}");
    for results in runs {
        let saved_dir = results.parent().unwrap();
        let before = files_of(saved_dir);
        let out = tempfile::tempdir().unwrap();
        let run = Command::new(env!("CARGO_BIN_EXE_bench"))
            .arg("render")
            .arg(&results)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{}: {stderr}", results.display());

        // The saved files are as they were; nothing was added beside them.
        assert_eq!(
            files_of(saved_dir),
            before,
            "{} changed",
            saved_dir.display()
        );
        // The report shows every finding the run was saved with, with its verdict.
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
        let findings = saved["findings"].as_array().unwrap();
        assert!(!findings.is_empty());
        for f in findings {
            let row = format!(
                "| {} | {} |",
                f["verdict"].as_str().unwrap(),
                f["claim"].as_str().unwrap()
            );
            assert!(report.contains(&row), "{}: no row {row}", results.display());
        }
        assert!(out.path().join("report.html").is_file(), "no report.html");
        // No results.json is written for a saved run: the saved one is the record.
        assert!(!out.path().join("results.json").exists());
    }
}

#[test]
fn render_refuses_to_write_over_the_saved_run_and_reads_only_its_shape() {
    let results = &saved_runs()[0];
    let run = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("render")
        .arg(results)
        .arg("--out")
        .arg(results.parent().unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not written over"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("results.json");
    std::fs::write(&other, r#"{"schema_version": 99, "groups": []}"#).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("render")
        .arg(&other)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("schema version 99"), "{stderr}");
    assert!(!dir.path().join("rendered").exists());
}
