//! bench's reading of the servers' stall detectors: the figures
//! of a window computed from captured `/metrics` texts of the real servers.

use bench::measure::detector::window;
use bench_model::{DetectorWindow, RouteWindow};

// Captured from the real servers (see fixtures/metrics/README.md): the async
// server before and after a load on /users/1/blocking and /health, the
// blocking server after a load on /posts/1.
const ASYNC_BEFORE: &str = include_str!("../fixtures/metrics/async-before.txt");
const ASYNC_AFTER: &str = include_str!("../fixtures/metrics/async-after.txt");
const BLOCKING_BEFORE: &str = include_str!("../fixtures/metrics/blocking-before.txt");
const BLOCKING_AFTER: &str = include_str!("../fixtures/metrics/blocking-after.txt");
const ASYNC_DETECTOR_OFF: &str = include_str!("../fixtures/metrics/async-detector-off.txt");

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
