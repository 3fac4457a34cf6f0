//! `bench compare OLD NEW` as a user runs it: on the two saved seed runs it
//! prints every finding of both with its change and exits with the code
//! their verdicts imply; a flip exits 1; `--out` writes compare.md and
//! compare.html; a bad path or a file of another shape is one line on
//! stderr and exit 2.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn seed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/results")
        .join(name)
        .join("results.json")
}

/// Runs `bench compare` with `args`: exit code, stdout, stderr.
fn compare(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The findings of a results.json: id -> verdict, read as plain JSON.
fn verdicts(path: &Path) -> BTreeMap<String, String> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The change a finding's two verdicts mean, as the comparison words it.
fn expected_change(old: Option<&String>, new: Option<&String>) -> String {
    let (Some(o), Some(n)) = (old, new) else {
        return if old.is_some() {
            "only in OLD"
        } else {
            "only in NEW"
        }
        .to_owned();
    };
    let decided = |v: &str| v == "HELD" || v == "NOT HELD";
    if o == n {
        "unchanged".to_owned()
    } else if decided(o) && decided(n) {
        format!("flipped: {o} -> {n}")
    } else if decided(o) && n == "SAME" {
        "became SAME".to_owned()
    } else if o == "SAME" && decided(n) {
        "no longer SAME".to_owned()
    } else if o == "NOT MEASURED" {
        "now measured".to_owned()
    } else if n == "NOT MEASURED" {
        "no longer measured".to_owned()
    } else if n == "INCONCLUSIVE" {
        "became INCONCLUSIVE".to_owned()
    } else {
        "now decided".to_owned()
    }
}

#[test]
fn the_two_seed_runs_print_every_finding_of_both_with_its_change() {
    let (old, new) = (seed("seed-2026-12-01"), seed("seed-2026-12-02"));
    let (code, stdout, stderr) = compare(&[&old, &new]);
    let (o, n) = (verdicts(&old), verdicts(&new));
    let mut flipped = false;
    for id in o.keys().chain(n.keys()) {
        let want = expected_change(o.get(id), n.get(id));
        flipped |= want.starts_with("flipped");
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{stdout}"));
        assert!(
            line.trim_end().ends_with(&want),
            "{id}: want {want:?} in {line:?}"
        );
    }
    assert_eq!(code, i32::from(flipped), "{stderr}");
    // The runs were measured on different CPUs: said on stderr.
    assert!(
        stderr.contains("bench compare: warning: the machine differs"),
        "{stderr}"
    );
}

#[test]
fn a_flipped_finding_exits_1_and_out_writes_both_files() {
    let old = seed("seed-2026-12-01");
    let dir = tempfile::tempdir().unwrap();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    let f = crate::common::finding_mut(&mut run, |f| f["verdict"] == "HELD");
    f["verdict"] = "NOT HELD".into();
    let id = f["id"].as_str().unwrap().to_owned();
    let new = dir.path().join("flipped.json");
    std::fs::write(&new, serde_json::to_string(&run).unwrap()).unwrap();
    let out = dir.path().join("out");

    let (code, stdout, stderr) = compare(&[&old, &new, Path::new("--out"), &out]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("{id}: flipped: HELD -> NOT HELD")),
        "{stdout}"
    );
    // Identical runs but for one verdict: nothing to warn about.
    assert_eq!(stderr, "");
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains(&format!("| {id} | HELD ")), "{md}");
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(&format!("data-id=\"{id}\"")));
    assert!(
        !html.contains("<script"),
        "compare.html must not run anything"
    );
}

/// `bench compare` on `bad` (as OLD, then as NEW): one stderr line, exit 2.
fn refused(bad: &Path, says: &str) {
    let good = seed("seed-2026-12-01");
    for args in [[bad, good.as_path()], [good.as_path(), bad]] {
        let (code, stdout, stderr) = compare(&args);
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("bench compare: "), "{stderr}");
        assert!(stderr.contains(says), "want {says:?}: {stderr}");
        assert_eq!(stdout, "");
    }
}

#[test]
fn a_missing_path_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    refused(&dir.path().join("nope.json"), "cannot read");
}

#[test]
fn a_results_json_of_another_shape_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let future = dir.path().join("future.json");
    std::fs::write(&future, r#"{"schema_version": 99}"#).unwrap();
    refused(&future, "schema version 99");
    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"schema_version": 3, "runs": []}"#).unwrap();
    refused(&other, "is not a bench results.json");
}
