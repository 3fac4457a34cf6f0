//! The report from fixed inputs: tables, ratios and findings, checked exactly.

use std::collections::BTreeMap;

use bench::findings::{check, Thresholds, THRESHOLDS};
use bench::model::*;
use bench::report::table::group_table;
use bench::report::text::render_table;

fn column(id: &str, server: &str, rps: f64, p99: f64, threads: u64) -> ColumnResult {
    ColumnResult {
        id: id.into(),
        label: id.into(),
        server: server.into(),
        method: "GET".into(),
        path: "/x".into(),
        background_path: None,
        load: LoadStats {
            total_requests: (rps * 10.0) as u64,
            errors: 0,
            errors_by_kind: BTreeMap::new(),
            duration_seconds: 10.0,
            throughput_rps: rps,
            latency_ms: Latency {
                avg: p99 / 2.0,
                min: 1.0,
                max: p99 * 2.0,
                stdev: 3.0,
                p50: p99 / 2.0,
                p95: p99 * 0.9,
                p99,
            },
            timeline: vec![],
            client_cpu_seconds: 1.0,
        },
        background_load: None,
        server_process: ServerStats {
            threads_before: 3,
            peak_threads: threads,
            peak_rss_bytes: 64 * 1024 * 1024,
            cpu_seconds: 2.5,
            samples: 100,
        },
        server_counted_requests: Some((rps * 10.0) as u64),
    }
}

fn group(id: &str, columns: Vec<ColumnResult>) -> GroupResult {
    GroupResult {
        id: id.into(),
        title: id.into(),
        load: "test load".into(),
        columns,
    }
}

fn results(groups: Vec<GroupResult>) -> RunResults {
    RunResults {
        schema_version: SCHEMA_VERSION,
        started_at: "2026-11-30T00:00:00Z".into(),
        wall_seconds: 1.0,
        machine: Machine {
            cores: 2,
            cpu_model: "Test CPU".into(),
            memory_bytes: 1 << 30,
            os: "Linux".into(),
            load_average_at_start: 0.5,
        },
        settings: RunSettings {
            profile: "quick".into(),
            cold_start: false,
            blocking_handler_threads: 200,
            async_worker_threads: 2,
            async_blocking_threads: 20,
            async_rayon_threads: 2,
            db_pool_size: 10,
            redis_pool_size: 10,
            loadgen_threads: 2,
            cpu_n: 1000,
            targets: "started by bench".into(),
        },
        groups,
        skipped: vec![],
    }
}

#[test]
fn group_table_has_seed_000_rows_and_ratios_to_the_first_column() {
    let g = group(
        "cpu",
        vec![
            column("blocking-cpu", "blocking", 200.0, 40.0, 210),
            column("async-cpu", "async", 100.0, 120.0, 5),
        ],
    );
    let text = render_table(&group_table(&g));
    let expected = [
        "                    blocking-cpu      async-cpu",
        "-----------------------------------------------",
        "Total Requests              2000   1000 (0.50x)",
        "Average (ms)                20.0   60.0 (3.00x)",
        "Min (ms)                    1.00   1.00 (1.00x)",
        "Max (ms)                    80.0    240 (3.00x)",
        "Std. Dev. (ms)              3.00   3.00 (1.00x)",
        "Error Rate                 0.00%          0.00%",
        "Throughput (req/s)         200.0  100.0 (0.50x)",
        "Peak Thread Count            210      5 (0.02x)",
        "p50 (ms)                    20.0   60.0 (3.00x)",
        "p95 (ms)                    36.0    108 (3.00x)",
        "p99 (ms)                    40.0    120 (3.00x)",
        "Peak RSS (MiB)              64.0   64.0 (1.00x)",
        "Server CPU (s)              2.50   2.50 (1.00x)",
        "",
    ]
    .join("\n");
    assert_eq!(text, expected, "got:\n{text}");
}

#[test]
fn unsampled_servers_show_not_applicable() {
    let mut c = column("async-health", "async", 10.0, 1.0, 0);
    c.server_process.samples = 0;
    let t = group_table(&group("baseline", vec![c]));
    let row = t.rows.iter().find(|r| r[0] == "Peak Thread Count").unwrap();
    assert_eq!(row[1], "n/a");
}

fn verdicts(r: &RunResults, t: &Thresholds) -> Vec<(String, Option<bool>)> {
    check(r, t).into_iter().map(|f| (f.id, f.held)).collect()
}

