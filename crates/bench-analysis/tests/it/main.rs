//! bench-analysis's integration tests, one test binary (each file under
//! tests/ would be a binary of its own, linked and run apart): the one
//! verdict rule on crafted rounds, and the house rule that verdicts are
//! made in its module only.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod one_verdict_module;
mod verdict_rule;
