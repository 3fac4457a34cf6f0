//! The seam between the handlers and what runs them (`--threads`), as
//! crate::driver is the seam between the handlers and the clients they call.
//! Spring Boot runs the same MVC controllers on platform threads or, with
//! `spring.threads.virtual.enabled=true`, on virtual threads; here the same
//! handlers run on either executor, and only this seam knows which.
//!
//! - [`Executor::PlatformThreads`]: a fixed pool of OS threads behind a
//!   connector (crate::platform_threads). A wait blocks the handler thread,
//!   which serves nobody else meanwhile.
//! - [`Executor::VirtualThreads`]: a coroutine per connection on a few
//!   carrier threads (crate::virtual_threads). A wait parks the coroutine and
//!   its carrier serves others; a blocking call holds the carrier, and the
//!   pinning detector times and counts it.
//!
//! **The rule, as a type.** A handler waits and blocks only through the
//! [`Waits`] it is handed for its request ([`Executor::run`]):
//! [`Waits::sleep`] for "wait 300 ms", [`Waits::blocking`] for "make this
//! call that holds the thread". The yielding driver's sockets and pool
//! semaphore (crate::virtual_threads::parking) take the request's `Waits`
//! for every wait that parks, so a park cannot happen without it and each
//! one ends a timed run of the pinning detector. Nothing can make a `Waits`
//! but the executor. And the compiler holds the rest: in this crate,
//! `std::thread::sleep` and may's sleep are disallowed methods (the
//! workspace clippy.toml; denied in lib.rs), so a handler that called one
//! directly would not pass clippy; the few waits outside any request (an
//! acceptor's back-off, a drain's poll) each say why they are allowed. may
//! itself is named only inside crate::virtual_threads (a test there checks).
//!
//! The async server's handlers have no such seam, on purpose: there the
//! difference between `tokio::time::sleep(..).await` and
//! `std::thread::sleep` is the lesson, written out in each handler.

use std::sync::Arc;
use std::time::Duration;

use crate::connector::busy_threads::BusyThreads;
use crate::queue_wait::QueueWaits;
use crate::virtual_threads::pinning::{Pins, Run};

/// What runs the handlers.
pub(crate) enum Executor {
    /// A pool of OS threads; with the `nio` connector, what it measures
    /// about them (`None` with tiny-http, which cannot tell).
    PlatformThreads { handler_pool: Option<HandlerPool> },
    /// Coroutines on carrier threads, and the pinning detector.
    VirtualThreads { pins: Arc<Pins> },
}

/// What the `nio` connector measures about its handler threads, for
/// `/metrics`: each route's wait for a free thread, and how many are busy
/// (crate::platform_threads fills it in; the virtual threads' twin is
/// their `Pins`).
pub(crate) struct HandlerPool {
    pub(crate) queue_waits: QueueWaits,
    pub(crate) busy: Arc<BusyThreads>,
}

impl Executor {
    /// The `server` label of `/metrics`: `blocking`, or `virtual` on virtual
    /// threads.
    pub(crate) fn metrics_label(&self) -> &'static str {
        match self {
            Executor::PlatformThreads { .. } => "blocking",
            Executor::VirtualThreads { .. } => "virtual",
        }
    }

    /// What the `nio` connector measures about its handler threads, if that
    /// is what runs the handlers.
    pub(crate) fn handler_pool(&self) -> Option<&HandlerPool> {
        match self {
            Executor::PlatformThreads { handler_pool } => handler_pool.as_ref(),
            Executor::VirtualThreads { .. } => None,
        }
    }

    /// Runs one request's handler on the calling thread or coroutine, with
    /// the request's [`Waits`]. On virtual threads the handler's time on
    /// its carrier is timed for `route` (a `/metrics` label) from here to
    /// its return, a run ending at every park.
    pub(crate) fn run<T>(&self, route: &'static str, handler: impl FnOnce(&Waits<'_>) -> T) -> T {
        match self {
            Executor::PlatformThreads { .. } => handler(&Waits {
                on: On::PlatformThread,
            }),
            Executor::VirtualThreads { pins } => {
                pins.serving(route, |run| handler(&Waits::on_virtual_thread(run)))
            }
        }
    }
}

/// How one request's handler waits and blocks: handed to it by
/// [`Executor::run`] for the length of the request, and the only way it
/// does either (see the module comment).
pub(crate) struct Waits<'r> {
    on: On<'r>,
}

enum On<'r> {
    PlatformThread,
    VirtualThread(&'r Run),
}

impl<'r> Waits<'r> {
    /// The waits of a coroutine whose runs `run` times (made only by
    /// crate::virtual_threads, which alone can make a [`Run`]).
    pub(crate) fn on_virtual_thread(run: &'r Run) -> Waits<'r> {
        Waits {
            on: On::VirtualThread(run),
        }
    }

    /// Waits `for_`. A platform thread sleeps, held the whole time (MVC's
    /// `Thread.sleep`); a virtual thread parks, and its carrier serves
    /// others meanwhile (`Thread.sleep` on a virtual thread).
    pub(crate) fn sleep(&self, for_: Duration) {
        match self.on {
            On::PlatformThread => {
                #[allow(
                    clippy::disallowed_methods,
                    reason = "the one sleep of a platform handler thread: this seam's"
                )]
                std::thread::sleep(for_);
            }
            On::VirtualThread(run) => run.sleep(for_),
        }
    }

    /// Makes `call`, which holds the thread until it returns (a sync
    /// client's round trip, the CPU loop). On a platform thread it just
    /// runs: the thread exists to block. On a virtual thread it holds the
    /// carrier, so it is marked and timed for the pinning detector.
    pub(crate) fn blocking<T>(&self, call: impl FnOnce() -> T) -> T {
        match self.on {
            On::PlatformThread => call(),
            On::VirtualThread(run) => run.pinned(call),
        }
    }

    /// Makes `call`, which may park the coroutine (a wait on one of may's
    /// sockets or semaphores): the run before it ends here, and a new one
    /// starts when the coroutine is resumed. Only crate::virtual_threads'
    /// parking types call it, around each of their waits.
    pub(crate) fn parked<T>(&self, call: impl FnOnce() -> T) -> T {
        match self.on {
            On::PlatformThread => call(),
            On::VirtualThread(run) => run.parked(call),
        }
    }
}
