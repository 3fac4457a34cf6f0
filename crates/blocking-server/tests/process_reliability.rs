//! Issue 5, items 3 and 5, on the real `blocking-server` binary run as a child
//! process: a connection burst on every route (the server keeps serving, and
//! its threads and RSS come back near idle), SIGTERM with 100 requests in
//! flight, a second SIGTERM, and the drain timeout. The checks themselves are
//! in `server_tests::process`, shared with
//! crates/async-server/tests/process_reliability.rs; this file says what is
//! particular to this server.
//!
//! In CI the burst is 2,000 connections per route; `RELIABILITY_FULL=1`
//! makes it 10,000 (issue 5's figure). `BLOCKING_SERVER_BIN=target/release/<binary>`
//! runs another build of the server (the test profile's is a debug build). See the figures with
//! `RELIABILITY_FULL=1 cargo test -p blocking-server --test process_reliability -- --nocapture`.

use std::time::Duration;

use server_tests::process::ProcessProfile;
use server_tests::Server;

const BLOCKING: ProcessProfile = ProcessProfile {
    server: Server::Blocking,
    built_binary: env!("CARGO_BIN_EXE_blocking-server"),
    // The contract's routes are all this server has.
    extra_routes: &[],
    // The handler pool and the poller are fixed threads, started before the
    // idle sample: nothing to wait for but sockets closing.
    threads_settle: Duration::from_secs(20),
    // src/cli.rs: a second signal exits at once with 128 + its number.
    second_sigterm_exit_code: 128 + 15,
};

server_tests::process_reliability_tests!(BLOCKING);
