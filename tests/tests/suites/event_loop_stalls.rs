//! The async server's stall detector names the routes that block
//! its event loop, and only those.
//!
//! One runtime worker (as in crates/async-server/tests/lessons.rs), Postgres
//! behind a proxy that holds every chunk for 150 ms, so a query takes at least
//! 300 ms, and a slow-poll threshold of 100 ms. Five routes are asked at the
//! same time, in rounds: two block the worker by design (`/users/{id}/blocking`
//! waits for the sync driver's query on the worker, `/cpu` computes ~0.5 s
//! on it), three do not (`/users/{id}` awaits the same slow query through
//! sqlx, `/cpu/rayon` awaits the same computation on the rayon pool,
//! `/health` has nothing to wait for). Every request of the first two must
//! count a slow poll under its own route and produce the warning that names
//! it; the other three must count polls and no slow poll, and get no warning,
//! although they waited behind the blocked worker like everyone else (that
//! is scheduling delay, not a slow poll). The lag probe must have seen the
//! stalls too.
//!
//! Margins: the blocking polls last 300-500 ms or more against a 100-ms
//! threshold; the others are sub-millisecond polls, which only a 100-ms
//! preemption of the worker thread would push over it.

use std::thread;
use std::time::Duration;

use contract::routes::{self, NonBlocking};
use harness::{capture_logs, http, spawn_app_with, AppOptions, Server, TestApp};

const SLOW_POLL_MS: u64 = 100;
const DB_DELAY_PER_CHUNK: Duration = Duration::from_millis(150);
const ROUNDS: usize = 2;
const COPIES: usize = 2;

/// An `n` for `/cpu?n=` that takes about half a second here (in this build),
/// and what one such request is expected to take.
fn half_a_second_of_cpu() -> (u64, Duration) {
    harness::cpu_n_taking(Duration::from_millis(500))
}

fn slow_polls(app: &TestApp, route: &str) -> Option<f64> {
    app.metric(&format!(
        "route_slow_polls_total{{server=\"async\",route=\"{route}\"}}"
    ))
}

fn polls(app: &TestApp, route: &str) -> Option<f64> {
    app.metric(&format!(
        "route_polls_total{{server=\"async\",route=\"{route}\"}}"
    ))
}

/// Each of `paths` COPIES times at once, ROUNDS times; every answer 200.
fn send_together(app: &TestApp, paths: &[String]) {
    for _ in 0..ROUNDS {
        let senders: Vec<_> = paths
            .iter()
            .flat_map(|path| std::iter::repeat_n(path.clone(), COPIES))
            .map(|path| {
                let addr = app.addr;
                thread::spawn(move || {
                    let answer = http::send(addr, "GET", &path, &[], b"")
                        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
                    (path, answer.status)
                })
            })
            .collect();
        for sender in senders {
            let (path, status) = sender.join().expect("request thread");
            assert_eq!(status, 200, "GET {path}");
        }
    }
}

/// An async server with one worker, its Postgres slowed down once its
/// pooled connections are open.
fn one_worker_behind_a_slow_postgres() -> TestApp {
    let app = spawn_app_with(
        Server::Async,
        AppOptions {
            through_proxies: true,
            extra_args: [
                "--worker-threads",
                "1",
                "--rayon-threads",
                "1",
                "--slow-poll-ms",
                &SLOW_POLL_MS.to_string(),
                // Requests queue behind the blocked worker; none may time out.
                "--acquire-timeout-ms",
                "15000",
            ]
            .map(String::from)
            .to_vec(),
            ..AppOptions::default()
        },
    );
    // Open the pooled connections while Postgres is fast, then slow it down.
    assert_eq!(app.get("/users/1").status, 200);
    assert_eq!(app.get("/users/1/blocking").status, 200);
    app.db_proxy
        .as_ref()
        .expect("a proxy in front of Postgres")
        .set_delay(DB_DELAY_PER_CHUNK);
    app
}

