//! bench's view of the servers' stall detectors (issue 9): the figures of a
//! window computed from captured `/metrics` texts of the real servers, the
//! report's rows, and the finding "the detector flags exactly the routes
//! that block by design" from fixed observations.

use bench::detector::window;
use bench::findings::{detector_verdict, DetectorLines, DetectorObservation, THRESHOLDS};
use bench::model::{DetectorWindow, RouteWindow};
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
        column: column.to_owned(),
        round,
        route: route.to_owned(),
        slow_poll_share,
        blocking_calls_per_poll,
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

const LINES: DetectorLines = DetectorLines {
    slow_poll_share: 0.01,
    blocking_calls_per_poll: 0.01,
};

#[test]
fn every_blocking_route_flagged_by_either_half_in_every_round_holds() {
    let obs = matrix(
        3,
        &[
            // Slow polls only: CPU work is not a blocking call.
            ("async-cpu", "/cpu", 0.5, 0.0),
            ("async-cpu-rayon", "/cpu/rayon", 0.0, 0.0),
            ("async-health-next-to-posts-blocking", "/health", 0.0, 0.0),
            (
                "async-health-next-to-posts-blocking",
                "/posts/{id}/blocking",
                1.0,
                1.0,
            ),
            // Just under both lines is not flagged; just on one is.
            ("async-users", "/users/{id}", 0.0099, 0.0099),
            ("async-users-blocking", "/users/{id}/blocking", 0.0004, 0.01),
            (
                "async-cache-blocking",
                "/users/{id}/cache/blocking",
                0.0,
                2.0,
            ),
            (
                "async-users-spawn-blocking",
                "/users/{id}/spawn-blocking",
                0.0,
                0.0,
            ),
        ],
    );
    let (interval, verdict, evidence) = detector_verdict(&obs, LINES).unwrap();
    assert_eq!(verdict, Verdict::Held);
    assert_eq!((interval.min, interval.max, interval.n), (0.0, 0.0, 3));
    assert_eq!(
        evidence,
        "flagged (slow polls >= 1% of polls, or blocking calls on an event-loop worker >= 0.01 per poll, in some round): /cpu by slow polls, /posts/{id}/blocking by both, /users/{id}/blocking by blocking calls, /users/{id}/cache/blocking by blocking calls; mismatches per round: 0, 0, 0"
    );
}

#[test]
fn a_route_flagged_by_neither_half_or_flagged_wrongly_is_not_held_and_named() {
    let obs = matrix(
        2,
        &[
            ("async-cpu", "/cpu", 0.5, 0.0),
            ("async-cpu-rayon", "/cpu/rayon", 0.03, 0.0),
            // Blocks by design, but neither half saw it.
            ("async-users-blocking", "/users/{id}/blocking", 0.002, 0.0),
            // Does not block by design, yet made blocking calls on a worker.
            (
                "async-users-spawn-blocking",
                "/users/{id}/spawn-blocking",
                0.0,
                1.0,
            ),
        ],
    );
    let (interval, verdict, evidence) = detector_verdict(&obs, LINES).unwrap();
    assert_eq!(verdict, Verdict::NotHeld);
    assert_eq!((interval.min, interval.max), (3.0, 3.0));
    assert_eq!(
        evidence,
        "flagged (slow polls >= 1% of polls, or blocking calls on an event-loop worker >= 0.01 per poll, in some round): /cpu by slow polls, /cpu/rayon by slow polls, /users/{id}/spawn-blocking by blocking calls; should be but flagged by neither half: /users/{id}/blocking in async-users-blocking (slow polls 0.2%, 0.2%; blocking calls per poll 0, 0) (a slow poll is a poll of --slow-poll-ms or longer, so a quick blocking call does not make one; a blocking call is counted only where the server marks it, so an unmarked one, or a server without the counter, leaves only the slow-poll half); flagged but should not be: /cpu/rayon in async-cpu-rayon (slow polls 3.0%, 3.0%; blocking calls per poll 0, 0); /users/{id}/spawn-blocking in async-users-spawn-blocking (slow polls 0%, 0%; blocking calls per poll 1.00, 1.00); mismatches per round: 3, 3"
    );
}

#[test]
fn a_route_flagged_by_each_half_in_different_rounds_is_flagged_by_both() {
    let obs = vec![
        observation(
            "async-users-blocking",
            1,
            "/users/{id}/blocking",
            Some(0.3),
            Some(0.0),
        ),
        observation(
            "async-users-blocking",
            2,
            "/users/{id}/blocking",
            Some(0.0),
            Some(1.0),
        ),
    ];
    let (_, verdict, evidence) = detector_verdict(&obs, LINES).unwrap();
    assert_eq!(verdict, Verdict::Held);
    assert!(
        evidence.contains("): /users/{id}/blocking by both;"),
        "{evidence}"
    );
}

#[test]
fn without_the_blocking_call_counter_the_slow_poll_half_judges_alone() {
    // A server (or a results.json) from before the counter existed.
    let obs = vec![
        observation("async-cpu", 1, "/cpu", Some(0.5), None),
        observation(
            "async-users-blocking",
            1,
            "/users/{id}/blocking",
            Some(0.002),
            None,
        ),
    ];
    let (_, verdict, evidence) = detector_verdict(&obs, LINES).unwrap();
    assert_eq!(verdict, Verdict::NotHeld);
    assert!(
        evidence.contains(
            "/users/{id}/blocking in async-users-blocking (slow polls 0.2%; blocking calls per poll -)"
        ),
        "{evidence}"
    );
}

#[test]
fn rounds_that_disagree_or_a_missing_figure_are_inconclusive() {
    let mut obs = matrix(2, &[("async-cpu", "/cpu", 0.5, 0.0)]);
    obs.push(observation(
        "async-users-blocking",
        1,
        "/users/{id}/blocking",
        Some(0.0),
        Some(1.0),
    ));
    obs.push(observation(
        "async-users-blocking",
        2,
        "/users/{id}/blocking",
        Some(0.0),
        Some(0.0),
    ));
    let (_, verdict, evidence) = detector_verdict(&obs, LINES).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(
        evidence.ends_with("mismatches per round: 0, 1"),
        "{evidence}"
    );

    let off = vec![observation("async-cpu", 1, "/cpu", None, None)];
    let (_, verdict, evidence) = detector_verdict(&off, LINES).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(
        evidence
            .contains("no detector figures (detector off or /metrics unreadable) in: async-cpu"),
        "{evidence}"
    );
    assert!(detector_verdict(&[], LINES).is_none());
}

#[test]
fn the_thresholds_are_the_documented_ones() {
    assert_eq!(THRESHOLDS.detector_slow_poll_share, 0.01);
    assert_eq!(THRESHOLDS.detector_blocking_calls_per_poll, 0.01);
    assert_eq!(DetectorLines::of(&THRESHOLDS), LINES);
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
