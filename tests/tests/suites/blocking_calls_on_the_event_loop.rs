//! The stall detector's second half (BlockHound's): a blocking call
//! made on an event-loop worker is counted for its route however short it
//! is, and only there.
//!
//! One runtime worker (as in event_loop_stalls.rs), Postgres and Redis local
//! and quick, the default 5-ms slow-poll threshold. The four routes that
//! block the worker by design (`/users/{id}/blocking`: the sync Postgres
//! query, `/users/{id}/cache/blocking`: two sync Redis GETs,
//! `/posts/{id}/blocking`: `std::thread::sleep`, `/cpu`: its loop, here far
//! shorter than a slow poll) must each count at least one blocking call per
//! request under their own route and get a warning naming them. The routes
//! that wait properly must count none, although `/users/{id}/spawn-blocking`
//! runs the very same sync query function and `/cpu/spawn-blocking` the same
//! loop (on a blocking-pool thread, where the marker is not set) and
//! `/cpu/rayon` runs it on the rayon pool. With `--stall-detector off` the
//! counter is absent.

use std::thread;
use std::time::Duration;

use contract::routes::NonBlocking;
use harness::{capture_logs, spawn_app_with, AppOptions, Server, TestApp};

const REQUESTS: usize = 3;

/// A request for each route of the async server that does some work: the
/// routes that block a worker by design, and their twins that do not.
const SAMPLES: &[(&str, &str)] = &[
    ("/users/{id}/blocking", "/users/1/blocking"),
    ("/users/{id}/cache/blocking", "/users/1/cache/blocking"),
    ("/posts/{id}/blocking", "/posts/1/blocking"),
    ("/cpu", "/cpu?n=1000"),
    ("/users/{id}/spawn-blocking", "/users/1/spawn-blocking"),
    ("/users/{id}", "/users/1"),
    ("/users/{id}/cache", "/users/1/cache"),
    ("/cpu/rayon", "/cpu/rayon?n=1000"),
    ("/cpu/spawn-blocking", "/cpu/spawn-blocking?n=1000"),
    ("/health", "/health"),
];

fn blocking_calls(app: &TestApp, route: &str) -> Option<f64> {
    app.metric(&format!(
        "route_blocking_calls_total{{server=\"async\",route=\"{route}\"}}"
    ))
}

fn one_worker(extra: &[&str]) -> AppOptions {
    AppOptions {
        extra_args: ["--worker-threads", "1"]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect(),
        ..AppOptions::default()
    }
}

/// The blocking routes' calls are counted and logged, the others' are not.
fn blocking_calls_are_counted_for_their_route() {
    // Arrange
    let logs = capture_logs();
    let app = spawn_app_with(Server::Async, one_worker(&[]));
    // Which of them block by design is the contract's route table's to say.
    let (blocking, awaiting) = harness::split_by_design(SAMPLES, NonBlocking::EventLoop);

    // Act
    for (_, path) in SAMPLES {
        for _ in 0..REQUESTS {
            assert_eq!(app.get(path).status, 200, "GET {path}");
        }
    }

    // Assert: each blocking route counted a call per request at least, and
    // was named in a warning with the kind of call and the fix.
    for (route, _) in blocking {
        let counted = blocking_calls(&app, route).unwrap_or(0.0);
        eprintln!("{route}: {counted} blocking calls for {REQUESTS} requests");
        assert!(
            counted >= REQUESTS as f64,
            "{route}: {counted} blocking calls counted for {REQUESTS} requests that each made one"
        );
        let words = ["blocking_calls=", "Move it to spawn_blocking"];
        let warning = logs.expect_route_warning(route, &words, "blocking-call warning");
        eprintln!("{warning}");
    }
    // The others: polled, no blocking call counted, never named. (The
    // warning task reads every route on the same tick; one more second lets
    // a wrong warning show up.)
    thread::sleep(Duration::from_secs(2));
    for (route, _) in awaiting {
        assert_eq!(
            blocking_calls(&app, route),
            Some(0.0),
            "{route} counted a blocking call on the event loop"
        );
        let named = logs.lines_with(&["WARN", &format!("route=\"{route}\""), "blocking_calls="]);
        assert!(named.is_empty(), "{route} was named:\n{}", named.join("\n"));
    }
    // For the reader (--nocapture): the counter's lines of /metrics.
    let text = app.get("/metrics").text();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("route_blocking_calls_total"))
        .collect();
    eprintln!("{}", lines.join("\n"));
}

#[test]
fn with_the_detector_off_there_is_no_blocking_call_counter() {
    let app = spawn_app_with(Server::Async, one_worker(&["--stall-detector", "off"]));
    assert_eq!(app.get("/users/1/blocking").status, 200);
    let text = app.get("/metrics").text();
    assert!(
        !text.contains("route_blocking_calls_total"),
        "detector off, yet:\n{text}"
    );
}

// In a process of its own: it asserts that no other route's blocking call
// was logged, and every server of this binary logs to the one subscriber.
harness::test_cases! {
    blocking_calls_are_counted_for_their_route, gate: quiet;
    in_own_process blocking_calls_on_a_worker_are_counted_for_their_route_and_nowhere_else();
}
