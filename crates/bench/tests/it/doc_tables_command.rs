//! `bench doc-tables --check` from the workspace: every table of figures
//! in README.md and docs/ is the one its saved run (or, for the profiles',
//! loads', thresholds' and flags' tables, the code) gives.

use std::process::Command;

use crate::common::workspace_root;

#[test]
fn the_tables_in_readme_and_docs_are_their_runs() {
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["doc-tables", "--check"])
        .current_dir(workspace_root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
}
