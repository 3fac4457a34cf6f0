//! The capacity claims judged at equal load ([`super::equal_load`]), on
//! runs built from fixed figures: by server CPU per request at one rate,
//! never by the closed loop's throughput, which the load generator shares.

use super::test_runs::{assert_evidence_has, finding, judged};
use bench_model::fixtures::{equal_load, group, health_at_equal_load, results, steady};
use bench_model::{RunResults, Verdict};

/// The baseline group: blocking serves more in the closed loop (1500 vs
/// 1200 req/s), async spends less server CPU per request at equal load
/// (per round `async_us` against blocking's 10 us), when `windows`.
fn baseline(async_us: [f64; 3], windows: bool) -> RunResults {
    let mut g = health_at_equal_load([10.0; 3], async_us);
    if !windows {
        g.equal_load = None;
    }
    results(vec![g])
}

#[test]
fn a_server_that_spends_less_cpu_per_request_at_equal_load_holds_whatever_the_closed_loop_says() {
    let f = judged(
        &baseline([8.0, 8.5, 7.5], true),
        "baseline-async-cheaper-at-equal-load",
        Verdict::Held,
    );
    assert_evidence_has(
        &f,
        "at 600 req/s (0.5 x async-health's 1200 req/s, the lowest): server CPU 8.00 vs 10.00 us per request",
    );
    assert_evidence_has(&f, "per round 0.80x, 0.85x, 0.75x (median 0.80x)");
    // What each would serve on a dedicated server of the run's two cores.
    assert_evidence_has(&f, "(cores / CPU per request) 250000 vs 200000 req/s");
    assert_evidence_has(
        &f,
        "closed loop, shared with the load generator: 1200 vs 1500 req/s",
    );
    assert!(
        !f.short_evidence.contains("closed loop"),
        "{}",
        f.short_evidence
    );
    // One round within the margin: the rounds cannot tell.
    let f = finding(
        &baseline([8.0, 9.8, 7.5], true),
        "baseline-async-cheaper-at-equal-load",
    );
    assert_eq!(f.verdict, Verdict::Inconclusive);
    let f = finding(
        &baseline([11.0, 12.0, 11.5], true),
        "baseline-async-cheaper-at-equal-load",
    );
    assert_eq!(f.verdict, Verdict::NotHeld);
}

#[test]
fn without_equal_load_windows_a_restated_claim_is_not_measured() {
    let f = finding(
        &baseline([8.0; 3], false),
        "baseline-async-cheaper-at-equal-load",
    );
    assert_eq!(f.verdict, Verdict::NotMeasured);
}

/// The database group with every async driver at equal load.
fn database(us: [(&str, f64); 4]) -> RunResults {
    let columns: Vec<(&str, &str, [f64; 3])> = us
        .iter()
        .map(|&(id, us)| {
            let server = if id.starts_with("async") {
                "async"
            } else {
                "blocking"
            };
            (id, server, [us; 3])
        })
        .collect();
    let mut g = group(
        "database",
        columns
            .iter()
            .map(|(id, server, _)| steady(id, server, 1000.0, 2.0, 20))
            .collect(),
    );
    g.equal_load = Some(equal_load(500.0, "blocking-users", &columns));
    results(vec![g])
}

#[test]
fn the_database_lesson_names_the_cheapest_driver_at_equal_load() {
    let run = database([
        ("blocking-users", 50.0),
        ("async-users", 60.0),
        ("async-users-deadpool", 45.0),
        ("async-users-pipelined", 30.0),
    ]);
    let f = judged(
        &run,
        "db-async-driver-cheaper-at-equal-load",
        Verdict::NotHeld,
    );
    assert_evidence_has(
        &f,
        "sqlx 1.20x, deadpool 0.90x, pipelined 0.60x; the one that makes the difference: pipelined",
    );
    let verdict = |id| finding(&run, id).verdict;
    assert_eq!(
        verdict("db-async-pipelined-cheaper-at-equal-load"),
        Verdict::Held
    );
    assert_eq!(
        verdict("db-async-deadpool-cheaper-at-equal-load"),
        Verdict::Held
    );
}

#[test]
fn spawn_blocking_comes_close_by_capacity_at_equal_load() {
    let close = |spawn_us: f64| {
        let run = database([
            ("blocking-users", 50.0),
            ("async-users", 60.0),
            ("async-users-spawn-blocking", spawn_us),
            ("async-users-pipelined", 30.0),
        ]);
        finding(&run, "db-spawn-blocking-close-at-equal-load")
    };
    // Capacity 50/55 = 0.91 of blocking's: within 15%, past the margin.
    let f = close(55.0);
    assert_eq!(f.verdict, Verdict::Held, "{}", f.evidence);
    assert_evidence_has(&f, "(median 0.91x)");
    // 50/75 = 0.67: short of it.
    assert_eq!(close(75.0).verdict, Verdict::NotHeld);
}
