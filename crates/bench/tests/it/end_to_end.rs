//! The whole pipeline on a tiny profile: real servers (children of the bench
//! binary), real Postgres and Redis, every group and column.
//!
//! By default every column is measured in one round of short windows (0.15 s,
//! warm-ups of 20 ms), and the interleaving and rotation of rounds is
//! checked in two rounds of one group of each kind (a load group, the idle
//! group, a sweep) at the tiny profile's sizes.
//! `BENCH_E2E_FULL=1` measures every column in two rounds, checking the
//! rotation in every group (about 110 s on 2 cores).

use std::process::Command;

use crate::common::{column, run_bench, strings, Run};

/// Whether to run at the full size (`BENCH_E2E_FULL=1`).
fn full() -> bool {
    std::env::var_os("BENCH_E2E_FULL").is_some_and(|v| v == "1")
}

#[test]
fn tiny_profile_measures_every_column_on_fresh_servers() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    // By default one round of short windows: what is checked here is that
    // every column runs and every figure is read, not what the figures are.
    let (rounds, shorter): (u32, &[&str]) = if full() {
        (2, &[])
    } else {
        (1, &["--duration", "150ms", "--warm-up", "20ms"])
    };
    let rounds_arg = rounds.to_string();
    let mut args = vec!["--profile", "tiny", "--rounds", &rounds_arg];
    args.extend(shorter);
    let Run {
        stdout,
        dir: run_dir,
        json,
        _out: _keep_the_folder,
        ..
    } = run_bench(&args, &[]);
    // Every group the tiny profile loads: all but the seed profile's pool
    // sweep, and the calibration groups, which only the seed profile runs
    // unless asked (java_calibration.rs runs them).
    let tiny: Vec<bench_model::GroupId> = bench_model::GroupId::ALL
        .iter()
        .copied()
        .filter(|g| *g != bench_model::GroupId::PoolSweep && !g.is_calibration())
        .collect();
    every_column_was_measured(&json, &tiny, rounds);
    assert_eq!(
        json["skipped"][0]["group"], "pool-sweep",
        "{}",
        json["skipped"]
    );
    // The blocking server runs its 200 handler threads from the start; the async one far fewer.
    let idle = |cid: &str| {
        column(&json, cid)["rounds"][0]["server_process"]["idle_threads"]
            .as_u64()
            .unwrap()
    };
    assert!(idle("blocking-health") >= 200);
    assert!(idle("async-health") < 100);
    detectors_were_read(&json);
    // The findings saved are the ones its rounds give, every one of them.
    // (Ids and verdicts: a float read back from JSON may differ in its last bit.)
    let saved: bench_model::SavedRun = serde_json::from_value(json.clone()).unwrap();
    let verdicts = |findings: &[bench_model::Finding]| -> Vec<(String, bench_model::Verdict)> {
        findings.iter().map(|f| (f.id.clone(), f.verdict)).collect()
    };
    let rechecked = bench_analysis::findings::check(&saved.results, &saved.thresholds);
    assert_eq!(verdicts(&saved.findings), verdicts(&rechecked));
    // Every finding says its kind, and the run how it split the CPU.
    assert!(saved.findings.iter().all(|f| f.kind.is_some()));
    assert!(saved.results.cpu_accounting.is_some());
    cold_start_probe_ran(json["groups"].as_array().unwrap());
    for file in [
        "report.md",
        "cpu-throughput.svg",
        "cpu-p99.svg",
        "mixed-latency-over-time.svg",
        "idle-rss.svg",
    ] {
        assert!(run_dir.join(file).exists(), "{file} missing");
    }
    assert!(stdout.contains("Threads idle -> peak"), "{stdout}");
    let per_column = format!(
        "{rounds} round{} per column",
        if rounds == 1 { "" } else { "s" }
    );
    assert!(stdout.contains(&per_column), "{stdout}");
    assert!(stdout.contains("Findings"), "{stdout}");
    // The closing summary: the run at a glance, after the findings, a
    // row per workload (each with the three models), within 100 columns.
    let glance = &stdout[stdout
        .rfind("\nAt a glance: ")
        .expect("no matrix at a glance")..];
    assert!(stdout.rfind("\nFindings").unwrap() < stdout.len() - glance.len());
    let header = glance.lines().find(|l| l.starts_with("workload ")).unwrap();
    assert!(
        header.contains("thread pool")
            && header.contains("event loop")
            && header.contains("virtual threads")
    );
    for name in ["CPU-bound", "Database, local", "Redis", "Idle connections"] {
        assert!(
            glance.lines().any(|l| l.starts_with(name)),
            "no row {name}:\n{glance}"
        );
    }
    assert!(glance.lines().all(|l| l.chars().count() <= 100), "{glance}");
}

