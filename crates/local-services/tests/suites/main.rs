//! local-services' integration tests, one module per subject, in one test
//! binary (`cargo test -p local-services --test suites`). The process-wide
//! services are shared by the tests that use the running ones; the tests of
//! the throwaway path force it through the environment, so each runs in a
//! process of its own (the test binary run again for that test alone).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

mod running_services;
mod throwaway_dies_with_parent;
mod throwaway_services;
