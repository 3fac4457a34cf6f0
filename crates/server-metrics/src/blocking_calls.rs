//! Blocking calls made where nothing else can run meanwhile, counted per
//! route: the marking both servers' detectors share, after Java's
//! BlockHound. On the async server that place is an event-loop worker
//! polling a route's handler (crates/async-server/src/route_monitors.rs);
//! on the blocking server's virtual threads it is a carrier thread running
//! a route's coroutine (crates/blocking-server/src/virtual_threads/pinning.rs),
//! the place Loom calls pinned.
//!
//! How: the server runs the code that may block inside [`while_marked`],
//! which sets a thread-local marker to that route's counters and resets it
//! when the code returns; the sync code paths call [`mark`] at the start of
//! each blocking call; if the marker is set, the call is counted for that
//! route. The same sync functions run where the marker is never set (a
//! `spawn_blocking` thread, a platform handler thread) count nothing: that
//! is the fix working, or the model that blocks by design.
//!
//! The marker is a thread-local, so it must never be held across a point
//! where the code can leave its thread: an `.await` that returns `Pending`
//! ends the poll that set it, and a virtual thread sets it around one call
//! that does not yield. Only the calls that say so with [`mark`] are seen
//! (the sync Postgres query, the sync Redis GETs and SETs, a thread sleep,
//! an inline CPU loop); a blocking call added elsewhere without a mark is
//! caught only by timing (slow polls, carrier stalls), and only if long.
//!
//! The CPU loop is not I/O, and BlockHound would not see it; it is marked
//! the way BlockHound's `markAsBlocking` declares a method of one's own as
//! blocking, because for an event loop or a carrier it is the same harm:
//! nothing else runs on that thread until it returns.
//!
//! Cost per marked section: a thread-local set and reset. Per marked call:
//! a thread-local read and, when marked, one atomic addition. Each route's
//! counters are allocated once and live as long as the process (a
//! `&'static` lets the marker point at them without a reference count).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A handler poll or a blocking section at least this long is slow: the
/// thread ran it without serving anyone else for that long. The async
/// server's `--slow-poll-ms` default and the virtual threads' carrier-stall
/// threshold.
pub const SLOW_DEFAULT: Duration = Duration::from_millis(5);

/// At most one warning per route this often (either detector).
pub const WARN_EVERY: Duration = Duration::from_secs(5);

/// The blocking calls the servers mark, each where it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockingCall {
    /// A sync Postgres driver's `SELECT`.
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
    pub const ALL: [BlockingCall; 5] = [
        BlockingCall::SyncPostgresQuery,
        BlockingCall::SyncRedisGet,
        BlockingCall::SyncRedisSet,
        BlockingCall::ThreadSleep,
        BlockingCall::CpuLoop,
    ];

    /// How a warning names the call.
    pub fn what(self) -> &'static str {
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
pub type CountsByKind = [u64; BlockingCall::ALL.len()];

/// One route's marked blocking calls since start-up, by kind (in the order
/// of [`BlockingCall::ALL`]).
#[derive(Debug, Default)]
pub struct RouteBlockingCalls {
    by_kind: [AtomicU64; BlockingCall::ALL.len()],
}

impl RouteBlockingCalls {
    /// A new, zeroed set of counters that lives as long as the process.
    pub fn leak() -> &'static RouteBlockingCalls {
        Box::leak(Box::default())
    }

    /// Every kind's count, in the order of [`BlockingCall::ALL`].
    pub fn counts(&self) -> CountsByKind {
        std::array::from_fn(|i| self.by_kind[i].load(Ordering::Relaxed))
    }

    /// All kinds together (`route_blocking_calls_total`).
    pub fn total(&self) -> u64 {
        self.counts().iter().sum()
    }
}

thread_local! {
    /// Set while this thread runs a route's code where blocking harms
    /// others; that route's counters.
    static MARKED_ROUTE: Cell<Option<&'static RouteBlockingCalls>> = const { Cell::new(None) };
}

/// Runs `section` (one poll of a route's handler future, or one blocking
/// call on a carrier) with the marker set to `route`, and puts the previous
/// marker back afterwards, even if `section` panics.
pub fn while_marked<T>(route: &'static RouteBlockingCalls, section: impl FnOnce() -> T) -> T {
    struct Restore(Option<&'static RouteBlockingCalls>);
    impl Drop for Restore {
        fn drop(&mut self) {
            MARKED_ROUTE.set(self.0);
        }
    }
    let _restore = Restore(MARKED_ROUTE.replace(Some(route)));
    section()
}

/// Call at the start of a blocking call: counts it for the marked route if
/// this thread is in a marked section; does nothing anywhere else.
pub fn mark(call: BlockingCall) {
    if let Some(route) = MARKED_ROUTE.get() {
        route.by_kind[call as usize].fetch_add(1, Ordering::Relaxed);
    }
}

/// Where the calls were made, which names the harm and the fix in a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// An event-loop worker of the async server.
    EventLoopWorker,
    /// A carrier thread of the blocking server's virtual threads.
    Carrier,
}

impl Place {
    fn on(self) -> &'static str {
        match self {
            Place::EventLoopWorker => "an event-loop worker",
            Place::Carrier => "a carrier thread",
        }
    }

    /// The fix for calls of these kinds (`new`, by kind).
    fn fix(self, new: &CountsByKind) -> &'static str {
        let only_cpu = new
            .iter()
            .zip(BlockingCall::ALL)
            .all(|(n, call)| *n == 0 || call == BlockingCall::CpuLoop);
        match (self, only_cpu) {
            (Place::EventLoopWorker, _) => "Move it to spawn_blocking",
            (Place::Carrier, true) => {
                "The virtual threads on that carrier waited meanwhile (they are not \
                 preempted): move CPU-heavy work off the carriers"
            }
            (Place::Carrier, false) => {
                "The virtual threads on that carrier waited meanwhile: use --driver yielding"
            }
        }
    }
}

/// Logs one warning about `route`'s blocking calls at `place` since its
/// previous one (`new` by kind, in the order of [`BlockingCall::ALL`]).
pub fn warn(place: Place, route: &'static str, new: CountsByKind) {
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
        "route {route} made {blocking_calls} blocking call{} on {} ({calls}); \
         each held it until it returned, however quick. {}",
        if blocking_calls == 1 { "" } else { "s" },
        place.on(),
        place.fix(&new)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_counted_only_while_a_route_is_marked_on_this_thread() {
        let route = RouteBlockingCalls::leak();
        mark(BlockingCall::ThreadSleep);
        while_marked(route, || {
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
    fn the_marker_is_reset_when_a_section_panics() {
        let route = RouteBlockingCalls::leak();
        let panicked = std::panic::catch_unwind(|| while_marked(route, || panic!("handler bug")));
        assert!(panicked.is_err());
        mark(BlockingCall::ThreadSleep);
        assert_eq!(route.total(), 0);
    }
}
