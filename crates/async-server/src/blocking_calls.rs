//! The stall detector's blocking-call half, after Java's BlockHound: a
//! blocking call made while a route's handler is being polled on an
//! event-loop worker is counted for that route, however short it is.
//!
//! Why a second half: a slow poll (crate::route_monitors) is a *long* poll.
//! `/users/{id}/blocking` against a local, idle Postgres holds its worker for
//! about 0.1 ms per request, far under `--slow-poll-ms`, so it blocks the
//! worker on every request and is almost never seen as slow. BlockHound asks
//! a different question, "did a non-blocking thread make a blocking call?",
//! whose answer does not depend on how long the call took.
//!
//! How: [`crate::route_monitors::Watched`] wraps each poll of a route's
//! handler future in [`while_polling`], which sets a thread-local marker to
//! that route's counters and resets it when the poll returns. The sync code
//! paths call [`mark`] at the start of each blocking call; if the marker is
//! set, the calling thread is an event-loop worker polling that route's
//! handler, and the route's counter goes up by one. The same sync functions
//! run from `spawn_blocking` or the query threads are on threads where the
//! marker is never set, so they count nothing: that is the fix working.
//!
//! Unlike BlockHound, nothing is instrumented automatically: only the calls
//! that say so with [`mark`] are seen (the sync Postgres query, the sync
//! Redis GETs and SETs, `std::thread::sleep` in `/posts/{id}/blocking`, and
//! the inline CPU loop of `/cpu`). A blocking call added elsewhere without a
//! mark is caught only by the slow-poll half, and only if it is long.
//!
//! The CPU loop is not I/O, and BlockHound would not see it; it is marked
//! the way BlockHound's `markAsBlocking` declares a method of one's own as
//! blocking, because for the event loop it is the same harm: nothing else
//! runs on the worker until it returns. `/cpu` at its default n = 1,000,000
//! takes about 2 ms here, under the 5-ms slow-poll threshold, so without the
//! mark the detector missed it on a quiet machine (issue 9).
//!
//! Cost per poll: a thread-local set and reset. Per marked call: a
//! thread-local read and, on a worker, one atomic addition. Nothing is
//! allocated per request; each route's counters are allocated once when the
//! router's monitors are built and live as long as the process (a
//! `&'static` lets the marker point at them without a reference count).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The blocking calls the async server makes, each marked where it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockingCall {
    /// The sync `postgres` driver's `SELECT` (or, on a worker, waiting for a
    /// query thread to run it: crate::db::SyncDb).
    SyncPostgresQuery,
    /// One sync Redis `GET`.
    SyncRedisGet,
    /// The sync Redis `SET`s of a cache miss, sent as one pipeline.
    SyncRedisSet,
    /// `std::thread::sleep`.
    ThreadSleep,
    /// A CPU-bound loop run inline (the `/cpu` sum).
    CpuLoop,
}

impl BlockingCall {
    const ALL: [BlockingCall; 5] = [
        BlockingCall::SyncPostgresQuery,
        BlockingCall::SyncRedisGet,
        BlockingCall::SyncRedisSet,
        BlockingCall::ThreadSleep,
        BlockingCall::CpuLoop,
    ];

    /// How a warning names the call.
    pub(crate) fn what(self) -> &'static str {
        match self {
            BlockingCall::SyncPostgresQuery => "sync postgres query",
            BlockingCall::SyncRedisGet => "sync redis GET",
            BlockingCall::SyncRedisSet => "sync redis SET",
            BlockingCall::ThreadSleep => "std::thread::sleep",
            BlockingCall::CpuLoop => "inline CPU loop",
        }
    }
}

/// A count per kind of call, in the order of [`BlockingCall::ALL`].
pub(crate) type CountsByKind = [u64; BlockingCall::ALL.len()];

