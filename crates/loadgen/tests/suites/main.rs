//! loadgen's integration tests, one module per subject, in one test binary
//! (`cargo test -p loadgen --test suites`): each file of `tests/` would be
//! a binary of its own, linked and run one after another. They share the
//! in-process test server of `common`, and each runs the built binary or
//! the library against a server of its own, so nothing else is shared.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod bad_input;
mod common;
mod exactness;
mod interrupt;
mod load_models;
mod no_success;
mod open_loop;
