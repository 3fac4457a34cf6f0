//! The virtual-thread server with `--driver yielding`, end to
//! end: 503 with the contract's body while Postgres or Redis is down or
//! hanging (behind a fault proxy), answers again afterwards without a
//! restart; and on ONE carrier, with Postgres a 20-ms round trip away,
//! eight concurrent `/users/1` hold `/health` back under the pinning
//! driver (each query holds the carrier) and not under the yielding one
//! (each query parks its coroutine).
//!
//! may's configuration is process-wide: the first virtual-thread server
//! of a process sets it, so each test here runs in a process of its own
//! (`harness::in_own_process!`), where every server asks for one carrier
//! (`--carriers 1`).

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use contract::ApiError;
use harness::{http, spawn_app_with, AppOptions, Server, TestApp};
use net_tools::proxy::Mode;

/// The virtual-thread server on one carrier with `driver`, Postgres and
/// Redis behind fault proxies, pools of 4, an acquire timeout of 500 ms.
fn virtual_server(driver: &str) -> TestApp {
    let extra = [
        "--carriers",
        "1",
        "--driver",
        driver,
        "--db-pool-size",
        "4",
        "--redis-pool-size",
        "4",
        "--acquire-timeout-ms",
        "500",
    ];
    spawn_app_with(
        Server::Virtual,
        AppOptions {
            through_proxies: true,
            extra_args: extra.iter().map(|a| (*a).to_owned()).collect(),
            ..AppOptions::default()
        },
    )
}

/// `path`'s status and body, and how long it took.
fn timed_get(app: &TestApp, path: &str) -> (u16, Vec<u8>, Duration) {
    let started = Instant::now();
    let r = http::send(app.addr, "GET", path, &[], &[]).expect("an answer");
    (r.status, r.body, started.elapsed())
}

/// On one carrier, each dependency's outage is a 503, then recovers.
fn outage_on_one_carrier() {
    let app = virtual_server("yielding");
    assert_eq!(app.get("/users/1").status, 200);
    assert_eq!(app.get("/users/1/cache").status, 200);
    let cases = [
        (
            "database",
            "/users/1",
            app.db_proxy.as_ref().expect("db proxy"),
        ),
        (
            "cache",
            "/users/1/cache",
            app.redis_proxy.as_ref().expect("redis proxy"),
        ),
    ];
    for (dependency, path, proxy) in cases {
        for mode in [Mode::Refuse, Mode::Stall] {
            proxy.set_mode(mode);
            let (status, body, took) = timed_get(&app, path);
            assert_eq!(
                (status, body),
                (503, ApiError::unavailable(dependency).body_json()),
                "{path} with {dependency} {mode:?}"
            );
            // At most the acquire timeout for a connection plus as long
            // again for the answer, with a wide margin.
            assert!(took < Duration::from_secs(4), "{path} {mode:?}: {took:?}");
            proxy.set_mode(Mode::Pass);
            // The next request opens a fresh connection: no restart.
            let (status, _, _) = timed_get(&app, path);
            assert_eq!(status, 200, "{path} after {dependency} {mode:?}");
        }
    }
}

/// Sends eight `/users/1` at once and, while they run, one `/health`;
/// returns how long `/health` took and how many `/users/1` got 200.
fn health_beside_eight_queries(app: &TestApp) -> (Duration, usize) {
    let start = Arc::new(Barrier::new(9));
    let queries: Vec<_> = (0..8)
        .map(|_| {
            let (addr, start) = (app.addr, Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                http::send(addr, "GET", "/users/1", &[], &[]).map(|r| r.status)
            })
        })
        .collect();
    start.wait();
    // Let the queries reach the server and take their connections.
    std::thread::sleep(Duration::from_millis(30));
    let (status, _, health) = timed_get(app, "/health");
    assert_eq!(status, 200);
    let ok = queries
        .into_iter()
        .map(|q| q.join())
        .filter(|answer| matches!(answer, Ok(Ok(200))))
        .count();
    (health, ok)
}

/// On one carrier, pinning queries hold /health back, yielding ones not.
fn pinning_and_yielding_on_one_carrier() {
    const ROUND_TRIP: Duration = Duration::from_millis(20);
    let mut health = Vec::new();
    for driver in ["pinning", "yielding"] {
        let app = virtual_server(driver);
        let proxy = app.db_proxy.as_ref().expect("db proxy");
        // Warm the pool outside the delay, so connecting is not measured.
        let warm: Vec<_> = (0..4)
            .map(|_| {
                let addr = app.addr;
                std::thread::spawn(move || http::send(addr, "GET", "/users/1", &[], &[]))
            })
            .collect();
        for w in warm {
            assert!(w.join().expect("warm-up").is_ok_and(|r| r.status == 200));
        }
        proxy.set_round_trip(ROUND_TRIP);
        // The best of three, so that one scheduling hiccup of a busy
        // machine does not decide.
        let rounds: Vec<(Duration, usize)> =
            (0..3).map(|_| health_beside_eight_queries(&app)).collect();
        for (_, ok) in &rounds {
            assert_eq!(*ok, 8, "{driver}: every query answered: {rounds:?}");
        }
        let best = rounds.iter().map(|(h, _)| *h).min().expect("three rounds");
        health.push((driver, best, rounds));
    }
    let (pinned, yielded) = (health[0].1, health[1].1);
    // Pinning: 8 queries on 4 connections, each holding the one carrier
    // for a round trip; /health waits behind several of them.
    assert!(
        pinned >= ROUND_TRIP * 3,
        "with the pinning driver /health should wait for several 20-ms queries: {health:?}"
    );
    // Yielding: the queries park; /health answers in well under one round trip.
    assert!(
        yielded < ROUND_TRIP / 2,
        "with the yielding driver /health should not wait for the queries: {health:?}"
    );
}

// Each in a process of its own: may's carriers are fixed by the process's
// first virtual-thread server, and these ask for one carrier.
harness::test_cases! {
    outage_on_one_carrier;
    in_own_process an_outage_of_either_dependency_is_a_503_with_the_contracts_body_then_recovers();

    pinning_and_yielding_on_one_carrier, gate: quiet;
    in_own_process on_one_carrier_pinning_queries_hold_health_back_and_yielding_ones_do_not();
}
