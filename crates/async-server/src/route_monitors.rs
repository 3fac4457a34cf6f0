//! The stall detector's per-route state: one tokio-metrics `TaskMonitor` and
//! one set of blocking-call counters (crate::blocking_calls) per route, built
//! once with the state, and [`Watched`], the handler wrapper that runs a
//! route's handler future under both.
//!
//! Why per route: an event-loop worker runs one poll at a time, and a poll
//! that does not return for 300 ms (a `std::thread::sleep`, a sync driver
//! call, a CPU loop) holds up every other connection on that worker. The
//! monitor times each poll of the handler's future; a poll of at least
//! `--slow-poll-ms` is a *slow poll*, counted for the route that made it.
//! That answers "which route blocks my event loop?" from the inside, as
//! BlockHound does for Reactor. The monitor also times how long the future
//! waited between being woken and being polled again (the scheduling
//! delay): that is the lag the route *suffers*, whoever caused it.
//!
//! A slow poll is a *long* poll, so a quick blocking call is not one. For
//! those, each poll of the handler future also sets the thread-local marker
//! of crate::blocking_calls, so a blocking call made during the poll is
//! counted for the route whatever its length (BlockHound's half).
//!
//! Cost per request, which is why there is no lookup per request: the route's
//! monitor is found once when the router is built and lives in the handler
//! value axum clones for each request ([`Watched`]), as a `&'static`
//! reference. Per request that is one small allocation for the monitor's
//! per-future state, four clock reads and a few atomic additions, plus a
//! thread-local set and reset per poll for the blocking-call marker.
//! `--stall-detector off` builds the router without it, to measure that.
//!
//! The twin is crates/blocking-server/src/queue_wait.rs: a blocking server
//! cannot block an event loop, but its requests can wait for a thread.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::handler::Handler;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use contract::routes::ROUTES;
use tokio_metrics::TaskMonitorCore;

use crate::blocking_calls::{self, RouteBlockingCalls};
use crate::AppState;

/// One route's share of the detector.
struct RouteMonitor {
    pattern: &'static str,
    tasks: &'static TaskMonitorCore,
    blocking_calls: &'static RouteBlockingCalls,
}

/// Every route's monitor, in the order of `contract::routes::ROUTES`.
pub(crate) struct RouteMonitors {
    slow_poll_threshold: Option<Duration>,
    monitors: Vec<RouteMonitor>,
}

impl RouteMonitors {
    /// One monitor per route of the contract; none when `threshold` is `None`
    /// (the detector is off).
    pub(crate) fn new(slow_poll_threshold: Option<Duration>) -> Self {
        let monitors = match slow_poll_threshold {
            Some(threshold) => ROUTES
                .iter()
                .map(|route| {
                    let monitor = TaskMonitorCore::builder()
                        .with_slow_poll_threshold(threshold)
                        .build();
                    RouteMonitor {
                        pattern: route.pattern,
                        // Leaked, like the blocking-call counters: see `Watched`.
                        tasks: Box::leak(Box::new(monitor)),
                        blocking_calls: RouteBlockingCalls::leak(),
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        RouteMonitors {
            slow_poll_threshold,
            monitors,
        }
    }

    /// `None` when the detector is off.
    pub(crate) fn slow_poll_threshold(&self) -> Option<Duration> {
        self.slow_poll_threshold
    }

    /// Each route's pattern and monitor.
    pub(crate) fn iter(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static TaskMonitorCore)> + '_ {
        self.monitors.iter().map(|m| (m.pattern, m.tasks))
    }

    /// Each route's pattern and blocking calls made on a worker, in the
    /// order of [`RouteMonitors::iter`].
    pub(crate) fn blocking_calls(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static RouteBlockingCalls)> + '_ {
        self.monitors.iter().map(|m| (m.pattern, m.blocking_calls))
    }

    /// `handler` under the route's monitor, or back as it was when the
    /// detector is off.
    ///
    /// # Panics
    /// If `pattern` is not a route of `contract::routes::ROUTES`: a route
    /// spelled differently here would run unmonitored and be counted as
    /// `unmatched`, without a word. It panics as the router is built, at
    /// start-up, and in every test that builds one.
    fn watch<H>(&self, pattern: &str, handler: H) -> Result<Watched<H>, H> {
        assert!(
            ROUTES.iter().any(|route| route.pattern == pattern),
            "route {pattern} is not in contract::routes::ROUTES"
        );
        match self.monitors.iter().find(|m| m.pattern == pattern) {
            Some(m) => Ok(Watched {
                handler,
                monitor: m.tasks,
                blocking_calls: m.blocking_calls,
            }),
            None => Err(handler),
        }
    }

    /// A router whose routes run under their monitors: each route's pattern
    /// is written once, where it is added.
    pub(crate) fn router(&self) -> WatchedRouter<'_> {
        WatchedRouter {
            monitors: self,
            router: Router::new(),
        }
    }
}

/// Adds routes to an axum `Router`, each handler under its route's monitor.
pub(crate) struct WatchedRouter<'a> {
    monitors: &'a RouteMonitors,
    router: Router<AppState>,
}

impl WatchedRouter<'_> {
    /// `GET` (and `HEAD`) `pattern`, answered by `handler`.
    pub(crate) fn get<H, T>(self, pattern: &'static str, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let route = match self.monitors.watch(pattern, handler) {
            Ok(watched) => get(watched),
            Err(handler) => get(handler),
        };
        self.add(pattern, route)
    }

    /// `POST pattern`, answered by `handler`.
    pub(crate) fn post<H, T>(self, pattern: &'static str, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let route = match self.monitors.watch(pattern, handler) {
            Ok(watched) => post(watched),
            Err(handler) => post(handler),
        };
        self.add(pattern, route)
    }

    fn add(self, pattern: &'static str, route: MethodRouter<AppState>) -> Self {
        WatchedRouter {
            monitors: self.monitors,
            router: self.router.route(pattern, route),
        }
    }

    /// The router, ready for its fallbacks and layers.
    pub(crate) fn done(self) -> Router<AppState> {
        self.router
    }
}

/// A handler whose future (extractors included) runs under a `TaskMonitor`,
/// with the blocking-call marker set during each of its polls. No extra
/// boxing: the future is the handler's own, wrapped twice.
///
/// axum clones the handler for every request, so the monitor is held by a
/// `&'static` reference (each monitor is leaked once, when the router is
/// built), not by tokio-metrics' `TaskMonitor`, an `Arc`: an `Arc` clone and
/// drop per request are two atomic writes to one cache line that every
/// worker shares, which the two workers of a 2-core machine pass back and
/// forth on every request.
#[derive(Clone)]
pub(crate) struct Watched<H> {
    handler: H,
    monitor: &'static TaskMonitorCore,
    blocking_calls: &'static RouteBlockingCalls,
}

impl<H, T> Handler<T, AppState> for Watched<H>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    type Future = MarkedPolls<tokio_metrics::Instrumented<H::Future, &'static TaskMonitorCore>>;

    fn call(self, request: Request, state: AppState) -> Self::Future {
        MarkedPolls {
            future: self.monitor.instrument(self.handler.call(request, state)),
            route: self.blocking_calls,
        }
    }
}

pin_project_lite::pin_project! {
    /// A handler's future whose every poll runs with the blocking-call marker
    /// set to its route (crate::blocking_calls).
    pub(crate) struct MarkedPolls<F> {
        #[pin]
        future: F,
        route: &'static RouteBlockingCalls,
    }
}

impl<F: Future> Future for MarkedPolls<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        blocking_calls::while_polling(this.route, || this.future.poll(cx))
    }
}
