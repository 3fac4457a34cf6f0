//! bench's view of the servers' stall detectors (issue 9): the figures of a
//! window computed from captured `/metrics` texts of the real servers, and
//! the two detector findings (the blocking-call counter, and timing alone,
//! each flagging exactly the routes that block by design) from fixed
//! observations, each able to fail without the other.

use bench::detector::window;
use bench::findings::{exact_flags_verdict, DetectorObservation, Half, THRESHOLDS};
use bench::model::{DetectorWindow, RouteWindow};
use bench::plan::{ColumnId, GroupId};
use bench::stats::Verdict;

// Captured from the real servers (see fixtures/metrics/README.md): the async
// server before and after a load on /users/1/blocking and /health, the
// blocking server after a load on /posts/1.
const ASYNC_BEFORE: &str = include_str!("fixtures/metrics/async-before.txt");
const ASYNC_AFTER: &str = include_str!("fixtures/metrics/async-after.txt");
const BLOCKING_BEFORE: &str = include_str!("fixtures/metrics/blocking-before.txt");
const BLOCKING_AFTER: &str = include_str!("fixtures/metrics/blocking-after.txt");
const ASYNC_DETECTOR_OFF: &str = include_str!("fixtures/metrics/async-detector-off.txt");

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
        let (interval, verdict, evidence) = exact_flags_verdict(&obs, &half).unwrap();
        assert_eq!(verdict, Verdict::Held, "{evidence}");
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
    let (interval, verdict, evidence) =
        exact_flags_verdict(&obs, &Half::slow_polls(&THRESHOLDS)).unwrap();
    assert_eq!(verdict, Verdict::NotHeld);
    assert_eq!((interval.min, interval.max), (1.0, 1.0));
    assert!(
        evidence.contains("should be flagged but is not: /users/{id}/blocking in async-users-blocking-stalls (0.2%, 0.2%)"),
        "{evidence}"
    );
    let (_, verdict, _) = exact_flags_verdict(&obs, &Half::blocking_calls(&THRESHOLDS)).unwrap();
    assert_eq!(verdict, Verdict::Held);
}

#[test]
fn a_call_counted_where_none_is_made_fails_the_instrument_finding_only() {
    // A mark on the non-blocking path: the counter lies, timing does not.
    let mut figures = STALLS.to_vec();
    figures[0] = ("async-users-stalls", "/users/{id}", 0.0, 1.0);
    let obs = matrix(2, &figures);
    let (_, verdict, evidence) =
        exact_flags_verdict(&obs, &Half::blocking_calls(&THRESHOLDS)).unwrap();
    assert_eq!(verdict, Verdict::NotHeld);
    assert!(
        evidence
            .contains("flagged but should not be: /users/{id} in async-users-stalls (1.00, 1.00)"),
        "{evidence}"
    );
    let (_, verdict, _) = exact_flags_verdict(&obs, &Half::slow_polls(&THRESHOLDS)).unwrap();
    assert_eq!(verdict, Verdict::Held);
}

