//! Test support for running both reference servers side by side.
//!
//! `spawn_app(Server::Blocking)` and `spawn_app(Server::Async)` start a server
//! in this process on a free port, against its own fresh Postgres database and
//! its own Redis key prefix (from `local-services`), so tests run in parallel
//! with each other and with a server a person is running. The suites in
//! `tests/` drive both through the same helpers and expect the same answers.
//!
//! `http` is the one raw HTTP client (one-shot or keep-alive; it reads
//! answers with `net_tools::http_answer`, the workspace's one reader), `drip` a
//! client that sends its body a byte at a time, `log_capture` the servers'
//! log lines kept for a test to read, `contract_cases` the contract suite's
//! table of requests and their exact answers (bench runs it against the
//! calibration servers too). The TCP proxy that breaks
//! or slows a dependency on purpose is `net_tools::proxy`, shared with bench;
//! `spawn_app` puts one in front of Postgres and Redis when asked.
//!
//! may's carriers are process-wide, so a virtual-thread server slowed on
//! purpose has them to itself while it runs (`carriers`).
//!
//! [`test_cases!`](crate::test_cases!) writes a `#[test]` per case around one body (a test per
//! server mode, each named, gated or in a process of its own).
//!
//! `process` runs a server's real binary as a child process instead, for the
//! checks that need a process of its own: signals, `/proc` figures (the
//! workspace's one child-server launcher; its bursts are loadgen's).
//! `prometheus` runs a real Prometheus that scrapes test servers.
//!
//! # One test binary
//!
//! The suites are the modules of one test binary (`tests/suites/main.rs`):
//! it links once, and its tests share the machine's idle time. What is per
//! process is then shared by all of them:
//! - may's configuration: the first virtual-thread server fixes the
//!   carriers (two, as the harness asks) for the process, and the carrier
//!   gate (`carriers`) keeps a slowed server's carriers to itself;
//! - the one tracing subscriber and the process's threads: a test that
//!   asserts what was *not* logged, asks for other carriers, counts this
//!   process's threads, or would hold the carriers for long, runs in a
//!   process of its own ([`in_own_process!`]);
//! - the machine: a test that loads it ([`exclusive`]: bursts of thousands
//!   of connections, a load generator at full speed) runs with no other
//!   such test and no test that times anything ([`quiet`]), which run
//!   beside each other and beside the plain tests (`load_gate`).
//!
//! libtest runs six of these tests at a time (`.cargo/config.toml`), not
//! one per core: most of a test is waiting (for a database to be made, a
//! server to seed, a timeout it provokes). Measured on the project's
//! 2-core machine with other builds running, the suites took about 360 s
//! on two threads, 180-220 s on four, 125-185 s on six and no less on
//! eight, where more tests compete for the cores and timing tests slow.
//! Tests that check every server mode start them side by side
//! ([`each_server_at_once`], [`spawn_apps`]); [`cpu_n_taking`] sizes CPU
//! work on a machine that others share.
//!
//! The open-file limit is only ever raised, and no test changes the
//! environment but in a process of its own, so neither needs more.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test harness: a panic is how it reports a failure to the test"
)]

pub mod app;
mod at_once;
mod carriers;
pub mod contract_cases;
mod cpu_work;
pub mod drip;
pub mod http;
mod load_gate;
pub mod log_capture;
pub mod own_process;
pub mod process;
pub mod prometheus;
mod route_samples;
pub mod steady_load;
pub mod test_cases;

pub use app::{fresh_data, spawn_app, spawn_app_with, AppData, AppOptions, Server, TestApp};
pub use at_once::{each_at_once, each_server_at_once, spawn_apps};
pub use cpu_work::cpu_n_taking;
pub use http::{Conn, Response};
pub use load_gate::{exclusive, quiet, LoadGate};
pub use log_capture::{capture_logs, CapturedLogs};
pub use route_samples::split_by_design;

/// Whether to run the reliability tests at their full size
/// (`RELIABILITY_FULL=1`, docs/reliability.md) instead of the one that
/// proves the same promise in `cargo test`.
pub fn reliability_full() -> bool {
    std::env::var("RELIABILITY_FULL").is_ok_and(|v| v == "1")
}
