//! Test support for running both reference servers side by side.
//!
//! `spawn_app(Server::Blocking)` and `spawn_app(Server::Async)` start a server
//! in this process on a free port, against its own fresh Postgres database and
//! its own Redis key prefix (from `local-services`), so tests run in parallel
//! with each other and with a server a person is running. The suites in
//! `tests/` drive both through the same helpers and expect the same answers.
//!
//! `http` is the one raw HTTP client (one-shot or keep-alive), `fault_proxy`
//! the one TCP proxy that breaks a dependency on purpose, `log_capture` the
//! servers' log lines kept for a test to read.
//!
//! `process` runs a server's real binary as a child process instead, for the
//! checks that need a process of its own: signals, `/proc` figures.

pub mod app;
pub mod cold_start_probe;
pub mod fault_proxy;
pub mod http;
pub mod log_capture;
pub mod process;

pub use app::{fresh_data, spawn_app, spawn_app_with, AppData, AppOptions, Server, TestApp};
pub use http::{Conn, Response};
pub use log_capture::{capture_logs, CapturedLogs};
