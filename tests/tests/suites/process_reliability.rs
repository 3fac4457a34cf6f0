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

mod blocking {
    use std::time::Duration;

    use harness::process::ProcessProfile;
    use harness::Server;

    const BLOCKING: ProcessProfile = ProcessProfile {
        server: Server::Blocking,
        built_binary: env!("CARGO_BIN_EXE_test-blocking-server"),
        // The contract's routes are all this server has.
        extra_routes: &[],
        // Its invariant: the handler pool and the poller are all the threads
        // it has, whatever the load (slack for the sampler catching a
        // short-lived helper thread).
        peak_threads_over_idle: Some(5),
        // The handler pool and the poller are fixed threads, started before
        // the idle sample: nothing to wait for but sockets closing.
        threads_settle: Duration::from_secs(20),
        // src/cli.rs: a second signal exits at once with 128 + its number.
        second_sigterm_exit_code: 128 + 15,
    };

    harness::process_reliability_tests!(BLOCKING);
}

mod async_server {
    use std::time::Duration;

    use harness::process::ProcessProfile;
    use harness::Server;

    const ASYNC: ProcessProfile = ProcessProfile {
        server: Server::Async,
        built_binary: env!("CARGO_BIN_EXE_test-async-server"),
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
        // src/cli.rs: a second signal exits at once with 128 + its number.
        second_sigterm_exit_code: 128 + 15,
    };

    harness::process_reliability_tests!(ASYNC);
}

mod virtual_threads {
    use std::time::Duration;

    use harness::process::ProcessProfile;
    use harness::Server;

    const VIRTUAL: ProcessProfile = ProcessProfile {
        server: Server::Virtual,
        // The blocking server's binary, run with `--threads virtual`
        // (Server::variant_args).
        built_binary: env!("CARGO_BIN_EXE_test-blocking-server"),
        extra_routes: &[],
        // Its invariant: the carriers, may's I/O thread and the pinning
        // warnings thread are all it has; a burst of connections adds
        // coroutines, not threads.
        peak_threads_over_idle: Some(5),
        threads_settle: Duration::from_secs(20),
        // src/cli.rs: a second signal exits at once with 128 + its number.
        second_sigterm_exit_code: 128 + 15,
    };

    harness::process_reliability_tests!(VIRTUAL);
}
