//! [`test_cases!`](crate::test_cases!): `#[test]`s that each call one body
//! with their own arguments, mostly one per server mode, each with a name of
//! its own.
//!
//! A test per mode rather than one looping over them (as
//! [`each_server_at_once`](crate::each_server_at_once) does) where a mode
//! must fail on its own line in CI's log, run in a process of its own, or be
//! too heavy to run beside the others. The names are written out, not
//! built: they read as sentences ("virtual threads cut off ..."), and CI's
//! history keeps them.

/// Writes one `#[test]` per case, each calling the body named last before
/// it with the case's arguments, after taking that body's load gate when
/// one is named ([`quiet`](crate::quiet) or [`exclusive`](crate::exclusive)). A case
/// written `in_own_process name(...)` runs its body in a child process
/// ([`in_own_process!`](crate::in_own_process)); attributes before a case
/// (`#[ignore = "..."]`) go on its test.
///
/// ```text
/// harness::test_cases! {
///     dripped_bodies_are_cut_at_the_deadline, gate: quiet;
///     blocking_server_cuts_off_a_dripped_body_at_its_deadline(Server::Blocking);
///     in_own_process virtual_threads_cut_off_a_dripped_body(Server::Virtual);
///
///     another_body;
///     another_test(Server::Async);
/// }
/// ```
#[macro_export]
macro_rules! test_cases {
    ($body:ident $(, gate: $gate:ident)?; $($cases:tt)*) => {
        $crate::test_cases!(@case [$body] [$($gate)?] $($cases)*);
    };
    (@case [$body:ident] [$($gate:ident)?]) => {};
    // The next body and its gate.
    (@case [$old:ident] [$($old_gate:ident)?]
        $body:ident $(, gate: $gate:ident)?; $($rest:tt)*
    ) => {
        $crate::test_cases!(@case [$body] [$($gate)?] $($rest)*);
    };
    (@case [$body:ident] [$($gate:ident)?]
        $(#[$attr:meta])* in_own_process $name:ident($($arg:expr),* $(,)?); $($rest:tt)*
    ) => {
        $(#[$attr])*
        #[test]
        fn $name() {
            $(let _gate = $crate::$gate();)?
            $crate::in_own_process!($name, {
                $body($($arg),*);
            });
        }
        $crate::test_cases!(@case [$body] [$($gate)?] $($rest)*);
    };
    (@case [$body:ident] [$($gate:ident)?]
        $(#[$attr:meta])* $name:ident($($arg:expr),* $(,)?); $($rest:tt)*
    ) => {
        $(#[$attr])*
        #[test]
        fn $name() {
            $(let _gate = $crate::$gate();)?
            $body($($arg),*);
        }
        $crate::test_cases!(@case [$body] [$($gate)?] $($rest)*);
    };
}