#[test]
fn lines_are_reached_at_or_over_them() {
    // Just under the line is not flagged; on it is.
    let under = matrix(
        1,
        &[(
            "async-users-blocking-stalls",
            "/users/{id}/blocking",
            0.0099,
            0.0099,
        )],
    );
    let on = matrix(
        1,
        &[(
            "async-users-blocking-stalls",
            "/users/{id}/blocking",
            0.01,
            0.01,
        )],
    );
    for half in [
        Half::slow_polls(&THRESHOLDS),
        Half::blocking_calls(&THRESHOLDS),
    ] {
        assert_eq!(
            exact_flags_verdict(&under, &half).unwrap().1,
            Verdict::NotHeld
        );
        assert_eq!(exact_flags_verdict(&on, &half).unwrap().1, Verdict::Held);
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
    let (_, verdict, evidence) = exact_flags_verdict(&obs, &calls).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(
        evidence.ends_with("mismatches per round: 0, 1"),
        "{evidence}"
    );

    let off = vec![observation("async-cpu-stalls", 1, "/cpu", None, None)];
    let (_, verdict, evidence) = exact_flags_verdict(&off, &calls).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(evidence.contains("no figure (detector off"), "{evidence}");
    assert!(exact_flags_verdict(&[], &calls).is_none());
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[test]
fn an_async_window_is_the_counters_deltas_and_the_lag_at_its_end() {
    let w = window(
        ASYNC_BEFORE,
        ASYNC_AFTER,
        &["/users/{id}/blocking", "/health"],
    )
    .unwrap();
    let blocking = w.route("/users/{id}/blocking").unwrap();
    // Not polled before: no line, a count of 0.
    assert_eq!(
        (blocking.polls, blocking.slow_polls, blocking.blocking_calls),
        (Some(11397), Some(76), Some(11397))
    );
    assert!(close(blocking.slow_poll_seconds, 0.480087));
    assert_eq!(blocking.slow_poll_share(), Some(76.0 / 11397.0));
    assert_eq!(blocking.blocking_calls_per_poll(), Some(1.0));
    assert_eq!(blocking.queue_wait_p99_ms, None);
    // Polled once before the window: that poll is not the window's. (Its
    // one slow poll came from a machine busier than its cores.)
    let health = w.route("/health").unwrap();
    assert_eq!(
        (health.polls, health.slow_polls, health.blocking_calls),
        (Some(59151), Some(1), Some(0))
    );
    assert!(close(w.event_loop_lag_p99_ms, 22.143));
}

#[test]
fn a_server_without_the_blocking_call_counter_gives_no_figure_for_it() {
    // The same texts without the family, as a server from before it writes them.
    let without = |text: &str| {
        text.lines()
            .filter(|l| !l.contains("route_blocking_calls_total"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let w = window(
        &without(ASYNC_BEFORE),
        &without(ASYNC_AFTER),
        &["/users/{id}/blocking"],
    )
    .unwrap();
    let blocking = w.route("/users/{id}/blocking").unwrap();
    assert_eq!(blocking.blocking_calls, None);
    assert_eq!(blocking.blocking_calls_per_poll(), None);
    assert_eq!(blocking.slow_polls, Some(76));
}

#[test]
fn a_blocking_window_is_the_queue_wait_p99_at_its_end() {
    let w = window(BLOCKING_BEFORE, BLOCKING_AFTER, &["/posts/{id}", "/health"]).unwrap();
    assert_eq!(w.event_loop_lag_p99_ms, None);
    let posts = w.route("/posts/{id}").unwrap();
    assert!(close(posts.queue_wait_p99_ms, 577.535));
    assert_eq!(
        (posts.polls, posts.slow_polls, posts.slow_poll_share()),
        (None, None, None)
    );
    assert!(close(w.route("/health").unwrap().queue_wait_p99_ms, 0.067));
}

#[test]
fn no_detector_figures_is_no_window() {
    assert_eq!(
        window(ASYNC_DETECTOR_OFF, ASYNC_DETECTOR_OFF, &["/users/{id}"]),
        None
    );
    assert_eq!(window("", "", &["/health"]), None);
}

#[test]
fn a_route_never_polled_in_the_window_has_no_share() {
    let w = DetectorWindow {
        event_loop_lag_p99_ms: None,
        routes: vec![RouteWindow {
            route: "/cpu".into(),
            polls: Some(0),
            slow_polls: Some(0),
            ..RouteWindow::default()
        }],
        ..DetectorWindow::default()
    };
    assert_eq!(w.route("/cpu").unwrap().slow_poll_share(), None);
}

#[test]
fn shares_are_written_with_the_decimals_their_size_needs() {
    use bench::stats::percent;
    assert_eq!(percent(0.0), "0%");
    assert_eq!(percent(1.0 / 61113.0 / 2.0), "<0.01%");
    assert_eq!(percent(22.0 / 61113.0), "0.04%");
    assert_eq!(percent(0.075), "7.5%");
    assert_eq!(percent(1.0), "100.0%");
}
