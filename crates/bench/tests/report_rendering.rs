//! The report from fixed inputs: round aggregation, tables, spreads, the
//! three-way verdicts and the quiet-machine warning, checked exactly.

use std::collections::BTreeMap;

use bench::findings::{check, Thresholds, THRESHOLDS};
use bench::model::*;
use bench::plan::{groups, seed};
use bench::report::table::{cold_start_table, group_table};
use bench::report::text::render_table;
use bench::stats::Verdict;

/// One round: throughput, p99, peak threads; everything else derived.
fn round(n: u32, rps: f64, p99: f64, threads: u64) -> RoundResult {
    RoundResult {
        round: n,
        position: n - 1,
        load: LoadStats {
            total_requests: (rps * 10.0) as u64,
            ok_requests: (rps * 10.0) as u64,
            errors: 0,
            errors_by_kind: BTreeMap::new(),
            duration_seconds: 10.0,
            throughput_rps: rps,
            successful_throughput_rps: rps,
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
            idle_threads: threads.min(3),
            peak_threads: threads,
            idle_rss_bytes: 8 * 1024 * 1024,
            peak_rss_bytes: 64 * 1024 * 1024,
            cpu_seconds: rps * 10.0 * 20e-6, // 20 us per request
            samples: 100,
        },
        cpu: CpuUse {
            window_seconds: 10.0,
            server_seconds: 2.0,
            load_generator_seconds: 1.0,
            postgres_seconds: 0.5,
            redis_seconds: 0.0,
            other_seconds: 0.1,
        },
        server_counted_requests: Some((rps * 10.0) as u64),
        machine_cpu_measured: true,
        not_measured: Vec::new(),
        step: None,
    }
}

/// A column whose rounds have these (throughput, p99) pairs and `threads` at peak.
fn column(id: &str, server: &str, rounds: &[(f64, f64)], threads: u64) -> ColumnResult {
    ColumnResult {
        id: id.into(),
        label: id.into(),
        server: server.into(),
        method: "GET".into(),
        path: "/x".into(),
        background_path: None,
        rounds: rounds
            .iter()
            .enumerate()
            .map(|(i, (rps, p99))| round(i as u32 + 1, *rps, *p99, threads))
            .collect(),
        failure: None,
    }
}

/// The same figures in each of three rounds.
fn steady(id: &str, server: &str, rps: f64, p99: f64, threads: u64) -> ColumnResult {
    column(id, server, &[(rps, p99); 3], threads)
}

fn group(id: &str, columns: Vec<ColumnResult>) -> GroupResult {
    GroupResult {
        id: id.into(),
        title: id.into(),
        load: "test load".into(),
        warm_up: "none (cold start)".into(),
        columns,
        cold_start: None,
        sweep: None,
    }
}

/// A probed server whose cold starts each had these first answers (ms; `None`: never).
fn probed(id: &str, starts: &[&[Option<f64>]]) -> ColdStartServer {
    ColdStartServer {
        id: id.into(),
        label: id.into(),
        starts: starts.iter().map(|s| s.to_vec()).collect(),
        failure: None,
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
            rounds: 3,
            blocking_handler_threads: 200,
            async_worker_threads: 2,
            async_blocking_threads: 20,
            async_rayon_threads: 2,
            db_pool_size: 10,
            redis_pool_size: 10,
            loadgen_threads: 2,
            cpu_n: 1000,
            targets: "started by bench".into(),
            measured_by: None,
            server_figures_from: None,
        },
        groups,
        skipped: vec![],
    }
}

