//! The virtual-thread findings from fixed runs: the saved seed run of
//! docs/results/seed-2026-12-02 (which has no virtual-thread column), with
//! virtual columns added from its own rounds, each figure set to what the
//! case tests.

use super::test_runs::{assert_evidence_has, finding, judged, saved_run};
use bench_model::fixtures::{column_in, column_in_mut, column_of as column, replace_group};
use bench_model::Verdict;
use bench_model::{ColumnId, Driver, GroupId, Target};
use bench_model::{DetectorWindow, PoolWindow, RoundResult, RouteWindow, RunResults};

/// The saved seed run, with two carriers and the database 2 ms away
/// behind a pool of 10.
fn saved() -> RunResults {
    let mut run = saved_run("seed-2026-12-02");
    run.settings.virtual_carriers = Some(2);
    run.settings.remote_db_round_trip_ms = Some(2.0);
    run.settings.db_pool_size = 10;
    run
}

/// A round of the saved run, its load answering `rps` successfully per
/// second with a p99 of `p99_ms`, and `detector` as the server's reading.
fn round(n: u32, rps: f64, p99_ms: f64, detector: Option<DetectorWindow>) -> RoundResult {
    let mut r = column_in(&saved(), ColumnId::BlockingUsers).rounds[0].clone();
    r.round = n;
    r.load.successful_throughput_rps = rps;
    r.load.throughput_rps = rps;
    r.load.latency_ms.p99 = p99_ms;
    r.detector = detector;
    r
}

/// A virtual server's reading of `route`: `calls` blocking calls and
/// `stalls` carrier stalls over `requests`, each call `ms` long, and the
/// Postgres pool's `acquires` with `wait_s` of waiting.
fn reading(route: &str, (requests, calls, stalls): (u64, u64, u64), ms: f64) -> DetectorWindow {
    DetectorWindow {
        routes: vec![RouteWindow {
            route: route.into(),
            requests: Some(requests),
            blocking_calls: Some(calls),
            blocking_call_seconds: Some(calls as f64 * ms / 1000.0),
            carrier_stalls: Some(stalls),
            ..RouteWindow::default()
        }],
        carrier_lag_p99_ms: Some(1.0),
        pools: vec![PoolWindow {
            pool: "postgres".into(),
            acquires: requests,
            wait_seconds: requests as f64 * 0.0005,
        }],
        ..DetectorWindow::default()
    }
}

/// The remote-database group: pinning and yielding /users/1 at these
/// successful rates per round; and the remote-mixed group's pinning
/// column, whose queries held their carrier `query_ms` (the remote-database
/// column's own marks read 30% longer: the prediction must not use them).
fn remote(run: &mut RunResults, pinning: &[f64], yielding: &[f64], query_ms: Option<f64>) {
    let rounds = |rates: &[f64], ms: Option<f64>| -> Vec<RoundResult> {
        rates
            .iter()
            .zip(1..)
            .map(|(&rps, n)| {
                let d = ms.map(|ms| reading("/users/{id}", (2000, 2000, 0), ms));
                round(n, rps, 10.0, d)
            })
            .collect()
    };
    replace_group(
        run,
        GroupId::RemoteDb,
        vec![
            column(
                ColumnId::VirtualPinningUsersRemote,
                Target::Virtual(Driver::Pinning),
                "/users/1",
                rounds(pinning, query_ms.map(|ms| ms * 1.3)),
            ),
            column(
                ColumnId::VirtualYieldingUsersRemote,
                Target::Virtual(Driver::Yielding),
                "/users/1",
                rounds(yielding, Some(2.1)),
            ),
        ],
    );
    let mut mixed = column(
        ColumnId::VirtualPinningHealthNextToUsersRemote,
        Target::Virtual(Driver::Pinning),
        "/health",
        rounds(&[50.0; 3], query_ms),
    );
    mixed.background_path = Some("/users/1".into());
    replace_group(run, GroupId::RemoteMixed, vec![mixed]);
}

