//! `bench doc-tables --check` from the workspace: every table of figures
//! in README.md and docs/ is the one its saved run (or, for the profiles'
//! and loads' tables, the code) gives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

use std::path::Path;
use std::process::Command;

fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

#[test]
fn the_tables_in_readme_and_docs_are_their_runs() {
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["doc-tables", "--check"])
        .current_dir(workspace())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
}