#[test]
fn group_table_shows_medians_spreads_idle_to_peak_and_ratios() {
    let g = group(
        "cpu",
        vec![
            column(
                "blocking-cpu",
                "blocking",
                &[(190.0, 40.0), (200.0, 44.0), (210.0, 38.0)],
                210,
            ),
            column(
                "async-cpu",
                "async",
                &[(100.0, 120.0), (96.0, 125.0), (102.0, 114.0)],
                5,
            ),
        ],
    );
    let text = render_table(&group_table(&g));
    let expected = [
        "                             blocking-cpu          async-cpu",
        "------------------------------------------------------------",
        "Rounds                                  3                  3",
        "Total Requests                       2000       1000 (0.50x)",
        "Average (ms)                         20.0       60.0 (3.00x)",
        "Min (ms)                             1.00       1.00 (1.00x)",
        "Max (ms)                             80.0        240 (3.00x)",
        "Std. Dev. (ms)                       3.00       3.00 (1.00x)",
        "Error Rate                          0.00%              0.00%",
        "Throughput (req/s)              200.0 ±5%  100.0 ±4% (0.50x)",
        "Successful (req/s)              200.0 ±5%  100.0 ±4% (0.50x)",
        "Threads idle -> peak             3 -> 210             3 -> 5",
        "p50 (ms)                        20.0 ±10%   60.0 ±5% (3.00x)",
        "p95 (ms)                        36.0 ±10%    108 ±5% (3.00x)",
        "p99 (ms)                        40.0 ±10%    120 ±5% (3.00x)",
        "RSS idle -> peak (MiB)        8.0 -> 64.0        8.0 -> 64.0",
        "Server CPU (s)                       0.04       0.02 (0.50x)",
        "Server CPU per request (us)      20.0 ±0%   20.0 ±0% (1.00x)",
        "CPU: load generator (s)              1.00       1.00 (1.00x)",
        "CPU: Postgres (s)                    0.50       0.50 (1.00x)",
        "CPU: Redis (s)                       0.00               0.00",
        "CPU: everything else (s)             0.10       0.10 (1.00x)",
        "",
    ]
    .join("\n");
    assert_eq!(text, expected, "got:\n{text}");
}

#[test]
fn unsampled_servers_show_not_applicable_and_failed_columns_say_so() {
    let mut c = steady("async-health", "async", 10.0, 1.0, 0);
    for r in &mut c.rounds {
        r.server_process.samples = 0;
    }
    let mut failed = steady("blocking-health", "blocking", 1.0, 1.0, 200);
    failed.rounds.clear();
    failed.failure = Some("the load: every connection was refused".into());
    let g = group("baseline", vec![c, failed]);
    let t = group_table(&g);
    let row = |name: &str| t.rows.iter().find(|r| r[0] == name).unwrap().clone();
    assert_eq!(row("Threads idle -> peak")[1], "n/a");
    assert_eq!(row("Server CPU per request (us)")[1], "n/a");
    assert_eq!(row("Throughput (req/s)")[2], "failed");
    let r = results(vec![g]);
    let text = bench::report::text::render(&r, &check(&r, &THRESHOLDS), &THRESHOLDS);
    assert!(
        text.contains(
            "FAILED: blocking-health (blocking-health) failed: the load: every connection was refused"
        ),
        "{text}"
    );
}

fn verdicts(r: &RunResults, t: &Thresholds) -> Vec<(String, Verdict)> {
    check(r, t).into_iter().map(|f| (f.id, f.verdict)).collect()
}

