//! A test's sample requests split by the contract's route table: those
//! whose route blocks a mode's threads by design, and the others.

use contract::routes::{self, NonBlocking};

/// `samples` (route pattern, request path) split into those whose route
/// blocks `mode`'s threads by design and the others; panics when a route
/// that blocks by design has no sample, so that none goes untested.
#[allow(
    clippy::type_complexity,
    reason = "the two halves of the caller's own samples"
)]
pub fn split_by_design<'a, P>(
    samples: &'a [(&'a str, P)],
    mode: NonBlocking,
) -> (Vec<&'a (&'a str, P)>, Vec<&'a (&'a str, P)>) {
    let (blocking, others): (Vec<_>, Vec<_>) = samples
        .iter()
        .partition(|(route, _)| routes::blocks(route, mode));
    for route in routes::blocks_by_design(mode) {
        assert!(
            blocking.iter().any(|(r, _)| *r == route),
            "{route} blocks {mode:?} by design but has no request here"
        );
    }
    (blocking, others)
}