#[test]
fn findings_follow_the_numbers() {
    let r = results(vec![
        group(
            "cpu",
            vec![
                column("blocking-cpu", "blocking", 200.0, 40.0, 210),
                column("async-cpu", "async", 100.0, 120.0, 5),
                column("async-cpu-rayon", "async", 180.0, 45.0, 7), // 0.90x: within 15%
                column("async-cpu-spawn-blocking", "async", 150.0, 60.0, 30),
            ],
        ),
        group(
            "database",
            vec![
                column("blocking-users", "blocking", 1000.0, 50.0, 210),
                column("async-users", "async", 2500.0, 20.0, 5),
                column("async-users-blocking", "async", 300.0, 200.0, 14),
                column("async-users-spawn-blocking", "async", 800.0, 60.0, 40), // 0.80x: not within 15%
            ],
        ),
        group(
            "mixed",
            vec![
                column("async-health-next-to-cpu", "async", 20.0, 500.0, 5),
                column("async-health-next-to-cpu-rayon", "async", 20.0, 2.0, 7),
                column("async-health-next-to-posts-blocking", "async", 20.0, 8.0, 5),
                column("async-health-next-to-posts", "async", 20.0, 2.0, 5), // 4x: below 5x
            ],
        ),
        group(
            "cache",
            vec![
                column("blocking-cache", "blocking", 100.0, 1.0, 200),
                column("async-cache", "async", 90.0, 1.0, 5),
            ],
        ),
    ]);
    let v = verdicts(&r, &THRESHOLDS);
    let expect = [
        ("cpu-inline-hurts-async", Some(true)),
        ("cpu-offload-recovers", Some(true)),
        ("db-async-driver-wins", Some(true)),
        ("db-inline-driver-worst", Some(true)),
        ("db-spawn-blocking-recovers", Some(false)),
        ("async-far-fewer-threads", Some(true)),
        ("mixed-cpu", Some(true)),
        ("mixed-db-driver", None),
        ("mixed-sleep", Some(false)),
        ("cache-async-wins", Some(false)),
        ("baseline-async-wins", None),
        ("ramp-async-wins", None),
    ];
    assert_eq!(v, expect.map(|(id, h)| (id.to_owned(), h)).to_vec());

    let f = check(&r, &THRESHOLDS);
    assert_eq!(
        f[1].evidence,
        "async-cpu-rayon 180 req/s = 0.90x blocking's 200"
    );
    assert_eq!(f[4].evidence, "800 vs 1000 req/s = 0.80x");
    assert_eq!(f[8].evidence, "/health p99 8.0 ms vs 2.0 ms = 4.0x");

    // Thresholds really decide: loosen one and the verdict flips.
    let loose = Thresholds {
        offload_within: 0.25,
        ..THRESHOLDS
    };
    assert_eq!(
        verdicts(&r, &loose)[4],
        ("db-spawn-blocking-recovers".to_owned(), Some(true))
    );
}

#[test]
fn results_json_round_trips() {
    let r = results(vec![group(
        "baseline",
        vec![column("blocking-health", "blocking", 10.0, 1.0, 200)],
    )]);
    let json = serde_json::to_string(&r).unwrap();
    let back: RunResults = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
}

#[test]
fn markdown_report_has_every_group_and_finding() {
    let r = results(vec![group(
        "cpu",
        vec![
            column("blocking-cpu", "blocking", 200.0, 40.0, 210),
            column("async-cpu", "async", 100.0, 120.0, 5),
        ],
    )]);
    let f = check(&r, &THRESHOLDS);
    let md = bench::report::markdown::render(&r, &f, &THRESHOLDS);
    assert!(
        md.contains("| Throughput (req/s) | 200.0 | 100.0 (0.50x) |"),
        "{md}"
    );
    assert!(
        md.contains("| HELD | CPU work inline on the event loop"),
        "{md}"
    );
    assert!(md.contains("| NOT MEASURED |"), "{md}");
    assert!(
        md.contains(
            "Machine: 2 cores, Test CPU, 1.0 GiB memory, Linux, load average 0.50 at start"
        ),
        "{md}"
    );
}

#[test]
fn differences_within_the_margin_decide_nothing() {
    // 1% apart, same p99: noise, not a finding either way.
    let r = results(vec![
        group(
            "cpu",
            vec![
                column("blocking-cpu", "blocking", 200.0, 40.0, 210),
                column("async-cpu", "async", 198.0, 40.0, 5),
            ],
        ),
        group(
            "cache",
            vec![
                column("blocking-cache", "blocking", 100.0, 1.0, 200),
                column("async-cache", "async", 101.0, 1.0, 5),
            ],
        ),
    ]);
    let v = verdicts(&r, &THRESHOLDS);
    assert_eq!(v[0], ("cpu-inline-hurts-async".to_owned(), Some(false)));
    assert_eq!(v[9], ("cache-async-wins".to_owned(), Some(false)));
    let tight = Thresholds {
        margin: 0.0,
        ..THRESHOLDS
    };
    assert_eq!(verdicts(&r, &tight)[0].1, Some(true));
    assert_eq!(verdicts(&r, &tight)[9].1, Some(true));
}

#[test]
fn markdown_cells_escape_pipes() {
    let mut c = column("async-health-next-to-cpu", "async", 20.0, 5.0, 21);
    c.label = "async /health | /cpu".into();
    let md = bench::report::markdown::render_table(&group_table(&group("mixed", vec![c])));
    assert!(md.starts_with("|  | async /health \\| /cpu |\n"), "{md}");
}
