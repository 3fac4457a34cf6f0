//! process-stats' integration tests, one module per subject, in one test
//! binary (`cargo test -p process-stats --test suites`), and the threads
//! they park (`parked_threads`). The tests that count this process's own
//! threads would see every other test's threads come and go here, so each
//! runs in a process of its own (`rusty_fork_test!`); the rest sample other
//! processes, or only this process's CPU time, which other tests can only
//! add to.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod other_process;
mod parked_threads;
mod peak_sampler_spike;
mod sample_self_cpu;
mod sample_self_threads;