/// One route's blocking calls made on an event-loop worker since start-up,
/// by kind (in the order of [`BlockingCall::ALL`]).
#[derive(Debug, Default)]
pub(crate) struct RouteBlockingCalls {
    by_kind: [AtomicU64; BlockingCall::ALL.len()],
}

impl RouteBlockingCalls {
    /// A new, zeroed set of counters that lives as long as the process.
    pub(crate) fn leak() -> &'static RouteBlockingCalls {
        Box::leak(Box::default())
    }

    /// Every kind's count, in the order of [`BlockingCall::ALL`].
    pub(crate) fn counts(&self) -> CountsByKind {
        std::array::from_fn(|i| self.by_kind[i].load(Ordering::Relaxed))
    }

    /// All kinds together (`route_blocking_calls_total`).
    pub(crate) fn total(&self) -> u64 {
        self.counts().iter().sum()
    }
}

thread_local! {
    /// Set while this thread polls a route's handler future; that route's counters.
    static POLLING_ROUTE: Cell<Option<&'static RouteBlockingCalls>> = const { Cell::new(None) };
}

/// Runs `poll` (one poll of `route`'s handler future) with the marker set,
/// and puts the previous marker back afterwards, even if `poll` panics (the
/// panic guard answers 500 and the worker goes on polling other tasks).
pub(crate) fn while_polling<T>(route: &'static RouteBlockingCalls, poll: impl FnOnce() -> T) -> T {
    struct Restore(Option<&'static RouteBlockingCalls>);
    impl Drop for Restore {
        fn drop(&mut self) {
            POLLING_ROUTE.set(self.0);
        }
    }
    let _restore = Restore(POLLING_ROUTE.replace(Some(route)));
    poll()
}

/// Call at the start of a blocking call: counts it for the route being
/// polled if this thread is an event-loop worker polling a handler; does
/// nothing anywhere else (`spawn_blocking`, rayon, the query threads, the
/// detector off).
pub(crate) fn mark(call: BlockingCall) {
    if let Some(route) = POLLING_ROUTE.get() {
        route.by_kind[call as usize].fetch_add(1, Ordering::Relaxed);
    }
}

/// Logs one warning about `route`'s blocking calls since its previous one
/// (`new` by kind, in the order of [`BlockingCall::ALL`]).
pub(crate) fn warn(route: &'static str, new: CountsByKind) {
    let blocking_calls: u64 = new.iter().sum();
    let calls = BlockingCall::ALL
        .iter()
        .zip(new)
        .filter(|(_, n)| *n > 0)
        .map(|(call, n)| format!("{} x{n}", call.what()))
        .collect::<Vec<_>>()
        .join(", ");
    tracing::warn!(
        route,
        blocking_calls,
        calls,
        "route {route} made {blocking_calls} blocking call{} on an event-loop worker ({calls}); \
         each held the worker until it returned, however quick. Move it to spawn_blocking",
        if blocking_calls == 1 { "" } else { "s" }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_counted_only_while_a_route_is_polled_on_this_thread() {
        let route = RouteBlockingCalls::leak();
        mark(BlockingCall::ThreadSleep);
        while_polling(route, || {
            mark(BlockingCall::SyncRedisGet);
            mark(BlockingCall::SyncRedisGet);
            // Another thread (spawn_blocking's, rayon's) has no marker.
            std::thread::spawn(|| mark(BlockingCall::SyncPostgresQuery))
                .join()
                .unwrap();
        });
        mark(BlockingCall::ThreadSleep);
        assert_eq!(route.counts(), [0, 2, 0, 0, 0]);
        assert_eq!(route.total(), 2);
    }

    #[test]
    fn the_marker_is_reset_when_a_poll_panics() {
        let route = RouteBlockingCalls::leak();
        let panicked = std::panic::catch_unwind(|| while_polling(route, || panic!("handler bug")));
        assert!(panicked.is_err());
        mark(BlockingCall::ThreadSleep);
        assert_eq!(route.total(), 0);
    }
}
