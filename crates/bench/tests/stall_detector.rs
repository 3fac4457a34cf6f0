//! bench's view of the servers' stall detectors (issue 9): the figures of a
//! window computed from captured `/metrics` texts of the real servers, the
//! report's rows, and the finding "the detector flags exactly the routes
//! that block by design" from fixed observations.

use bench::detector::window;
use bench::findings::{detector_verdict, DetectorObservation, THRESHOLDS};
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

fn observation(column: &str, round: u32, route: &str, share: Option<f64>) -> DetectorObservation {
    DetectorObservation {
        column: column.to_owned(),
        round,
        route: route.to_owned(),
        slow_poll_share: share,
    }
}

/// Three rounds of the same shares: the inline routes slow, the others not.
fn matrix(rounds: u32, shares: &[(&str, &str, f64)]) -> Vec<DetectorObservation> {
    (1..=rounds)
        .flat_map(|r| {
            shares
                .iter()
                .map(move |(col, route, s)| observation(col, r, route, Some(*s)))
        })
        .collect()
}

const SHARE: f64 = 0.01;

#[test]
fn the_flagged_set_equal_to_the_design_set_in_every_round_holds() {
    let obs = matrix(
        3,
        &[
            ("async-cpu", "/cpu", 0.5),
            ("async-cpu-rayon", "/cpu/rayon", 0.0),
            ("async-health-next-to-posts-blocking", "/health", 0.0),
            (
                "async-health-next-to-posts-blocking",
                "/posts/{id}/blocking",
                0.5,
            ),
            // Just under the line is not flagged; just on it is.
            ("async-users", "/users/{id}", 0.0099),
            ("async-users-blocking", "/users/{id}/blocking", 0.01),
        ],
    );
    let (interval, verdict, evidence) = detector_verdict(&obs, SHARE).unwrap();
    assert_eq!(verdict, Verdict::Held);
    assert_eq!((interval.min, interval.max, interval.n), (0.0, 0.0, 3));
    assert_eq!(
        evidence,
        "flagged (slow polls >= 1% of polls in some round): /cpu, /posts/{id}/blocking, /users/{id}/blocking; mismatches per round: 0, 0, 0"
    );
}

#[test]
fn a_route_flagged_wrongly_or_missed_in_every_round_is_not_held_and_named() {
    let obs = matrix(
        2,
        &[
            ("async-cpu", "/cpu", 0.5),
            ("async-cpu-rayon", "/cpu/rayon", 0.03),
            ("async-users-blocking", "/users/{id}/blocking", 0.002),
        ],
    );
    let (interval, verdict, evidence) = detector_verdict(&obs, SHARE).unwrap();
    assert_eq!(verdict, Verdict::NotHeld);
    assert_eq!((interval.min, interval.max), (2.0, 2.0));
    assert_eq!(
        evidence,
        "flagged (slow polls >= 1% of polls in some round): /cpu, /cpu/rayon; should be but not flagged: /users/{id}/blocking in async-users-blocking (0.2%, 0.2%) (a slow poll is a poll of --slow-poll-ms or longer: a blocking call that returns sooner, such as a quick query to a local Postgres or a Redis GET, holds its worker without making one); flagged but should not be: /cpu/rayon in async-cpu-rayon (3.0%, 3.0%); mismatches per round: 2, 2"
    );
}

#[test]
fn rounds_that_disagree_or_a_missing_figure_are_inconclusive() {
    let mut obs = matrix(2, &[("async-cpu", "/cpu", 0.5)]);
    obs.push(observation(
        "async-users-blocking",
        1,
        "/users/{id}/blocking",
        Some(0.2),
    ));
    obs.push(observation(
        "async-users-blocking",
        2,
        "/users/{id}/blocking",
        Some(0.0),
    ));
    let (_, verdict, evidence) = detector_verdict(&obs, SHARE).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(
        evidence.ends_with("mismatches per round: 0, 1"),
        "{evidence}"
    );

    let off = vec![observation("async-cpu", 1, "/cpu", None)];
    let (_, verdict, evidence) = detector_verdict(&off, SHARE).unwrap();
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(
        evidence
            .contains("no detector figures (detector off or /metrics unreadable) in: async-cpu"),
        "{evidence}"
    );
    assert!(detector_verdict(&[], SHARE).is_none());
}

#[test]
fn the_threshold_is_the_documented_one() {
    assert_eq!(THRESHOLDS.detector_slow_poll_share, 0.01);
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
        (blocking.polls, blocking.slow_polls),
        (Some(61113), Some(22))
    );
    assert!(close(blocking.slow_poll_seconds, 0.476220));
    assert_eq!(blocking.slow_poll_share(), Some(22.0 / 61113.0));
    assert_eq!(blocking.queue_wait_p99_ms, None);
    // Polled once before the window: that poll is not the window's.
    let health = w.route("/health").unwrap();
    assert_eq!((health.polls, health.slow_polls), (Some(65610), Some(0)));
    assert!(close(w.event_loop_lag_p99_ms, 4.319));
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