#[test]
fn rounds_interleave_and_rotate_in_a_load_group_the_idle_group_and_a_sweep() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    use bench_model::GroupId;
    // Each kind of group has its own round loop: one of each, two rounds.
    let groups = [GroupId::Json, GroupId::Idle, GroupId::SweepUsers];
    let Run { stdout, json, .. } = run_bench(
        &[
            "--profile",
            "tiny",
            "--rounds",
            "2",
            "--groups",
            "json,idle,sweep-users",
        ],
        &[],
    );
    every_column_was_measured(&json, &groups, 2);
    assert!(stdout.contains("2 rounds per column"), "{stdout}");
}

/// Every group of `planned` ran, in order, each column (the idle group's
/// servers) in `rounds` interleaved rounds on fresh servers, each round
/// with its figures read.
fn every_column_was_measured(
    json: &serde_json::Value,
    planned: &[bench_model::GroupId],
    rounds: u32,
) {
    let groups = json["groups"].as_array().unwrap();
    let ids = strings(&json["groups"], "id");
    let want: Vec<&str> = planned.iter().map(|g| g.as_str()).collect();
    assert_eq!(ids, want);
    assert_eq!(json["settings"]["rounds"], rounds);
    let cores = json["machine"]["cores"].as_f64().unwrap();
    let mut load_generator_total = 0.0;
    let matrix = bench::plan::groups();
    for g in groups {
        let planned = matrix.iter().find(|p| p.id.as_str() == g["id"]).unwrap();
        if planned.id == bench_model::GroupId::Idle {
            idle_group_was_measured(g, planned, rounds);
            continue;
        }
        let cols = g["columns"].as_array().unwrap();
        assert_eq!(cols.len(), planned.columns.len(), "group {}", planned.id);
        for (i, c) in cols.iter().enumerate() {
            rounds_are_interleaved_and_rotated(g, c, (i, cols.len()), rounds);
            for r in c["rounds"].as_array().unwrap() {
                load_generator_total += round_was_measured(c["id"].as_str().unwrap(), r, cores);
            }
        }
        let g: bench_model::GroupResult = serde_json::from_value(g.clone()).unwrap();
        let planned_windows = bench::plan::EQUAL_LOAD_GROUPS.contains(&g.id);
        assert_eq!(g.equal_load.is_some(), planned_windows, "group {}", g.id);
        for c in g.equal_load.iter().flat_map(|e| &e.columns) {
            // Every ranked column at the rate in every round (equal_load.rs
            // checks the rate they reached).
            assert_eq!(c.rounds.len() as u32, rounds, "{} at equal load", c.id);
        }
    }
    // bench ran the load generator in every window: over the run it used CPU.
    assert!(load_generator_total > 0.0);
}

/// Column `i` of `n`'s position in round `round` (1-based): the order
/// rotates by one more place each round (`plan::round_order`).
fn position(i: u64, n: u64, round: u64) -> u64 {
    (i + n - (round - 1) % n) % n
}