/// Each route that blocks the event loop is named a stall; no other is.
fn stall_detector_names_the_blocking_routes() {
    // Arrange
    let logs = capture_logs();
    let (n, cpu_takes) = half_a_second_of_cpu();
    assert!(
        cpu_takes >= Duration::from_millis(3 * SLOW_POLL_MS),
        "/cpu?n={n} takes only {cpu_takes:?} in this build; the test needs 3x the threshold"
    );
    let app = one_worker_behind_a_slow_postgres();

    let blocking = [
        ("/users/{id}/blocking", "/users/1/blocking".to_owned()),
        ("/cpu", format!("/cpu?n={n}")),
    ];
    let awaiting = [
        ("/users/{id}", "/users/1".to_owned()),
        ("/cpu/rayon", format!("/cpu/rayon?n={n}")),
        ("/health", "/health".to_owned()),
    ];
    // The contract's route table says which block.
    for (route, _) in blocking.iter().chain(&awaiting) {
        let by_design = blocking.iter().any(|(r, _)| r == route);
        assert_eq!(
            routes::blocks(route, NonBlocking::EventLoop),
            by_design,
            "{route}"
        );
    }
    let before: Vec<f64> = blocking
        .iter()
        .map(|(route, _)| slow_polls(&app, route).unwrap_or(0.0))
        .collect();

    // Act: every route COPIES times at once, ROUNDS times.
    let paths: Vec<String> = blocking
        .iter()
        .chain(&awaiting)
        .map(|(_, p)| p.clone())
        .collect();
    send_together(&app, &paths);

    // Assert: the blocking routes, each of their requests a slow poll, and a
    // warning naming each with the fix.
    let sent = (ROUNDS * COPIES) as f64;
    for ((route, _), before) in blocking.iter().zip(before) {
        let counted = slow_polls(&app, route).unwrap_or(0.0) - before;
        eprintln!("{route}: {counted} slow polls for {sent} requests");
        assert!(
            counted >= sent,
            "{route}: {counted} new slow polls for {sent} requests that each blocked the worker"
        );
        let words = ["spawn_blocking or rayon"];
        let warning = logs.expect_route_warning(route, &words, "slow-poll warning");
        eprintln!("{warning}");
        assert!(
            warning.contains(" ms"),
            "the warning gives the poll's length: {warning}"
        );
    }
    // The others: polled, never slowly, and never named. (The warning task
    // reads every monitor on the same tick; waiting one more second lets a
    // wrong warning show up.)
    thread::sleep(Duration::from_secs(2));
    for (route, _) in &awaiting {
        let polled = polls(&app, route).unwrap_or(0.0);
        assert!(polled >= sent, "{route}: only {polled} polls");
        assert_eq!(
            slow_polls(&app, route),
            Some(0.0),
            "{route} made a slow poll"
        );
        let named = logs.lines_with(&["WARN", &format!("route=\"{route}\"")]);
        assert!(named.is_empty(), "{route} was named:\n{}", named.join("\n"));
    }
    lag_probe_saw_the_stalls(&app);
}

/// The runtime-wide probe saw the worker stall for at least a query's
/// length; the detector's lines of /metrics are printed for the reader.
fn lag_probe_saw_the_stalls(app: &TestApp) {
    let text = app.get("/metrics").text();
    let detector_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("route_") || l.starts_with("event_loop_lag"))
        .collect();
    eprintln!("{}", detector_lines.join("\n"));
    // The runtime-wide probe saw the worker stall for at least a query's length.
    let lag_max = app
        .metric("event_loop_lag_seconds{server=\"async\",quantile=\"1\"}")
        .unwrap_or(0.0);
    eprintln!("event-loop lag, max over the last minute: {lag_max} s");
    assert!(lag_max >= 0.2, "lag probe max {lag_max} s");
}

// In a process of its own: it asserts that no other route was named a
// stall, and every server of this binary logs to the one subscriber.
harness::test_cases! {
    stall_detector_names_the_blocking_routes, gate: quiet;
    in_own_process the_stall_detector_names_the_routes_that_block_the_event_loop_and_no_others();
}
