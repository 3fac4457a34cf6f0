//! Which columns block, by design, a thread that must never block: the
//! contract's route table marks the routes that do for each server mode
//! (an event-loop worker, a carrier under a driver). Such a column is a
//! deliberately wrong variant: shown, never ranked, and never given an
//! equal-load window ([`crate::equal_load`]).

use bench_model::{Driver, Target};
use contract::routes::{self, NonBlocking};

/// The threads of `target` that must never block, if it has such: the
/// event loop's workers, or the carriers under its driver.
pub fn non_blocking_mode(target: Target) -> Option<NonBlocking> {
    if target == Target::Async {
        return Some(NonBlocking::EventLoop);
    }
    target.driver().map(|d| match d {
        Driver::Pinning => NonBlocking::CarrierPinningDriver,
        Driver::Yielding => NonBlocking::CarrierYieldingDriver,
    })
}

/// Whether a column of `target` on `path` (with `background` loaded beside
/// it) blocks a thread that must never block, by design: the contract's
/// route table marks the route so for the server's mode. Such a column is
/// a deliberately wrong variant and never a model's best.
pub fn blocks_by_design(target: Target, path: &str, background: Option<&str>) -> bool {
    let Some(mode) = non_blocking_mode(target) else {
        return false;
    };
    std::iter::once(path)
        .chain(background)
        .filter_map(routes::label_of)
        .any(|pattern| routes::blocks(pattern, mode))
}