/// A column's rounds: `rounds` of them, interleaved and rotated (position
/// i in round 1, one place earlier in each round after); a sweep column's
/// one round per step per column round, the steps ascending within each.
fn rounds_are_interleaved_and_rotated(
    g: &serde_json::Value,
    c: &serde_json::Value,
    (i, n): (usize, usize),
    rounds_run: u32,
) {
    let id = c["id"].as_str().unwrap();
    assert!(c["failure"].is_null(), "{id}: {}", c["failure"]);
    let rounds = c["rounds"].as_array().unwrap();
    let steps: Vec<u64> = g["sweep"]["steps"]
        .as_array()
        .map_or(vec![], |s| s.iter().map(|n| n.as_u64().unwrap()).collect());
    let per_round = steps.len().max(1);
    let field =
        |name: &str| -> Vec<u64> { rounds.iter().map(|r| r[name].as_u64().unwrap()).collect() };
    let repeat = |per: fn(u64) -> u64| -> Vec<u64> {
        (1..=u64::from(rounds_run))
            .flat_map(|round| std::iter::repeat_n(per(round), per_round))
            .collect()
    };
    assert_eq!(field("round"), repeat(|round| round), "{id}");
    let (i, n) = (i as u64, n as u64);
    let positions: Vec<u64> = (1..=u64::from(rounds_run))
        .flat_map(|round| std::iter::repeat_n(position(i, n, round), per_round))
        .collect();
    assert_eq!(field("position"), positions, "{id}");
    if !steps.is_empty() {
        let at: Vec<u64> = rounds
            .iter()
            .map(|r| r["step"]["connections"].as_u64().unwrap())
            .collect();
        assert_eq!(at, steps.repeat(rounds_run as usize), "{id}");
    }
}

/// One round's figures were read: requests, the server from /proc, the
/// machine's CPU split. Returns the load generator's CPU seconds.
fn round_was_measured(id: &str, r: &serde_json::Value, cores: f64) -> f64 {
    assert!(r["load"]["total_requests"].as_u64().unwrap() > 0, "{id}");
    let unfinished = r["load"]["errors_by_kind"]["unfinished"]
        .as_u64()
        .unwrap_or(0);
    if r["step"].is_null() {
        // Only a sweep step cuts requests off at its window's end.
        assert_eq!(unfinished, 0, "{id}");
    } else {
        assert_eq!(Some(unfinished), r["step"]["unfinished"].as_u64(), "{id}");
    }
    let p = &r["server_process"];
    assert!(p["samples"].as_u64().unwrap() > 0, "{id}");
    assert!(
        p["idle_threads"].as_u64().unwrap() >= 2,
        "{id}: idle threads not read"
    );
    assert!(
        p["peak_threads"].as_u64() >= p["idle_threads"].as_u64(),
        "{id}: {p}"
    );
    assert!(
        p["idle_rss_bytes"].as_u64().unwrap() > 1 << 20,
        "{id}: idle RSS not read"
    );
    assert!(
        p["peak_rss_bytes"].as_u64() >= p["idle_rss_bytes"].as_u64(),
        "{id}: {p}"
    );
    let window = r["cpu"]["window_seconds"].as_f64().unwrap();
    assert!(window > 0.0, "{id}");
    // It cannot have used more than every core for the whole window.
    let load_generator = r["cpu"]["load_generator_seconds"].as_f64().unwrap();
    assert!(
        load_generator <= window * cores + 0.05,
        "{id}: {}",
        r["cpu"]
    );
    // Every window keeps its ticks, and its named parts but steal add up
    // to at most the machine's busy time (two ticks per part allowed).
    let ticks: bench_model::WindowTicks =
        serde_json::from_value(r["cpu"]["ticks"].clone()).unwrap();
    assert_eq!(ticks.excess(), None, "{id}: {ticks:?}");
    load_generator
}

