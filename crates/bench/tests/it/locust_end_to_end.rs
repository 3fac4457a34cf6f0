//! The Locust export run for real: both servers as separate processes on
//! loopback, the exported database group (1 s windows) run by a Locust master
//! with two workers under `bench watch`, then imported. Locust's request count
//! must agree with the servers' own /metrics count within 1%, with no error.
//!
//! Needs Locust: `BENCH_LOCUST` names the executable, else the workspace's
//! `.venv-locust/bin/locust`, installed by this test from PyPI when missing
//! (so it is `#[ignore]`d: it needs python3-venv). If neither can be had
//! the test fails: it must not pass without having run.
//!
//! By default only the async server's column is run (one server, one
//! Locust master and its workers); `BENCH_E2E_FULL=1` runs the blocking
//! server's too, as the doc above says.

use crate::common::{free_port, start_server};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Locust to run: `BENCH_LOCUST`, else the workspace's `.venv-locust`,
/// which this installs from PyPI on first use (a pinned release, about 30 s),
/// so the README's `cargo test --workspace` needs nothing set up by hand.
fn locust() -> PathBuf {
    if let Some(p) = std::env::var_os("BENCH_LOCUST") {
        let p = PathBuf::from(p);
        assert!(
            p.exists(),
            "BENCH_LOCUST names {}, which does not exist",
            p.display()
        );
        return p;
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv-locust");
    let locust = venv.join("bin/locust");
    if !locust.exists() {
        // A venv left half-made by an interrupted install is made again.
        let _ = std::fs::remove_dir_all(&venv);
        let run = |program: &Path, args: &[&str]| {
            let status = Command::new(program).args(args).status();
            assert!(
                matches!(status, Ok(s) if s.success()),
                "installing Locust failed: `{} {}` ({status:?}); python3 with venv and pip is needed (Debian: apt-get install python3-venv), or set BENCH_LOCUST",
                program.display(),
                args.join(" ")
            );
        };
        run(
            Path::new("python3"),
            &["-m", "venv", venv.to_str().unwrap()],
        );
        run(&venv.join("bin/pip"), &["install", "-q", LOCUST_RELEASE]);
    }
    locust
}

/// The Locust release the exported locustfiles are tested on.
const LOCUST_RELEASE: &str = "locust==2.47.0";

/// `bench export --tool locust` of the database group (1 s windows, 8
/// connections) into `dir/export`, only the locustfiles of `kept` left.
fn export_columns(dir: &Path, kept: &[&str]) -> PathBuf {
    let export = dir.join("export");
    let o = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args([
            "export",
            "--tool",
            "locust",
            "--groups",
            "database",
            "--duration",
            "1s",
        ])
        .args(["--connections", "8", "--out"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in std::fs::read_dir(export.join("locust")).unwrap() {
        let path = file.unwrap().path();
        if !kept.iter().any(|k| path.ends_with(format!("{k}.py"))) {
            std::fs::remove_file(path).unwrap();
        }
    }
    export
}

#[test]
#[ignore = "needs python3-venv: apt-get install python3-venv (installs Locust from PyPI)"]
fn locust_master_and_two_workers_count_what_the_servers_count() {
    // Arrange: the servers as their own processes, each on a fresh database
    // and key prefix (the harness's launcher gives them).
    let _machine = harness::exclusive();
    let locust = locust();
    let full = std::env::var_os("BENCH_E2E_FULL").is_some_and(|v| v == "1");
    let blocking = full.then(|| start_server("blocking", &[]));
    let asynchronous = start_server("async", &[]);
    let kept: &[&str] = if full {
        &["blocking-users", "async-users"]
    } else {
        &["async-users"]
    };

    // The exported database group, 1 s windows; its plain columns kept.
    let tmp = tempfile::tempdir().unwrap();
    let export = export_columns(tmp.path(), kept);

    // Act: the exported script, as a user would run it.
    let run = Command::new("sh")
        .arg(export.join("run-locust.sh"))
        .env("LOCUST", &locust)
        .env("BENCH", env!("CARGO_BIN_EXE_bench"))
        .env("WORKERS", "2")
        .env("MASTER_PORT", free_port().to_string())
        .env(
            "BLOCKING_URL",
            blocking
                .as_ref()
                .map_or("http://127.0.0.1:1", |b| b.url.as_str()),
        )
        .env("ASYNC_URL", &asynchronous.url)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "run-locust.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );

    // Assert: per column, Locust's count within 1% of the server's, no errors.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(export.join("report/results.json")).unwrap())
            .unwrap();
    let columns = json["groups"][0]["columns"].as_array().unwrap();
    assert_eq!(columns.len(), kept.len());
    for c in columns {
        let r = &c["rounds"][0];
        let sent = r["load"]["total_requests"].as_u64().unwrap();
        let counted = r["server_counted_requests"].as_u64().unwrap();
        eprintln!("{}: Locust {sent}, server /metrics {counted}", c["id"]);
        assert!(sent > 100, "{}: only {sent} requests", c["id"]);
        let off = (sent as f64 - counted as f64).abs() / counted as f64;
        assert!(
            off <= 0.01,
            "{}: Locust {sent} vs server {counted}",
            c["id"]
        );
        assert_eq!(r["load"]["errors"], 0, "{}", c["id"]);
        assert!(r["server_process"]["peak_threads"].as_u64().unwrap() > 0);
    }
}
