//! Test support for running both reference servers side by side.
//!
//! `spawn_app(Server::Blocking)` and `spawn_app(Server::Async)` start a server
//! in this process on a free port, against its own fresh Postgres database and
//! its own Redis key prefix (from `local-services`), so tests run in parallel
//! with each other and with a server a person is running. The suites in
//! `tests/` drive both through the same helpers and expect the same answers.
//!
//! `http` is the one raw HTTP client (one-shot or keep-alive), `drip` a
//! client that sends its body a byte at a time, `log_capture` the servers'
//! log lines kept for a test to read. The TCP proxy that breaks
//! or slows a dependency on purpose is `net_tools::proxy`, shared with bench;
//! `spawn_app` puts one in front of Postgres and Redis when asked.
//!
//! may's carriers are process-wide, so a virtual-thread server slowed on
//! purpose has them to itself while it runs (`carriers`).
//!
//! `process` runs a server's real binary as a child process instead, for the
//! checks that need a process of its own: signals, `/proc` figures.
//! `prometheus` runs a real Prometheus that scrapes test servers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test harness: a panic is how it reports a failure to the test"
)]

pub mod app;
mod carriers;
pub mod drip;
pub mod http;
pub mod log_capture;
pub mod process;
pub mod prometheus;

pub use app::{fresh_data, spawn_app, spawn_app_with, AppData, AppOptions, Server, TestApp};
pub use http::{Conn, Response};
pub use log_capture::{capture_logs, CapturedLogs};
