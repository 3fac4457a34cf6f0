//! `bench export --tool k6` and `bench import --tool k6` on fixed inputs. k6
//! cannot be installed here, so every exported script's `options` (a JSON
//! literal) is parsed back and compared with the load the profile means,
//! and the script checked with `node --check` (an ignored test: it needs
//! node); the import reads two small summaries in
//! k6's documented formats (handleSummary data and --summary-export),
//! checked in under fixtures/k6.

use std::path::Path;
use std::process::Command;

use crate::common::{export, import, import_refused, strings, succeeded};

use serde_json::{json, Value};

/// The `options` object of an exported script.
fn options(script: &str) -> Value {
    let start = script.find("export const options = ").expect("options") + 23;
    let end = start + script[start..].find(";\n").expect("end of options");
    serde_json::from_str(&script[start..end]).expect("options is JSON")
}

#[test]
fn exported_scenarios_are_the_profiles_loads() {
    let out = export("k6", Some("database,cpu,ramp,mixed"));
    let dir = out.path().join("k6");
    let read = |id: &str| std::fs::read_to_string(dir.join(format!("{id}.js"))).unwrap();

    let users = options(&read("async-users"));
    assert_eq!(
        users["scenarios"],
        json!({"async-users": {"executor": "constant-vus", "exec": "measured", "vus": 32, "duration": "300ms"}})
    );
    assert_eq!(
        users["thresholds"]["http_reqs{scenario:async-users}"],
        json!(["count>=0"])
    );
    let cpu = options(&read("blocking-cpu"));
    assert_eq!(
        cpu["scenarios"]["blocking-cpu"],
        json!({"executor": "shared-iterations", "exec": "measured", "vus": 16, "iterations": 200, "maxDuration": "10m"})
    );
    let ramp = options(&read("blocking-users-ramp"));
    assert_eq!(
        ramp["scenarios"]["blocking-users-ramp"]["stages"],
        json!([
            {"duration": "150ms", "target": 20}, {"duration": "150ms", "target": 40},
            {"duration": "150ms", "target": 60}, {"duration": "150ms", "target": 0}
        ])
    );
    let mixed = options(&read("async-health-next-to-posts"));
    assert_eq!(
        mixed["scenarios"]["async-health-next-to-posts"]["executor"],
        "constant-arrival-rate"
    );
    assert_eq!(
        mixed["scenarios"]["async-health-next-to-posts"]["rate"],
        100
    );
    assert_eq!(
        mixed["scenarios"]["async-health-next-to-posts-background"]["vus"],
        16
    );
    let script = read("async-health-next-to-posts");
    assert!(script.contains("http.get(BASE + \"/posts/1\""), "{script}");
    assert!(script.contains("http.get(BASE + \"/health\""), "{script}");
}

#[test]
#[ignore = "needs node: apt-get install nodejs (checks every exported script with node --check)"]
fn exported_scripts_parse_as_javascript_modules() {
    let out = export("k6", Some("database,cpu,ramp,mixed"));
    let dir = out.path().join("k6");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // node parses `import` only in a module: check a .mjs copy.
        let module = out.path().join("check.mjs");
        std::fs::copy(&path, &module).unwrap();
        let mut node = Command::new("node");
        node.arg("--check").arg(&module);
        succeeded(&mut node, &path.display().to_string());
    }
}

#[test]
fn both_summary_formats_import_to_their_columns_exactly() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/k6");
    let out = tempfile::tempdir().unwrap();
    let files = [
        f.join("async-users.k6-summary.json"),
        f.join("blocking-users.summary-export.json"),
    ];
    let json = import("k6", out.path(), &files);
    assert_eq!(json["settings"]["measured_by"], "k6 (JSON summary)");
    let cols = json["groups"][0]["columns"].as_array().unwrap();
    let ids = strings(&json["groups"][0]["columns"], "id");
    assert_eq!(ids, ["blocking-users", "async-users"]);
    let b = &cols[0]["rounds"][0]["load"];
    assert_eq!(
        (b["total_requests"].as_u64(), b["errors"].as_u64()),
        (Some(4242), Some(0))
    );
    assert_eq!(b["latency_ms"]["p50"], 6.25);
    assert_eq!(b["latency_ms"]["p99"], 40.0);
    let a = &cols[1]["rounds"][0]["load"];
    assert_eq!(
        (a["total_requests"].as_u64(), a["errors"].as_u64()),
        (Some(2675), Some(3))
    );
    assert_eq!(a["duration_seconds"], 1.00352);
    assert_eq!(a["latency_ms"]["p95"], 24.8);
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let threads = crate::common::report_row(&report, "| Threads idle -> peak");
    assert!(threads.contains("not measured"), "{threads}");
}

#[test]
fn a_file_that_is_not_a_k6_summary_is_one_line_and_exit_2() {
    let csv =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/locust/async-users_stats.csv");
    let err = import_refused("k6", &csv);
    assert!(err.contains("is not a k6 JSON summary"), "{err}");
}
