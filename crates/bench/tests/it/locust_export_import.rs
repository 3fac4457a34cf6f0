//! `bench export --tool locust` and `bench import --tool locust` on fixed
//! inputs: the exported files say exactly the load the profile means (and
//! compile as Python: an ignored test, it needs python3), and
//! Locust CSVs written by Locust 2.47.0 (checked in under fixtures/locust,
//! from a run of the exported database group with a master and two workers)
//! come back as the same figures, mapped to their columns.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{bench, export, import, strings};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/locust")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn export_names_every_test_after_its_column_with_the_profiles_load() {
    let out = export("locust", Some("database,cpu,ramp"));

    let file =
        |id: &str| std::fs::read_to_string(out.path().join(format!("locust/{id}.py"))).unwrap();
    // Closed loop, 32 connections for 0.3 s (quick): all users at once, no count.
    let users = file("async-users");
    assert!(users.contains("COLUMN = \"async-users\""), "{users}");
    assert!(users.contains("PATH = \"/users/1\""));
    assert!(users.contains("HOST = os.environ.get(\"ASYNC_URL\", \"http://127.0.0.1:8081\")"));
    assert!(users.contains("REQUESTS_PER_USER = None"));
    assert!(users.contains("STAGES = [(0.3, 32, 32000.0)]"), "{users}");
    // Counted: 200 requests over 16 connections -> 12 each.
    let cpu = file("blocking-cpu");
    assert!(cpu.contains("PATH = \"/cpu?n=1000000\""));
    assert!(cpu.contains("HOST = os.environ.get(\"BLOCKING_URL\", \"http://127.0.0.1:8080\")"));
    assert!(cpu.contains("REQUESTS_PER_USER = 12"), "{cpu}");
    // k6 stages: 0.15 s each to 20, 40, 60, 0 users, ramped linearly.
    let ramp = file("async-users-ramp");
    assert!(
        ramp.contains(
            "STAGES = [(0.15, 20, 133.33333333333334), (0.15, 40, 133.33333333333334), (0.15, 60, 133.33333333333334), (0.15, 0, 400.0)]"
        ),
        "{ramp}"
    );
    let count = std::fs::read_dir(out.path().join("locust"))
        .unwrap()
        .count();
    // Each group's columns, virtual threads' (2 + 1 + 1 of them) and the
    // async server's other Postgres drivers (2 + 2) included.
    assert_eq!(count, 9 + 5 + 5);
    let readme = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    assert!(readme.contains("--master") && readme.contains("--worker"));
    // A column on a server variant says which flags its server needs.
    assert!(
        readme.contains(
            "- `blocking-users-tiny-http`: the blocking server started with `--connector tiny-http`\n"
        ),
        "{readme}"
    );
    assert!(!readme.contains("- `blocking-users`:"), "{readme}");
    // A virtual-thread column: the blocking server in that mode, at its own URL.
    assert!(
        readme.contains(
            "- `virtual-yielding-users`: the blocking server started with `--threads virtual --driver yielding` (at `VIRTUAL_YIELDING_URL`, default http://127.0.0.1:8083; `bench watch` it with `--blocking-url`)\n"
        ),
        "{readme}"
    );
    assert!(file("virtual-yielding-users")
        .contains("HOST = os.environ.get(\"VIRTUAL_YIELDING_URL\", \"http://127.0.0.1:8083\")"));
}