#[test]
fn findings_follow_the_rounds() {
    let r = results(vec![
        group(
            "cpu",
            vec![
                steady("blocking-cpu", "blocking", 200.0, 40.0, 210),
                steady("async-cpu", "async", 100.0, 120.0, 5),
                // 0.90x in every round: within 15% (and clear of the margin).
                steady("async-cpu-rayon", "async", 180.0, 45.0, 7),
                steady("async-cpu-spawn-blocking", "async", 150.0, 60.0, 30),
            ],
        ),
        group(
            "database",
            vec![
                steady("blocking-users", "blocking", 1000.0, 50.0, 210),
                // 2.5x, then 1.02x: one round cannot tell, so INCONCLUSIVE.
                column(
                    "async-users",
                    "async",
                    &[(2500.0, 20.0), (1020.0, 20.0), (2400.0, 20.0)],
                    5,
                ),
                steady("async-users-blocking", "async", 300.0, 200.0, 14),
                // 0.70x: misses 85% by more than the margin.
                steady("async-users-spawn-blocking", "async", 700.0, 60.0, 40),
            ],
        ),
        group(
            "mixed",
            vec![
                steady("async-health-next-to-cpu", "async", 20.0, 500.0, 5),
                steady("async-health-next-to-cpu-rayon", "async", 20.0, 2.0, 7),
                // 4x: misses 5x by more than 5%.
                steady("async-health-next-to-posts-blocking", "async", 20.0, 8.0, 5),
                steady("async-health-next-to-posts", "async", 20.0, 2.0, 5),
            ],
        ),
        group(
            "cache",
            vec![
                steady("blocking-cache", "blocking", 100.0, 1.0, 200),
                steady("async-cache", "async", 80.0, 1.0, 5),
            ],
        ),
    ]);
    let v = verdicts(&r, &THRESHOLDS);
    use Verdict::*;
    let expect = [
        ("cpu-inline-hurts-async", Held),
        ("cpu-offload-recovers", Held),
        ("db-async-driver-wins", Inconclusive),
        ("db-inline-driver-worst", Held),
        ("db-spawn-blocking-recovers", NotHeld),
        ("async-far-fewer-threads", Held),
        ("mixed-cpu", Held),
        ("mixed-db-driver", NotMeasured),
        ("mixed-sleep", NotHeld),
        ("cache-async-wins", NotHeld),
        ("baseline-async-wins", NotMeasured),
        ("ramp-async-wins", NotMeasured),
        ("cache-shared-connection-beats-pool", NotMeasured),
        ("cache-checkout-round-trip-costs", NotMeasured),
        ("cache-checkout-round-trip-costs-cpu", NotMeasured),
        ("cache-exclusive-checkout-costs-cpu", NotMeasured),
        ("tiny-http-cold-start-unfair", NotMeasured),
        ("tiny-http-thread-per-connection", NotMeasured),
        ("baseline-cpu-per-request", NotMeasured),
        ("sweep-blocking-plateau-at-cap", NotMeasured),
        ("sweep-async-past-cap", NotMeasured),
        ("sweep-users-async-crossover", NotMeasured),
    ];
    assert_eq!(v, expect.map(|(id, h)| (id.to_owned(), h)).to_vec());

    let f = check(&r, &THRESHOLDS);
    assert_eq!(
        f[2].evidence,
        "2400 vs 1000 req/s (medians) = 2.40x (1.02-2.50x over 3 rounds)"
    );
    assert_eq!(
        f[4].evidence,
        "700 vs 1000 req/s (medians) = 0.70x (0.70-0.70x over 3 rounds)"
    );
    assert_eq!(
        f[8].evidence,
        "/health p99 8.0 ms vs 2.0 ms (medians) = 4.00x (4.00-4.00x over 3 rounds)"
    );
    assert_eq!(
        f[4].columns,
        ["async-users-spawn-blocking", "blocking-users"]
    );

    // Thresholds really decide: loosen one and the verdict flips.
    let loose = Thresholds {
        offload_within: 0.35,
        ..THRESHOLDS
    };
    assert_eq!(verdicts(&r, &loose)[4].1, Held);
}

#[test]
fn a_tie_within_the_margin_is_inconclusive_not_a_verdict() {
    // 1-2% apart in every round: noise, not a finding either way.
    let r = results(vec![group(
        "cache",
        vec![
            column(
                "blocking-cache",
                "blocking",
                &[(100.0, 1.0), (100.0, 1.0), (100.0, 1.0)],
                200,
            ),
            column(
                "async-cache",
                "async",
                &[(101.0, 1.0), (98.0, 1.0), (102.0, 1.0)],
                5,
            ),
        ],
    )]);
    let v = verdicts(&r, &THRESHOLDS);
    assert_eq!(v[9], ("cache-async-wins".to_owned(), Verdict::Inconclusive));
    let tight = Thresholds {
        margin: 0.0,
        ..THRESHOLDS
    };
    // Without a margin the same rounds still cannot agree: one round is below 1.
    assert_eq!(verdicts(&r, &tight)[9].1, Verdict::Inconclusive);
}

