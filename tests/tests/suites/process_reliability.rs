//! On each server mode's real binary run as a child process: a connection
//! burst on every route (the server keeps serving, and its threads and RSS
//! come back near idle), SIGTERM with 100 requests in flight, a second
//! SIGTERM, and the drain timeout. The checks are in `harness::process`;
//! this module says what is particular to each server.
//!
//! The binaries are this package's `test-blocking-server` and
//! `test-async-server` (src/bin/), the servers' own `main_with_args` behind
//! a name cargo hands to this package's tests. In `cargo test` the burst is
//! 1,000 connections per route; `RELIABILITY_FULL=1` makes it 10,000;
//! `BLOCKING_SERVER_BIN` / `ASYNC_SERVER_BIN=target/release/<binary>` runs
//! another build. See the figures with
//! `RELIABILITY_FULL=1 cargo test -p harness --test suites -- process_reliability --nocapture`.

use std::time::Duration;

use harness::process::ProcessProfile;
use harness::Server;

/// Its invariant: the handler pool and the poller are all the threads it has,
/// whatever the load; both start before the idle sample.
const BLOCKING: ProcessProfile =
    ProcessProfile::new(Server::Blocking, env!("CARGO_BIN_EXE_test-blocking-server"));

const ASYNC: ProcessProfile = ProcessProfile {
    // The async variants that do not hold a runtime worker for long.
    // `/posts/{id}/blocking` is left out on purpose: it sleeps 300 ms on a
    // worker, so a burst of N on it takes N x 300 ms / workers (minutes
    // for 1,000), which is its lesson, not a fault.
    extra_routes: &[
        ("GET", "/cpu/spawn-blocking?n=10000"),
        ("GET", "/cpu/rayon?n=10000"),
        ("GET", "/users/42/blocking"),
        ("GET", "/users/42/spawn-blocking"),
        ("GET", "/users/42/cache/blocking"),
    ],
    // spawn_blocking grows tokio's blocking pool under load, by design.
    peak_threads_over_idle: None,
    // tokio's blocking-pool threads end after 10 s idle; give them that
    // and more.
    threads_settle: Duration::from_secs(30),
    ..ProcessProfile::new(Server::Async, env!("CARGO_BIN_EXE_test-async-server"))
};

/// The blocking server's binary, run with `--threads virtual`
/// (`Server::variant_args`). Its invariant: the carriers, may's I/O thread
/// and the pinning warnings thread are all it has; a burst of connections
/// adds coroutines, not threads.
const VIRTUAL: ProcessProfile =
    ProcessProfile::new(Server::Virtual, env!("CARGO_BIN_EXE_test-blocking-server"));

mod blocking {
    harness::process_reliability_tests!(super::BLOCKING);
}

mod async_server {
    harness::process_reliability_tests!(super::ASYNC);
}

mod virtual_threads {
    harness::process_reliability_tests!(super::VIRTUAL);
}