#[test]
#[ignore = "needs python3: apt-get install python3 (compiles every exported locustfile)"]
fn every_exported_locustfile_is_valid_python() {
    let out = export("locust", None);
    // Every file is valid Python (Locust itself is checked end to end).
    let mut compiled = 0;
    for entry in std::fs::read_dir(out.path().join("locust")).unwrap() {
        let path = entry.unwrap().path();
        let ok = Command::new("python3")
            .args(["-m", "py_compile"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(ok.success(), "{} does not compile", path.display());
        compiled += 1;
    }
    assert!(compiled > 10, "only {compiled} locustfiles");
}

#[test]
fn import_maps_locust_csvs_to_their_columns_exactly() {
    let out = tempfile::tempdir().unwrap();
    let f = fixtures();
    let files = [
        f.join("blocking-users_stats.csv"),
        f.join("async-users_stats.csv"),
    ];
    let json = import("locust", out.path(), &files);
    assert_eq!(json["settings"]["measured_by"], "Locust (--csv stats)");
    let group = &json["groups"][0];
    assert_eq!(group["id"], "database");
    let ids = strings(&group["columns"], "id");
    assert_eq!(ids, ["blocking-users", "async-users"]);

    let blocking = &group["columns"][0]["rounds"][0];
    assert_eq!(blocking["load"]["total_requests"], 4242);
    assert_eq!(blocking["load"]["errors"], 0);
    // Floats to 1e-9: serde_json's default parser may differ in the last bit.
    let close = |v: &serde_json::Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-9;
    assert!(close(
        &blocking["load"]["throughput_rps"],
        1908.8700082460539
    ));
    assert_eq!(blocking["load"]["latency_ms"]["p50"], 11.0);
    assert_eq!(blocking["load"]["latency_ms"]["p99"], 69.0);
    assert!(close(
        &blocking["load"]["latency_ms"]["max"],
        320.71359900010066
    ));
    let seconds: u64 = blocking["load"]["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(seconds, 4242);
    // From the watch record beside the CSV.
    assert_eq!(blocking["server_counted_requests"], 4242);
    assert_eq!(blocking["server_process"]["peak_threads"], 210);
    let asynchronous = &group["columns"][1]["rounds"][0];
    assert_eq!(asynchronous["load"]["total_requests"], 2675);
    assert_eq!(asynchronous["server_process"]["peak_threads"], 41);

    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let row = |name: &str| {
        report
            .lines()
            .find(|l| l.starts_with(&format!("| {name}")))
            .unwrap_or_else(|| panic!("no row {name}"))
            .to_owned()
    };
    assert!(
        row("Std. Dev.").contains("not measured"),
        "{}",
        row("Std. Dev.")
    );
    assert!(row("CPU: load generator").contains("not measured"));
    assert!(row("Threads idle -> peak").contains("210 -> 210"));
    assert!(report.contains("load sent and measured by Locust"));
}

#[test]
fn without_a_watch_record_the_server_rows_say_not_measured() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures().join("async-users_stats.csv"),
        tmp.path().join("async-users_stats.csv"),
    )
    .unwrap();
    let out = tmp.path().join("report");
    import("locust", &out, &[tmp.path().join("async-users_stats.csv")]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let threads = crate::common::report_row(&report, "| Threads idle -> peak");
    assert!(threads.contains("not measured"), "{threads}");
}

#[test]
fn bad_input_is_one_line_and_a_non_zero_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let wrong = tmp.path().join("results.json");
    std::fs::write(&wrong, "{\"schema_version\": 2}\n").unwrap();
    let empty = tmp.path().join("empty_stats.csv");
    std::fs::write(
        &empty,
        "Type,Name,Request Count,Failure Count,Average Response Time\n",
    )
    .unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["watch", "--column", "nope", "--out", out, "--", "true"],
            "unknown column \"nope\"",
        ),
        (
            &[
                "watch",
                "--column",
                "async-users",
                "--out",
                out,
                "--",
                "true",
            ],
            "give --async-url",
        ),
        (
            &["export", "--tool", "gatling", "--out", out],
            "unknown tool \"gatling\"",
        ),
        (
            &[
                "import",
                "--tool",
                "nope",
                "--out",
                out,
                wrong.to_str().unwrap(),
            ],
            "unknown tool \"nope\"",
        ),
        (
            &[
                "import",
                "--tool",
                "locust",
                "--out",
                out,
                wrong.to_str().unwrap(),
            ],
            "is not a Locust --csv stats file",
        ),
        (
            &[
                "import",
                "--tool",
                "locust",
                "--out",
                out,
                empty.to_str().unwrap(),
            ],
            "has no request named after a bench column",
        ),
    ];
    for (args, expected) in cases {
        let o = bench(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}