#[test]
fn the_seed_profile_measures_every_finding() {
    // Every column of every group the seed profile loads, with plausible rounds.
    let profile = seed();
    let matrix: Vec<GroupResult> = groups()
        .into_iter()
        .filter(|g| profile.load(g.id).is_some())
        .map(|g| {
            let columns = g
                .columns
                .iter()
                .map(|c| steady(c.id.as_str(), c.target.name(), 100.0, 5.0, 20))
                .collect();
            let mut result = group(g.id.as_str(), columns);
            if let Some(bench::plan::Load::Sweep(sw)) = profile.load(g.id) {
                result = sweep_group(
                    g.id.as_str(),
                    &sw.steps,
                    |c, _, n| {
                        // Blocking flat at 600 from the second step, async
                        // climbing with the connections.
                        if c.starts_with("blocking") {
                            (n as f64 * 10.0).min(600.0)
                        } else {
                            n as f64 * 10.0
                        }
                    },
                    &g.columns
                        .iter()
                        .map(|c| (c.id.as_str(), c.target.name()))
                        .collect::<Vec<_>>(),
                );
            }
            if !g.cold_start_probe.is_empty() {
                result.cold_start = Some(ColdStartResult {
                    connections: 2,
                    run_for_ms: 1500.0,
                    servers: g
                        .cold_start_probe
                        .iter()
                        .map(|id| probed(id.as_str(), &[&[Some(3.0), Some(4.0)]]))
                        .collect(),
                });
            }
            result
        })
        .collect();
    let findings = check(&results(matrix), &THRESHOLDS);
    let unmeasured: Vec<&str> = findings
        .iter()
        .filter(|f| f.verdict == Verdict::NotMeasured)
        .map(|f| f.id.as_str())
        .collect();
    assert!(unmeasured.is_empty(), "not measured: {unmeasured:?}");
    assert_eq!(findings.len(), 22);
}

/// A sweep group: every column at every step in three rounds, its
/// successful throughput `rps(column, round, connections)`.
fn sweep_group(
    id: &str,
    steps: &[usize],
    rps: impl Fn(&str, u32, usize) -> f64,
    columns: &[(&str, &str)],
) -> GroupResult {
    let columns = columns
        .iter()
        .map(|(c, server)| {
            let mut col = column(c, server, &[], 20);
            for round in 1..=3 {
                for &n in steps {
                    let mut r = bench_round(round, rps(c, round, n));
                    r.step = Some(SweepStep {
                        connections: n,
                        fresh_server: false,
                        latency_lower_bound_ms: r.load.latency_ms,
                        unfinished: 0,
                        timeouts: 0,
                    });
                    col.rounds.push(r);
                }
            }
            col
        })
        .collect();
    let mut g = group(id, columns);
    let cap = bench::sweep::littles_law_cap(200, std::time::Duration::from_millis(300));
    g.sweep = Some(SweepInfo {
        steps: steps.to_vec(),
        rounds: 3,
        window_seconds: 2.1,
        warm_up_seconds: 1.0,
        cap: (id == "sweep-posts").then_some(cap),
        cap_note: "test".into(),
    });
    g
}

fn bench_round(n: u32, rps: f64) -> RoundResult {
    round(n, rps, 5.0, 20)
}

