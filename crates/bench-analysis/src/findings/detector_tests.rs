//! The stall detectors' findings (the blocking-call counter, and timing
//! alone, each flagging exactly the routes that block by design) from fixed
//! observations, each able to fail without the other; and the detector
//! findings' columns, taken from the run as it was saved.

use bench_model::{ColumnId, GroupId, Verdict, THRESHOLDS};

use super::detector::{exact_flags_verdict, DetectorObservation, Half};

fn observation(
    column: &str,
    round: u32,
    route: &str,
    slow_poll_share: Option<f64>,
    blocking_calls_per_poll: Option<f64>,
) -> DetectorObservation {
    DetectorObservation {
        group: GroupId::Stalls,
        column: ColumnId::parse(column).unwrap_or_else(|| panic!("no column {column}")),
        round,
        route: route.to_owned(),
        mode: contract::routes::NonBlocking::EventLoop,
        slow_poll_share,
        blocking_calls_per_poll,
        blocking_calls_per_request: None,
        carrier_stalls_per_request: None,
        lag_p99_ms: None,
    }
}

/// `rounds` rounds of the same figures: (column, route, slow-poll share,
/// blocking calls per poll).
fn matrix(rounds: u32, figures: &[(&str, &str, f64, f64)]) -> Vec<DetectorObservation> {
    (1..=rounds)
        .flat_map(|r| {
            figures
                .iter()
                .map(move |(col, route, s, c)| observation(col, r, route, Some(*s), Some(*c)))
        })
        .collect()
}

/// The stall-detector group as a run of it reads: every route that blocks
/// by design makes a slow poll and a blocking call on about every poll, the
/// others none.
const STALLS: &[(&str, &str, f64, f64)] = &[
    ("async-users-stalls", "/users/{id}", 0.0, 0.0),
    (
        "async-users-blocking-stalls",
        "/users/{id}/blocking",
        1.0,
        1.0,
    ),
    ("async-cache-stalls", "/users/{id}/cache", 0.0, 0.0),
    (
        "async-cache-blocking-stalls",
        "/users/{id}/cache/blocking",
        1.0,
        2.0,
    ),
    ("async-posts-stalls", "/posts/{id}", 0.0, 0.0),
    (
        "async-posts-blocking-stalls",
        "/posts/{id}/blocking",
        1.0,
        1.0,
    ),
    ("async-cpu-rayon-stalls", "/cpu/rayon", 0.0, 0.0),
    ("async-cpu-stalls", "/cpu", 1.0, 1.0),
];

#[test]
fn each_half_holds_when_it_flags_exactly_the_blocking_routes_in_every_round() {
    let obs = matrix(3, STALLS);
    for half in [
        Half::slow_polls(&THRESHOLDS),
        Half::blocking_calls(&THRESHOLDS),
    ] {
        let o = exact_flags_verdict(&obs, &half, &THRESHOLDS).unwrap();
        let (interval, evidence) = (o.interval.unwrap(), o.evidence);
        assert_eq!(o.verdict, Verdict::Held, "{evidence}");
        assert_eq!((interval.min, interval.max, interval.n), (0.0, 0.0, 3));
        assert!(
            evidence.ends_with("/users/{id}/blocking, /users/{id}/cache/blocking, /posts/{id}/blocking, /cpu; mismatches per round: 0, 0, 0"),
            "{evidence}"
        );
    }
}

#[test]
fn a_blocking_route_timing_misses_fails_the_timing_finding_only() {
    // A sync query quicker than the slow-poll threshold: counted as a
    // blocking call, never a slow poll (what a local, idle Postgres gives).
    let mut figures = STALLS.to_vec();
    figures[1] = (
        "async-users-blocking-stalls",
        "/users/{id}/blocking",
        0.002,
        1.0,
    );
    let obs = matrix(2, &figures);
    let o = exact_flags_verdict(&obs, &Half::slow_polls(&THRESHOLDS), &THRESHOLDS).unwrap();
    let (interval, evidence) = (o.interval.unwrap(), o.evidence);
    assert_eq!(o.verdict, Verdict::NotHeld);
    assert_eq!((interval.min, interval.max), (1.0, 1.0));
    assert!(
        evidence.contains("should be flagged but is not: /users/{id}/blocking in async-users-blocking-stalls (0.2%, 0.2%)"),
        "{evidence}"
    );
    let o = exact_flags_verdict(&obs, &Half::blocking_calls(&THRESHOLDS), &THRESHOLDS).unwrap();
    assert_eq!(o.verdict, Verdict::Held);
}

