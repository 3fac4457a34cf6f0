//! The whole pipeline on a tiny profile: real servers (children of the bench
//! binary), real Postgres and Redis, every group and column.

use std::path::PathBuf;
use std::process::Command;

/// What one finished bench run left: its stdout, stderr, run folder and results.json.
struct Run {
    stdout: String,
    stderr: String,
    dir: PathBuf,
    json: serde_json::Value,
    _out: tempfile::TempDir,
}

/// Runs the bench binary with `args` (and `--out` a temporary folder) and the
/// extra environment `env`; panics with its output unless it succeeded.
fn run_bench(args: &[&str], env: &[(&str, &str)]) -> Run {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .arg("--out")
        .arg(out_dir.path())
        .envs(env.iter().copied())
        .output()
        .expect("run bench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "bench failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let dir = std::fs::read_dir(out_dir.path())
        .unwrap()
        .next()
        .expect("a run folder")
        .unwrap()
        .path();
    let json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    Run {
        stdout,
        stderr,
        dir,
        json,
        _out: out_dir,
    }
}

#[test]
fn tiny_profile_fills_every_group_and_column() {
    let Run {
        stdout,
        dir: run_dir,
        json,
        _out: _keep_the_folder,
        ..
    } = run_bench(&["--profile", "tiny"], &[]);
    let expected_groups = [
        "cpu", "database", "cache", "slow", "baseline", "json", "ramp", "mixed",
    ];
    let groups = json["groups"].as_array().unwrap();
    let ids: Vec<&str> = groups.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, expected_groups);
    let plan = bench::plan::groups();
    for (g, planned) in groups.iter().zip(&plan) {
        let cols = g["columns"].as_array().unwrap();
        assert_eq!(cols.len(), planned.columns.len(), "group {}", planned.id);
        for c in cols {
            let id = c["id"].as_str().unwrap();
            assert!(
                c["load"]["total_requests"].as_u64().unwrap() > 0,
                "{id}: no requests"
            );
            assert_eq!(
                c["load"]["errors"].as_u64(),
                Some(0),
                "{id}: errors {}",
                c["load"]["errors_by_kind"]
            );
            let threads = c["server_process"]["peak_threads"].as_u64().unwrap();
            assert!(
                threads >= 2,
                "{id}: peak threads {threads} not read from /proc"
            );
            assert!(c["server_process"]["samples"].as_u64().unwrap() > 0, "{id}");
        }
    }
    // The blocking server runs its 200 handler threads; the async one far fewer.
    let peak = |gid: &str, cid: &str| -> u64 {
        groups.iter().find(|g| g["id"] == gid).unwrap()["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == cid)
            .unwrap()["server_process"]["peak_threads"]
            .as_u64()
            .unwrap()
    };
    assert!(peak("baseline", "blocking-health") >= 200);
    assert!(peak("baseline", "async-health") < 100);

    assert_eq!(json["findings"].as_array().unwrap().len(), 12);
    for file in [
        "report.md",
        "cpu-throughput.svg",
        "cpu-p99.svg",
        "mixed-latency-over-time.svg",
    ] {
        assert!(run_dir.join(file).exists(), "{file} missing");
    }
    assert!(stdout.contains("Peak Thread Count"), "{stdout}");
    assert!(stdout.contains("Findings"), "{stdout}");
}

#[test]
fn without_postgres_and_redis_the_groups_that_need_neither_still_run() {
    // Nothing listens on port 1, and no throwaway servers may be started:
    // this is a machine without Postgres and Redis.
    let Run {
        stdout,
        stderr,
        json,
        ..
    } = run_bench(
        &["--profile", "tiny", "--groups", "cpu,database,cache"],
        &[
            ("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none"),
            ("REDIS_URL", "redis://127.0.0.1:1"),
            ("LOCAL_SERVICES_NO_THROWAWAY", "1"),
        ],
    );
    assert!(
        stderr.contains("bench: skipping database, cache (they need Postgres and Redis)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("install postgresql or set DATABASE_URL"),
        "{stderr}"
    );

    let ran: Vec<&str> = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["cpu"]);
    let skipped: Vec<&str> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["database", "cache"]);
    for c in json["groups"][0]["columns"].as_array().unwrap() {
        assert!(c["load"]["total_requests"].as_u64().unwrap() > 0);
        assert_eq!(c["load"]["errors"].as_u64(), Some(0));
    }
    assert!(stdout.contains("Skipped database:"), "{stdout}");
}