#[test]
fn sweep_findings_judge_the_plateau_against_the_cap_and_name_the_crossover() {
    let steps = [50, 100, 200, 400, 800];
    let cols = [
        ("blocking-posts-sweep", "blocking"),
        ("async-posts-sweep", "async"),
        ("blocking-users-sweep", "blocking"),
        ("async-users-sweep", "async"),
    ];
    // Blocking: 166, 333, 640/650/660 from 200 on (within 4% of the 667 cap);
    // async: connections / 0.3 s, so it first beats blocking at 400.
    let r = results(vec![
        sweep_group(
            "sweep-posts",
            &steps,
            |c, round, n| {
                if c.starts_with("blocking") {
                    (n as f64 / 0.3).min(630.0 + 10.0 * round as f64)
                } else {
                    n as f64 / 0.3
                }
            },
            &cols[..2],
        ),
        // Users: async equal to blocking everywhere but one round at 800.
        sweep_group(
            "sweep-users",
            &steps,
            |c, round, n| {
                if c.starts_with("async") && n == 800 && round == 2 {
                    1200.0
                } else {
                    1000.0
                }
            },
            &cols[2..],
        ),
    ]);
    let f = check(&r, &THRESHOLDS);
    let by_id = |id: &str| f.iter().find(|x| x.id == id).unwrap();
    let plateau = by_id("sweep-blocking-plateau-at-cap");
    assert_eq!(plateau.verdict, Verdict::Held);
    assert_eq!(
        plateau.evidence,
        "plateau 650 req/s (median over rounds of the median at 400 and 800 connections; rounds 640-660) vs cap 667 req/s (200 threads / 300 ms): off by 2.5% (1.0-4.0% over 3 rounds)"
    );
    let past = by_id("sweep-async-past-cap");
    assert_eq!(past.verdict, Verdict::Held);
    assert!(
        past.evidence.contains(
            "async first beats blocking by more than 5% in every round at 400 connections"
        ),
        "{}",
        past.evidence
    );
    let users = by_id("sweep-users-async-crossover");
    assert_eq!(users.verdict, Verdict::Inconclusive);
    assert!(
        users
            .evidence
            .starts_with("async never beat blocking by more than 5%"),
        "{}",
        users.evidence
    );
}

#[test]
fn results_json_round_trips() {
    let r = results(vec![group(
        "baseline",
        vec![steady("blocking-health", "blocking", 10.0, 1.0, 200)],
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
            steady("blocking-cpu", "blocking", 200.0, 40.0, 210),
            steady("async-cpu", "async", 100.0, 120.0, 5),
        ],
    )]);
    let f = check(&r, &THRESHOLDS);
    let md = bench::report::markdown::render(&r, &f, &THRESHOLDS);
    assert!(
        md.contains("| Throughput (req/s) | 200.0 ±0% | 100.0 ±0% (0.50x) |"),
        "{md}"
    );
    assert!(
        md.contains("| HELD | CPU work inline on the event loop"),
        "{md}"
    );
    assert!(md.contains("| NOT MEASURED |"), "{md}");
    assert!(md.contains("3 rounds per column"), "{md}");
    assert!(md.contains("The machine was quiet"), "{md}");
}

#[test]
fn a_busy_window_is_flagged_with_its_column() {
    let mut busy = steady("async-health", "async", 10.0, 1.0, 5);
    busy.rounds[1].cpu.other_seconds = 3.0; // 30% of a core over 10 s
    let r = results(vec![group(
        "baseline",
        vec![steady("blocking-health", "blocking", 10.0, 1.0, 200), busy],
    )]);
    let f = check(&r, &THRESHOLDS);
    for text in [
        bench::report::text::render(&r, &f, &THRESHOLDS),
        bench::report::markdown::render(&r, &f, &THRESHOLDS),
    ] {
        assert!(
            text.contains("WARNING: the machine was not quiet: other programs used more than 10% of one core (up to 30%) in 1 of the measured windows; affected: async-health (round 2)."),
            "{text}"
        );
    }
    // 10% exactly is still quiet.
    let mut edge = r.clone();
    edge.groups[0].columns[1].rounds[1].cpu.other_seconds = 1.0;
    assert!(bench::findings::busy_windows(&edge, &THRESHOLDS).is_empty());
}

