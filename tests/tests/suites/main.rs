//! The cross-server suites: one module per promise, all in this one test
//! binary (`cargo test -p harness --test suites`; a module's tests with
//! `-- faults::`).
//!
//! One binary, not a file per suite: each integration-test file is a binary
//! of its own that links both servers and every dependency, and cargo runs
//! those binaries one after another. One binary links once, and its tests
//! share the machine's idle time. What that costs is state that is now per
//! process rather than per suite; the harness's docs (`tests/src/lib.rs`)
//! say which, and how the suites live with it: the load gate
//! (`harness::exclusive`, `harness::quiet`), may's carriers, and the tests
//! that run in a process of their own (`rusty_fork_test!`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod apache_bench_keep_alive;
mod architecture_map;
mod blocking_calls_on_the_event_loop;
mod compose_healthcheck;
mod concurrent_start;
mod connections;
mod contract_suite;
mod coroutine_stack;
mod database_restart;
mod event_loop_stalls;
mod faults;
mod fuzz_inputs;
mod handler_queue_wait;
mod log_format;
mod metrics_exposition;
mod open_file_limit;
mod outage_under_load;
mod pinning_detector;
mod pool_exhaustion;
mod process_reliability;
mod prometheus_end_to_end;
mod redis_clients;
mod security_defaults;
mod slow_bodies;
mod slow_clients;
mod tidy;
mod tiny_http_differences;
mod wire_contract;
mod yielding_driver;