#[test]
fn a_call_counted_where_none_is_made_fails_the_instrument_finding_only() {
    // A mark on the non-blocking path: the counter lies, timing does not.
    let mut figures = STALLS.to_vec();
    figures[0] = ("async-users-stalls", "/users/{id}", 0.0, 1.0);
    let obs = matrix(2, &figures);
    let o = exact_flags_verdict(&obs, &Half::blocking_calls(&THRESHOLDS), &THRESHOLDS).unwrap();
    let evidence = o.evidence;
    assert_eq!(o.verdict, Verdict::NotHeld);
    assert!(
        evidence
            .contains("flagged but should not be: /users/{id} in async-users-stalls (1.00, 1.00)"),
        "{evidence}"
    );
    let o = exact_flags_verdict(&obs, &Half::slow_polls(&THRESHOLDS), &THRESHOLDS).unwrap();
    assert_eq!(o.verdict, Verdict::Held);
}

#[test]
fn a_figure_within_the_margin_of_the_line_cannot_tell() {
    // The line is 0.01 either way, with a 5% margin either side.
    let at = |figure: f64| {
        matrix(
            1,
            &[(
                "async-users-blocking-stalls",
                "/users/{id}/blocking",
                figure,
                figure,
            )],
        )
    };
    for half in [
        Half::slow_polls(&THRESHOLDS),
        Half::blocking_calls(&THRESHOLDS),
    ] {
        let verdict = |figure| {
            exact_flags_verdict(&at(figure), &half, &THRESHOLDS)
                .unwrap()
                .verdict
        };
        assert_eq!(verdict(0.009), Verdict::NotHeld);
        assert_eq!(verdict(0.0099), Verdict::Inconclusive);
        assert_eq!(verdict(0.0101), Verdict::Inconclusive);
        assert_eq!(verdict(0.011), Verdict::Held);
    }
}

#[test]
fn rounds_that_disagree_or_a_missing_figure_are_inconclusive() {
    let mut obs = matrix(2, &[("async-cpu-stalls", "/cpu", 0.5, 1.0)]);
    obs.push(observation(
        "async-users-blocking-stalls",
        1,
        "/users/{id}/blocking",
        Some(0.0),
        Some(1.0),
    ));
    obs.push(observation(
        "async-users-blocking-stalls",
        2,
        "/users/{id}/blocking",
        Some(0.0),
        Some(0.0),
    ));
    let calls = Half::blocking_calls(&THRESHOLDS);
    let o = exact_flags_verdict(&obs, &calls, &THRESHOLDS).unwrap();
    let evidence = o.evidence;
    assert_eq!(o.verdict, Verdict::Inconclusive);
    assert!(
        evidence.ends_with("mismatches per round: 0, 1"),
        "{evidence}"
    );

    let off = vec![observation("async-cpu-stalls", 1, "/cpu", None, None)];
    let o = exact_flags_verdict(&off, &calls, &THRESHOLDS).unwrap();
    assert_eq!(o.verdict, Verdict::Inconclusive);
    assert!(
        o.evidence.contains("no figure (detector off"),
        "{}",
        o.evidence
    );
    assert!(exact_flags_verdict(&[], &calls, &THRESHOLDS).is_none());
}

/// The columns a finding of `run` names, by finding id.
fn columns_of(run: &bench_model::RunResults, id: &str) -> Vec<ColumnId> {
    super::test_runs::finding(run, id).columns
}

#[test]
fn detector_findings_name_the_columns_the_run_saved_not_todays_matrix() {
    // The saved seed run of seed-2026-12-03, which has every group.
    let mut run = super::test_runs::saved_run("seed-2026-12-03");
    let async_load_columns: Vec<ColumnId> = run
        .groups
        .iter()
        .filter(|g| g.sweep.is_none() && g.idle.is_none())
        .flat_map(|g| &g.columns)
        .filter(|c| c.server == bench_model::Target::Async)
        .map(|c| c.id)
        .collect();
    assert!(async_load_columns.contains(&ColumnId::AsyncCpu));
    assert_eq!(
        columns_of(&run, "detector-marks-blocking-calls"),
        async_load_columns
    );
    // Only the stall group left in the run: only its columns are named,
    // whatever the matrix of this build holds.
    run.groups.retain(|g| g.id == GroupId::Stalls);
    let stalls: Vec<ColumnId> = run.groups[0]
        .columns
        .iter()
        .filter(|c| matches!(c.server, bench_model::Target::Virtual(_)))
        .map(|c| c.id)
        .collect();
    assert!(!stalls.is_empty());
    assert_eq!(
        columns_of(&run, "virtual-detector-marks-pinning-calls"),
        stalls
    );
    assert_eq!(
        columns_of(&run, "virtual-detector-timing-flags-pinning-routes"),
        stalls
    );
    assert!(!columns_of(&run, "detector-marks-blocking-calls").contains(&ColumnId::AsyncCpu));
    // A run without the group: nothing named, and not measured.
    run.groups.clear();
    assert!(columns_of(&run, "detector-timing-flags-blocking-routes").is_empty());
}