#[test]
fn markdown_cells_escape_pipes() {
    let mut c = steady("async-health-next-to-cpu", "async", 20.0, 5.0, 21);
    c.label = "async /health | /cpu".into();
    let md = bench::report::markdown::render_table(&group_table(&group("mixed", vec![c])));
    assert!(md.starts_with("|  | async /health \\| /cpu |\n"), "{md}");
}

#[test]
fn redis_client_findings_compare_throughput_and_show_cpu_per_request() {
    let r = results(vec![group(
        "cache",
        vec![
            steady("blocking-cache", "blocking", 100.0, 1.0, 200),
            steady("async-cache", "async", 150.0, 1.0, 5),
            steady("async-cache-deadpool-redis", "async", 100.0, 1.0, 5),
            // Within 5% of deadpool-redis: the round trip's cost is not shown.
            steady("async-cache-pool", "async", 103.0, 1.0, 5),
        ],
    )]);
    let f = check(&r, &THRESHOLDS);
    let by_id = |id: &str| f.iter().find(|x| x.id == id).unwrap().clone();
    let shared = by_id("cache-shared-connection-beats-pool");
    assert_eq!(shared.verdict, Verdict::Held);
    assert_eq!(
        shared.evidence,
        "150 vs 103 req/s (medians) = 1.46x (1.46-1.46x over 3 rounds); server CPU 20.0 vs 20.0 us per request (medians)"
    );
    assert_eq!(
        by_id("cache-checkout-round-trip-costs").verdict,
        Verdict::Inconclusive
    );
}

#[test]
fn redis_client_cpu_findings_compare_server_cpu_per_request() {
    // 20 us per request everywhere, then deadpool-redis at 30 us and our pool at 24 us.
    let mut deadpool = steady("async-cache-deadpool-redis", "async", 100.0, 1.0, 5);
    let mut pool = steady("async-cache-pool", "async", 100.0, 1.0, 5);
    for r in &mut deadpool.rounds {
        r.server_process.cpu_seconds *= 1.5;
    }
    for r in &mut pool.rounds {
        r.server_process.cpu_seconds *= 1.2;
    }
    let r = results(vec![group(
        "cache",
        vec![
            steady("async-cache", "async", 100.0, 1.0, 5),
            deadpool,
            pool,
        ],
    )]);
    let f = check(&r, &THRESHOLDS);
    let by_id = |id: &str| f.iter().find(|x| x.id == id).unwrap().clone();
    let round_trip = by_id("cache-checkout-round-trip-costs-cpu");
    assert_eq!(round_trip.verdict, Verdict::Held);
    assert_eq!(
        round_trip.evidence,
        "30.0 vs 24.0 us of server CPU per request (medians) = 1.25x (1.25-1.25x over 3 rounds)"
    );
    assert_eq!(
        by_id("cache-exclusive-checkout-costs-cpu").verdict,
        Verdict::Held
    );
}

/// The baseline group with the cold-start probe of tiny_http and nio.
fn probed_baseline(tiny: &[&[Option<f64>]], nio: &[&[Option<f64>]]) -> RunResults {
    let mut g = group(
        "baseline",
        vec![
            steady("blocking-health", "blocking", 100.0, 1.0, 210),
            steady("blocking-health-tiny-http", "blocking", 100.0, 1.0, 240),
        ],
    );
    g.cold_start = Some(ColdStartResult {
        connections: 3,
        run_for_ms: 1500.0,
        servers: vec![
            probed("blocking-health-tiny-http", tiny),
            probed("blocking-health", nio),
        ],
    });
    results(vec![g])
}