/// Each server's stall detector was read around the window: the async
/// server's polls of the column's route, the blocking server's queue wait;
/// tiny_http gives none. The stall group's proxies were accounted.
fn detectors_were_read(json: &serde_json::Value) {
    let detector = |cid: &str| column(json, cid)["rounds"][0]["detector"].clone();
    let async_health = &detector("async-health")["routes"][0];
    assert_eq!(async_health["route"], "/health");
    assert!(
        async_health["polls"].as_u64().unwrap() > 0,
        "{async_health}"
    );
    assert!(detector("async-health")["event_loop_lag_p99_ms"].is_f64());
    let blocking_health = &detector("blocking-health")["routes"][0];
    assert!(
        blocking_health["queue_wait_p99_ms"].is_f64(),
        "{blocking_health}"
    );
    assert!(blocking_health["polls"].is_null());
    assert!(detector("blocking-health-tiny-http").is_null());
    // Every window of the groups behind proxies (the stall group's and the
    // remote-database groups') went through them, and the proxies are their
    // own line in the CPU split: over those groups they used some.
    let proxied = ["stalls", "remote-db", "remote-mixed"];
    let proxies: f64 = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| proxied.iter().any(|id| g["id"] == *id))
        .flat_map(|g| g["columns"].as_array().unwrap())
        .flat_map(|c| c["rounds"].as_array().unwrap())
        .map(|r| r["cpu"]["proxy_seconds"].as_f64().unwrap())
        .sum();
    assert!(proxies > 0.0, "no proxy CPU in the groups behind proxies");
    // Every window of the remote-database group read the proxy in front
    // of Postgres: it carried the window's queries.
    for c in json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["id"] == "remote-db")
        .flat_map(|g| g["columns"].as_array().unwrap())
    {
        for r in c["rounds"].as_array().unwrap() {
            let exchanges = r["postgres_proxy"]["exchanges"].as_u64();
            assert!(exchanges > Some(0), "{}: {r}", c["id"]);
        }
    }
}

/// The baseline group's cold-start probe ran once on each probed server.
fn cold_start_probe_ran(groups: &[serde_json::Value]) {
    let baseline = groups.iter().find(|g| g["id"] == "baseline").unwrap();
    let probed: Vec<(&str, usize)> = baseline["cold_start"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["starts"][0].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        probed,
        [("blocking-health-tiny-http", 64), ("blocking-health", 64)]
    );
}

/// The idle group of a tiny run: every server in every round, rotated, the
/// tiny profile's 100 idle connections opened and closed again in each.
fn idle_group_was_measured(g: &serde_json::Value, planned: &bench::plan::Group, rounds_run: u32) {
    assert_eq!(g["columns"].as_array().unwrap().len(), 0);
    let servers = g["idle"]["servers"].as_array().unwrap();
    assert_eq!(servers.len(), planned.columns.len());
    for (i, s) in servers.iter().enumerate() {
        let id = s["id"].as_str().unwrap();
        assert!(s["failure"].is_null(), "{id}: {}", s["failure"]);
        let rounds = s["rounds"].as_array().unwrap();
        let positions: Vec<u64> = rounds
            .iter()
            .map(|r| r["position"].as_u64().unwrap())
            .collect();
        let n = servers.len() as u64;
        let want: Vec<u64> = (1..=u64::from(rounds_run))
            .map(|round| position(i as u64, n, round))
            .collect();
        assert_eq!(positions, want, "{id}");
        for r in rounds {
            assert_eq!(r["steps"][0]["opened"], 100, "{id}: {r}");
            assert!(r["steps"][0]["failure"].is_null(), "{id}: {r}");
            assert!(r["closed_within_ms"].as_f64().is_some(), "{id}: {r}");
        }
    }
}

