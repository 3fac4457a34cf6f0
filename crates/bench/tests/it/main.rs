//! bench's integration tests, one test binary (each file under tests/
//! would be a binary of its own, linked and run apart): the bench binary
//! run as a user runs it, on real servers, Postgres and Redis; the export
//! and import of the external load tools; the report in a real browser.
//! The tests of what a saved run renders to are bench-report's.
//!
//! Tests that need a tool a machine with Rust, Postgres and Redis may lack
//! are `#[ignore = "needs ..."]`, and fail when run without it
//! (`cargo test -p bench -- --include-ignored`): Chromium, Python with
//! venv (Locust), Python 3 alone, node, a JDK with Debian's Tomcat and Netty jars,
//! the pinned Java 21 and 25 runtimes (`scripts/install-java-runtimes.sh`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod browser;
mod cli_errors;
mod cold_start_fairness;
mod common;
mod compare_command;
mod cpu_accounting;
mod database_groups;
mod doc_tables_command;
mod end_to_end;
mod equal_load;
mod glance_in_browser;
mod idle_connections;
mod java_calibration;
mod java_runtimes;
mod jmeter_export_import;
mod k6_export_import;
mod locust_end_to_end;
mod locust_export_import;
mod progress_and_interrupt;
mod remote_servers;
mod render_command;
mod report_in_browser;
mod seed_profile_findings;
mod stall_detector;