#[test]
fn the_yielding_driver_reaches_the_pool_and_reports_its_wait() {
    let mut run = saved();
    // Pool 10 / 2 ms = 5000 req/s; 0.8x that is 4000.
    remote(&mut run, &[900.0; 3], &[4500.0, 4400.0, 4600.0], Some(2.1));
    let f = judged(&run, "remote-db-yielding-reaches-pool", Verdict::Held);
    assert_evidence_has(&f, "= 5000 req/s");
    assert_evidence_has(&f, "0.50 ms per checkout, 1.00 s over the window");
    assert!(!f.evidence.contains("median round"), "{}", f.evidence);
    remote(&mut run, &[900.0; 3], &[3000.0; 3], Some(2.1));
    judged(&run, "remote-db-yielding-reaches-pool", Verdict::NotHeld);
    // A prediction that fails says what held it back: here, the cores.
    for r in &mut column_in_mut(&mut run, ColumnId::VirtualYieldingUsersRemote).rounds {
        r.cpu = bench_model::CpuUse {
            window_seconds: 10.0,
            server_seconds: 6.0,
            load_generator_seconds: 3.0,
            postgres_seconds: 4.0,
            proxy_seconds: 3.0,
            stolen_seconds: 2.0,
            ..bench_model::CpuUse::default()
        };
    }
    let f = finding(&run, "remote-db-yielding-reaches-pool");
    assert!(
        f.evidence.ends_with("; in its median round, CPU-bound: the server used 0.60, the load generator 0.30, Postgres 0.40, the proxies 0.30 and everything else 0.20 (of which the hypervisor took 0.20) of the machine's 2 cores"),
        "{}",
        f.evidence
    );
    for r in &mut column_in_mut(&mut run, ColumnId::VirtualYieldingUsersRemote).rounds {
        r.cpu.stolen_seconds = 0.0;
        r.cpu.postgres_seconds = 1.0;
    }
    let f = finding(&run, "remote-db-yielding-reaches-pool");
    assert!(
        f.evidence
            .ends_with("not for lack of CPU: the server used 0.60 of the machine's 2 cores"),
        "{}",
        f.evidence
    );
}

#[test]
fn the_pinning_driver_caps_at_carriers_over_query_time_and_below_half_of_yielding() {
    let mut run = saved();
    // 2 carriers / 2.1 ms = 952 req/s.
    remote(&mut run, &[940.0, 960.0, 950.0], &[4500.0; 3], Some(2.1));
    let cap = finding(&run, "remote-db-pinning-caps-at-carriers");
    assert_eq!(cap.verdict, Verdict::Held, "{}", cap.evidence);
    assert_evidence_has(&cap, "2.10 ms per query (remote-mixed, median) = 952 req/s");
    assert_evidence_has(&cap, "this window's own marks, not judged: 2.73 ms");
    let half = finding(&run, "remote-db-pinning-half-of-yielding");
    assert_eq!(half.verdict, Verdict::Held, "{}", half.evidence);

    remote(&mut run, &[600.0; 3], &[900.0; 3], Some(2.1));
    let cap = finding(&run, "remote-db-pinning-caps-at-carriers");
    assert_eq!(cap.verdict, Verdict::NotHeld, "{}", cap.evidence);
    let half = finding(&run, "remote-db-pinning-half-of-yielding");
    assert_eq!(half.verdict, Verdict::NotHeld, "{}", half.evidence);

    // Without the other window's marks the run cannot tell.
    remote(&mut run, &[950.0; 3], &[4500.0; 3], None);
    let cap = finding(&run, "remote-db-pinning-caps-at-carriers");
    assert_eq!(cap.verdict, Verdict::Inconclusive, "{}", cap.evidence);
}

#[test]
fn health_next_to_the_pinning_driver_waits_for_a_carrier() {
    let mut run = saved();
    let health = |id, driver, p99: f64| {
        let rounds = (1..=3).map(|n| round(n, 100.0, p99, None)).collect();
        column(id, Target::Virtual(driver), "/health", rounds)
    };
    let mixed = |run: &mut RunResults, pinning_p99| {
        replace_group(
            run,
            GroupId::RemoteMixed,
            vec![
                health(
                    ColumnId::VirtualPinningHealthNextToUsersRemote,
                    Driver::Pinning,
                    pinning_p99,
                ),
                health(
                    ColumnId::VirtualYieldingHealthNextToUsersRemote,
                    Driver::Yielding,
                    2.0,
                ),
            ],
        );
    };
    mixed(&mut run, 40.0);
    judged(&run, "remote-mixed-pinning-delays-health", Verdict::Held);
    mixed(&mut run, 4.0);
    judged(&run, "remote-mixed-pinning-delays-health", Verdict::NotHeld);
}

/// The saved run's /posts/1 sweep with a virtual column: the async
/// server's steps, their successful rates times `scale`.
fn with_virtual_sweep(scale: f64) -> RunResults {
    let mut run = saved();
    let mut v = column_in(&run, ColumnId::AsyncPostsSweep).clone();
    v.id = ColumnId::VirtualPostsSweep;
    v.server = Target::Virtual(Driver::Pinning);
    for r in &mut v.rounds {
        r.load.successful_throughput_rps *= scale;
    }
    let g = run
        .groups
        .iter_mut()
        .find(|g| g.id == GroupId::SweepPosts)
        .unwrap();
    g.columns.push(v);
    run
}