#[test]
fn a_column_after_a_burst_does_not_inherit_its_memory() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    // The database group's burst of 3,000 connections grows the async
    // server's RSS by tens of MiB (the allocator keeps what the connections
    // used); the baseline group's /health column comes after it.
    let Run { json, .. } = run_bench(
        &[
            "--profile",
            "tiny",
            "--groups",
            "database,baseline",
            "--requests",
            "3000",
            "--rounds",
            "1",
            // Not the baseline group's cold-start probe: not the point here.
            "--cold-starts",
            "0",
        ],
        &[],
    );
    let figures = |id: &str| {
        let p = &column(&json, id)["rounds"][0]["server_process"];
        (
            p["idle_rss_bytes"].as_u64().unwrap(),
            p["peak_rss_bytes"].as_u64().unwrap(),
        )
    };
    let (burst_idle, burst_peak) = figures("async-users");
    let (health_idle, health_peak) = figures("async-health");
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    assert!(
        burst_peak > burst_idle + (20 << 20),
        "the burst should grow RSS by more than 20 MiB: {:.1} -> {:.1} MiB",
        mib(burst_idle),
        mib(burst_peak)
    );
    assert!(
        health_peak < burst_peak / 2 && health_idle < burst_idle + (5 << 20),
        "/health after the burst: {:.1} -> {:.1} MiB, the burst's: {:.1} -> {:.1} MiB",
        mib(health_idle),
        mib(health_peak),
        mib(burst_idle),
        mib(burst_peak)
    );
}

/// A stand-in server: /health answers 200 (so bench accepts it as a
/// target), every other request 503. Serves for at most 60 s.
fn failing_server() -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        for stream in listener.incoming() {
            if std::time::Instant::now() > until {
                break;
            }
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                // One request head at a time: a client may send it in pieces.
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    head.extend_from_slice(&buf[..n]);
                    if !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        continue;
                    }
                    let buf = std::mem::take(&mut head);
                    let n = buf.len();
                    let status = if buf.starts_with(b"GET /health ") {
                        "200 OK"
                    } else {
                        "503 Service Unavailable"
                    };
                    let body = "{}";
                    let answer = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/json\r\n\r\n{body}", body.len());
                    let close = buf[..n]
                        .windows(17)
                        .any(|w| w.eq_ignore_ascii_case(b"connection: close"));
                    if s.write_all(answer.as_bytes()).is_err() || close {
                        break;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn a_column_where_nothing_succeeds_keeps_its_rounds_at_zero_with_their_errors() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let addr = failing_server();
    let url = format!("http://{addr}");
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args([
            "--profile",
            "tiny",
            "--groups",
            "json",
            "--rounds",
            "2",
            "--strict",
        ])
        .args(["--async-url", &url, "--out"])
        .arg(out_dir.path())
        .output()
        .expect("run bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // --strict: a column that saw errors fails the run, after the report
    // is written, naming the errors.
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stderr.contains("bench: --strict: async-echo: ") && stderr.contains("503"),
        "{stderr}"
    );
    let (_, json): (_, serde_json::Value) = crate::common::run_folder(out_dir.path(), &stderr);
    // Not failed: each round is a round at 0 successful requests per
    // second, its errors kept by kind, for the findings to count.
    let none = column(&json, "async-echo");
    assert!(none["failure"].is_null(), "{}", none["failure"]);
    let rounds = none["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    for r in rounds {
        assert_eq!(r["load"]["ok_requests"], 0, "{r}");
        assert_eq!(r["load"]["successful_throughput_rps"], 0.0, "{r}");
        assert!(
            r["load"]["errors_by_kind"]["status_503"].as_u64().unwrap() > 0,
            "{r}"
        );
    }
    assert!(
        stderr.contains("(no request succeeded: a round at 0 req/s)"),
        "{stderr}"
    );
    // The blocking column, on a server bench started, was measured as usual.
    assert_eq!(
        column(&json, "blocking-echo")["rounds"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn without_postgres_and_redis_the_groups_that_need_neither_still_run() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
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

    let ran = strings(&json["groups"], "id");
    assert_eq!(ran, ["cpu"]);
    let skipped = strings(&json["skipped"], "group");
    assert_eq!(skipped, ["database", "cache"]);
    for c in json["groups"][0]["columns"].as_array().unwrap() {
        for r in c["rounds"].as_array().unwrap() {
            assert!(r["load"]["total_requests"].as_u64().unwrap() > 0);
            assert_eq!(r["load"]["errors"].as_u64(), Some(0));
        }
    }
    assert!(stdout.contains("Skipped database:"), "{stdout}");
}
