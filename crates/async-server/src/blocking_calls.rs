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
//! How (the marking itself is `server_metrics::blocking_calls`, shared with the
//! blocking server's virtual threads): [`crate::route_monitors::Watched`]
//! wraps each poll of a route's handler future in [`while_polling`], which
//! sets a thread-local marker to that route's counters and resets it when
//! the poll returns. The sync code
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
//! runs on the worker until it returns. `/cpu` at bench's n = 1,000,000
//! takes a couple of milliseconds on a current core, under the 5-ms
//! slow-poll threshold, so without the mark only a slow machine would show
//! it.
//!
//! Cost per poll: a thread-local set and reset. Per marked call: a
//! thread-local read and, on a worker, one atomic addition. Nothing is
//! allocated per request; each route's counters are allocated once when the
//! router's monitors are built and live as long as the process (a
//! `&'static` lets the marker point at them without a reference count).

pub(crate) use server_metrics::blocking_calls::{
    mark, BlockingCall, CountsByKind, RouteBlockingCalls,
};
use server_metrics::blocking_calls::{while_marked, Place};

/// Runs `poll` (one poll of `route`'s handler future) with the marker set,
/// and puts the previous marker back afterwards, even if `poll` panics (the
/// panic guard answers 500 and the worker goes on polling other tasks).
pub(crate) fn while_polling<T>(route: &'static RouteBlockingCalls, poll: impl FnOnce() -> T) -> T {
    while_marked(route, poll)
}

/// Logs one warning about `route`'s blocking calls on a worker since its
/// previous one (`new` by kind, in the order of [`BlockingCall::ALL`]).
pub(crate) fn warn(route: &'static str, new: CountsByKind) {
    server_metrics::blocking_calls::warn(Place::EventLoopWorker, route, new);
}
