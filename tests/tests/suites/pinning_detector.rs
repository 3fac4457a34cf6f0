//! The pinning detector of the virtual-thread mode (the analog of JFR's
//! `jdk.VirtualThreadPinned`), its two halves checked apart:
//!
//! - marks: each route that pins a carrier by design (the contract's route
//!   table, `NonBlocking::CarrierPinningDriver`) counts at least one
//!   blocking call per request under its own route, and gets a warning
//!   naming it and the fix; every other route counts none;
//! - timing: with Postgres and Redis behind the delaying proxy (a round trip
//!   of four times the slow threshold) and a `/cpu` that takes ten times
//!   the threshold, each of those routes holds its carrier without parking
//!   for longer than the threshold on every request
//!   (`route_carrier_stalls_total`), while `/posts/{id}`, whose 300-ms wait
//!   parks the coroutine, and the quick routes never do;
//! - with the yielding driver, the same routes behind the same proxy are
//!   never flagged by either half: their waits park.

use std::thread;
use std::time::Duration;

use contract::routes::NonBlocking;
use harness::{capture_logs, spawn_app_with, AppOptions, CapturedLogs, Server, TestApp};
use server_metrics::blocking_calls::SLOW_DEFAULT;

const REQUESTS: usize = 3;
/// Four times the slow threshold per round trip to Postgres and Redis.
const ROUND_TRIP: Duration = Duration::from_millis(SLOW_DEFAULT.as_millis() as u64 * 4);

fn counter(app: &TestApp, family: &str, route: &str) -> Option<f64> {
    app.metric(&format!("{family}{{server=\"virtual\",route=\"{route}\"}}"))
}

/// A virtual-thread server (`server`: its driver), its dependencies slow
/// enough (a round trip of [`ROUND_TRIP`]) that each call is a stall by
/// timing alone unless it parks.
fn virtual_server_behind_slow_dependencies(server: Server) -> TestApp {
    let app = spawn_app_with(
        server,
        AppOptions {
            through_proxies: true,
            ..AppOptions::default()
        },
    );
    for proxy in [&app.db_proxy, &app.redis_proxy] {
        let Some(proxy) = proxy else {
            panic!("no proxy in front of Postgres or Redis");
        };
        proxy.set_round_trip(ROUND_TRIP);
    }
    app
}

/// `route` was marked and timed on every request, and named in a warning
/// with its fix.
fn assert_flagged(app: &TestApp, logs: &CapturedLogs, route: &str) {
    let marked = counter(app, "route_blocking_calls_total", route).unwrap_or(0.0);
    let stalls = counter(app, "route_carrier_stalls_total", route).unwrap_or(0.0);
    eprintln!("{route}: {marked} marked calls, {stalls} stalls for {REQUESTS} requests");
    assert!(
        marked >= REQUESTS as f64,
        "{route}: {marked} blocking calls counted for {REQUESTS} requests that each made one"
    );
    assert!(
        stalls >= REQUESTS as f64,
        "{route}: {stalls} carrier stalls timed for {REQUESTS} requests that each held their carrier"
    );
    let words = ["blocking_calls=", "carrier"];
    let warning = logs.expect_route_warning(route, &words, "pinning warning");
    let fix = if route == "/cpu" {
        "move CPU-heavy work off the carriers"
    } else {
        "use --driver yielding"
    };
    assert!(warning.contains(fix), "{route}: no fix in {warning}");
}

/// The pinning driver's routes are flagged twice over, the others never.
fn pinning_routes_are_flagged() {
    // Arrange: the virtual-thread server on the pinning driver, its
    // dependencies slow enough that each call is a stall by timing alone.
    let logs = capture_logs();
    let app = virtual_server_behind_slow_dependencies(Server::Virtual);
    let (n, _) = harness::cpu_n_taking(SLOW_DEFAULT * 10);
    let samples: Vec<(&str, String)> = vec![
        ("/users/{id}", "/users/1".into()),
        ("/users/{id}/cache", "/users/1/cache".into()),
        ("/cpu", format!("/cpu?n={n}")),
        ("/posts/{id}", "/posts/1".into()),
        ("/health", "/health".into()),
    ];
    let (pinning, parking) = harness::split_by_design(&samples, NonBlocking::CarrierPinningDriver);

    // Act
    for (_, path) in &samples {
        for _ in 0..REQUESTS {
            assert_eq!(app.get(path).status, 200, "GET {path}");
        }
    }

    // Assert: marks and timing each name every pinning route...
    for (route, _) in &pinning {
        assert_flagged(&app, &logs, route);
    }
    // ...and no other route (one more warning tick for a wrong one).
    thread::sleep(Duration::from_secs(2));
    for (route, _) in &parking {
        assert_eq!(
            counter(&app, "route_blocking_calls_total", route),
            Some(0.0),
            "{route} counted a blocking call on a carrier"
        );
        assert_eq!(
            counter(&app, "route_carrier_stalls_total", route),
            Some(0.0),
            "{route} was timed holding its carrier"
        );
        let named = logs.lines_with(&["WARN", &format!("route=\"{route}\""), "blocking_calls="]);
        assert!(named.is_empty(), "{route} was named:\n{}", named.join("\n"));
    }
    let lag = app.metric("carrier_lag_seconds_count{server=\"virtual\"}");
    assert!(
        lag.unwrap_or(0.0) > 0.0,
        "the carrier probes recorded nothing"
    );
}

/// The same slow dependencies on the yielding driver: nothing is flagged.
fn yielding_driver_is_not_flagged() {
    // Arrange: the same slow dependencies, the driver that parks.
    let app = virtual_server_behind_slow_dependencies(Server::VirtualYielding);

    // Act
    for path in ["/users/1", "/users/1/cache", "/users/2/cache"] {
        for _ in 0..REQUESTS {
            assert_eq!(app.get(path).status, 200, "GET {path}");
        }
    }

    // Assert: every call waited ROUND_TRIP or more, parked; none counted.
    thread::sleep(Duration::from_secs(2));
    for route in ["/users/{id}", "/users/{id}/cache"] {
        for family in ["route_blocking_calls_total", "route_carrier_stalls_total"] {
            assert_eq!(
                counter(&app, family, route),
                Some(0.0),
                "{route}: {family} on the yielding driver"
            );
        }
    }
    // No log check needed: a warning is written only when a route's marked
    // calls rose, which the first assertion rules out.
}

// Each in a process of its own: the first asserts that no other route was
// flagged, and every server of this binary logs to the one subscriber; the
// second's server, slowed behind proxies, has may's carriers to itself (the
// harness's carrier gate), and here would wait for every other test's.
harness::test_cases! {
    pinning_routes_are_flagged, gate: quiet;
    in_own_process pinning_routes_are_flagged_by_their_marks_and_by_timing_and_no_other();

    yielding_driver_is_not_flagged, gate: quiet;
    in_own_process the_yielding_driver_is_never_flagged();
}