#[test]
fn virtual_threads_pass_the_thread_cap_by_five_times_or_not() {
    // The saved async plateau is 7716 req/s, 11.6x the cap of 667.
    let f = judged(
        &with_virtual_sweep(1.0),
        "sweep-virtual-past-cap",
        Verdict::Held,
    );
    assert_evidence_has(&f, "/ cap 667 req/s");
    judged(
        &with_virtual_sweep(0.3),
        "sweep-virtual-past-cap",
        Verdict::NotHeld,
    );
}

/// The saved run's idle group with a virtual server: a copy of `like`'s.
fn with_virtual_idle(like: ColumnId) -> RunResults {
    let mut run = saved();
    let idle = run.groups.iter_mut().find_map(|g| g.idle.as_mut()).unwrap();
    let mut v = idle.servers.iter().find(|s| s.id == like).unwrap().clone();
    v.id = ColumnId::VirtualIdle;
    idle.servers.push(v);
    run
}

#[test]
fn idle_connections_cost_virtual_threads_no_threads_with_memory_beside_the_others() {
    let f = judged(
        &with_virtual_idle(ColumnId::BlockingIdle),
        "idle-virtual-no-threads",
        Verdict::Held,
    );
    for name in ["virtual threads", "event loop", "tiny_http"] {
        assert_evidence_has(&f, &format!("{name} "));
    }
    assert_evidence_has(&f, "KiB (at 10000 open)");
    judged(
        &with_virtual_idle(ColumnId::BlockingIdleTinyHttp),
        "idle-virtual-no-threads",
        Verdict::NotHeld,
    );
}

/// The stall detectors' group on virtual threads: per column, the route,
/// its driver and (calls, stalls) per 100 requests.
fn stalls(figures: &[(ColumnId, &str, Driver, u64, u64)]) -> RunResults {
    let mut run = saved();
    let columns = figures
        .iter()
        .map(|&(id, route, driver, calls, stalls)| {
            let rounds = (1..=3)
                .map(|n| {
                    round(
                        n,
                        100.0,
                        5.0,
                        Some(reading(route, (100, calls, stalls), 12.0)),
                    )
                })
                .collect();
            let path = route.replace("{id}", "1");
            column(id, Target::Virtual(driver), &path, rounds)
        })
        .collect();
    replace_group(&mut run, GroupId::Stalls, columns);
    run
}

/// As a run reads when both halves are right: the pinning routes and
/// /cpu marked and stalled on every request, /posts and yielding never.
fn right() -> Vec<(ColumnId, &'static str, Driver, u64, u64)> {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    vec![
        (
            C::VirtualPinningUsersStalls,
            "/users/{id}",
            Pinning,
            100,
            100,
        ),
        (
            C::VirtualPinningCacheStalls,
            "/users/{id}/cache",
            Pinning,
            200,
            100,
        ),
        (C::VirtualPinningPostsStalls, "/posts/{id}", Pinning, 0, 0),
        (C::VirtualPinningCpuStalls, "/cpu", Pinning, 100, 100),
        (C::VirtualYieldingUsersStalls, "/users/{id}", Yielding, 0, 0),
        (
            C::VirtualYieldingCacheStalls,
            "/users/{id}/cache",
            Yielding,
            0,
            0,
        ),
    ]
}

const MARKS: &str = "virtual-detector-marks-pinning-calls";
const TIMING: &str = "virtual-detector-timing-flags-pinning-routes";

#[test]
fn the_pinning_detector_flags_exactly_the_pinning_routes_and_inline_cpu() {
    let run = stalls(&right());
    for id in [MARKS, TIMING] {
        let f = finding(&run, id);
        assert_eq!(f.verdict, Verdict::Held, "{id}: {}", f.evidence);
    }
    let marks = finding(&run, MARKS);
    assert_evidence_has(&marks, "/users/{id}, /users/{id}/cache, /cpu");
    assert!(
        finding(&run, TIMING).evidence.contains("carrier lag p99"),
        "timing names its lag probe"
    );
}

#[test]
fn each_half_of_the_pinning_detector_fails_on_its_own() {
    // The yielding driver's /users/{id} marked: the marks are wrong, timing right.
    let mut figures = right();
    figures[4].3 = 100;
    let run = stalls(&figures);
    let marks = finding(&run, MARKS);
    assert_eq!(marks.verdict, Verdict::NotHeld, "{}", marks.evidence);
    assert_evidence_has(
        &marks,
        "flagged but should not be: /users/{id} in virtual-yielding-users-stalls",
    );
    assert_eq!(finding(&run, TIMING).verdict, Verdict::Held);

    // The pinning /cpu never stalls: timing misses it, the marks are right.
    let mut figures = right();
    figures[3].4 = 0;
    let run = stalls(&figures);
    let timing = finding(&run, TIMING);
    assert_eq!(timing.verdict, Verdict::NotHeld, "{}", timing.evidence);
    assert_evidence_has(&timing, "should be flagged but is not: /cpu");
    assert_eq!(finding(&run, MARKS).verdict, Verdict::Held);
}