#[test]
fn cold_start_probe_renders_its_table_and_its_finding() {
    let fast: &[Option<f64>] = &[Some(2.0), Some(3.5), Some(4.0)];
    let r = probed_baseline(
        &[fast, &[Some(2.0), Some(1200.0), None], fast],
        &[fast, fast, &[Some(1.0), Some(12.5), Some(999.0)]],
    );
    let probe = r.groups[0].cold_start.as_ref().unwrap();
    let text = render_table(&cold_start_table(probe, &THRESHOLDS));
    let expected = [
        "                                            blocking-health-tiny-http  blocking-health",
        "--------------------------------------------------------------------------------------",
        "Cold starts                                                         3                3",
        "Unanswered over 1000 ms, each start (of 3)                    0, 2, 0          0, 0, 0",
        "Starts with any unanswered                                     1 of 3           0 of 3",
        "Slowest first answer (ms)                        never (1 connection)              999",
        "",
    ]
    .join("\n");
    assert_eq!(text, expected, "got:\n{text}");

    let f = check(&r, &THRESHOLDS);
    let unfair = f
        .iter()
        .find(|x| x.id == "tiny-http-cold-start-unfair")
        .unwrap();
    assert_eq!(unfair.verdict, Verdict::Held);
    assert_eq!(
        unfair.evidence,
        "connections unanswered for over 1000 ms: tiny_http 0, 2, 0 of 3 (on 1 of 3 cold starts); nio 0, 0, 0 of 3 (on 0 of 3 cold starts)"
    );
    // The terminal and Markdown reports both carry the table.
    let md = bench::report::markdown::render(&r, &f, &THRESHOLDS);
    assert!(
        md.contains("| Starts with any unanswered | 1 of 3 | 0 of 3 |"),
        "{md}"
    );
    let terminal = bench::report::text::render(&r, &f, &THRESHOLDS);
    assert!(
        terminal.contains("Cold-start fairness probe: on each freshly started server, 3 keep-alive connections opened at once"),
        "{terminal}"
    );

    // nio starving one connection once is a NOT HELD; no starved start at
    // all in three is too few to tell.
    let verdict_of = |r: &RunResults| {
        check(r, &THRESHOLDS)
            .into_iter()
            .find(|x| x.id == "tiny-http-cold-start-unfair")
            .unwrap()
            .verdict
    };
    let nio_starves = probed_baseline(
        &[&[None, None, None]],
        &[&[Some(1.0), Some(1001.0), Some(2.0)]],
    );
    assert_eq!(verdict_of(&nio_starves), Verdict::NotHeld);
    assert_eq!(
        verdict_of(&probed_baseline(&[fast; 3], &[fast; 3])),
        Verdict::Inconclusive
    );
}

#[test]
fn tiny_http_threads_are_compared_with_nio_in_three_groups() {
    let pair = |g: &str, nio: &str, tiny: &str, tiny_threads: u64| {
        group(
            g,
            vec![
                steady(nio, "blocking", 100.0, 1.0, 210),
                steady(tiny, "blocking", 100.0, 1.0, tiny_threads),
            ],
        )
    };
    let mut r = results(vec![
        pair(
            "baseline",
            "blocking-health",
            "blocking-health-tiny-http",
            240,
        ),
        pair(
            "database",
            "blocking-users",
            "blocking-users-tiny-http",
            250,
        ),
        pair("slow", "blocking-posts", "blocking-posts-tiny-http", 231),
    ]);
    let finding = |r: &RunResults| {
        check(r, &THRESHOLDS)
            .into_iter()
            .find(|x| x.id == "tiny-http-thread-per-connection")
            .unwrap()
    };
    let f = finding(&r);
    assert_eq!(f.verdict, Verdict::Held);
    assert_eq!(
        f.evidence,
        "240 vs 210 threads at peak (baseline), 250 vs 210 threads at peak (database), 231 vs 210 threads at peak (slow); ratio 1.10-1.19x"
    );
    // Four threads more in one group (1.02x): within the margin, so the rounds cannot tell.
    for round in &mut r.groups[2].columns[1].rounds {
        round.server_process.peak_threads = 214;
    }
    assert_eq!(finding(&r).verdict, Verdict::Inconclusive);
}
