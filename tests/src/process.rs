//! Process-level reliability checks, written once for every server mode.
//!
//! The suites' `process_reliability` module names each mode's binary and
//! what it expects in a [`ProcessProfile`] and calls
//! [`process_reliability_tests!`], which writes its four `#[test]`s. The
//! binary is run as a child process, not in the test's own process as
//! `spawn_app` does, so `/proc/<pid>` figures are the server's alone and
//! signals reach it as they would in production.
//!
//! [`process_reliability_tests!`]: crate::process_reliability_tests

pub mod checks;
pub mod child_server;

pub use checks::{ProcessProfile, CONTRACT_ROUTES};
pub use child_server::{binary, ChildServer};

/// Writes the four process-level `#[test]`s for one server, each named after
/// the function in [`checks`] it calls with `$profile` (a [`ProcessProfile`]).
#[macro_export]
macro_rules! process_reliability_tests {
    ($profile:expr) => {
        $crate::process_reliability_tests!(
            @each $profile;
            a_connection_burst_on_every_route_leaves_the_server_serving_and_back_near_idle,
            sigterm_lets_100_requests_in_flight_finish_refuses_new_ones_and_exits_0,
            a_second_sigterm_ends_a_stuck_drain_at_once,
            the_drain_timeout_ends_a_stuck_drain,
        );
    };
    (@each $profile:expr; $($check:ident),+ $(,)?) => {
        $(
            #[test]
            fn $check() {
                $crate::process::checks::$check(&$profile);
            }
        )+
    };
}
