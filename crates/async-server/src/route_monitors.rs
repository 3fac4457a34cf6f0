//! The stall detector's per-route half: one tokio-metrics `TaskMonitor` per
//! route, built once with the state, and [`Watched`], the handler wrapper
//! that runs a route's handler future under its monitor.
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
//! Cost per request, which is why there is no lookup per request: the route's
//! monitor is found once when the router is built and lives in the handler
//! value axum clones for each request ([`Watched`]). Per request that is one
//! `Arc` clone, one small allocation for the monitor's per-future state, a
//! clock read before and after each poll and a few atomic additions.
//! `--stall-detector off` builds the router without it, to measure that.
//!
//! The twin is crates/blocking-server/src/queue_wait.rs: a blocking server
//! cannot block an event loop, but its requests can wait for a thread.

use std::time::Duration;

use axum::extract::Request;
use axum::handler::Handler;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use contract::routes::ROUTES;
use tokio_metrics::{TaskMonitor, TaskMonitorCore};

use crate::AppState;

/// Every route's monitor, in the order of `contract::routes::ROUTES`.
pub(crate) struct RouteMonitors {
    slow_poll_threshold: Option<Duration>,
    monitors: Vec<(&'static str, TaskMonitor)>,
}

impl RouteMonitors {
    /// One monitor per route of the contract; none when `threshold` is `None`
    /// (the detector is off).
    pub(crate) fn new(slow_poll_threshold: Option<Duration>) -> Self {
        let monitors = match slow_poll_threshold {
            Some(threshold) => ROUTES
                .iter()
                .map(|route| {
                    let mut builder = TaskMonitor::builder();
                    builder.with_slow_poll_threshold(threshold);
                    (route.pattern, builder.build())
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
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static str, &TaskMonitor)> {
        self.monitors.iter().map(|(pattern, m)| (*pattern, m))
    }

    /// The route's monitor (`None` when the detector is off).
    ///
    /// # Panics
    /// If `pattern` is not a route of `contract::routes::ROUTES`: a route
    /// spelled differently here would run unmonitored and be counted as
    /// `unmatched`, without a word. It panics as the router is built, at
    /// start-up, and in every test that builds one.
    fn monitor(&self, pattern: &str) -> Option<TaskMonitor> {
        assert!(
            ROUTES.iter().any(|route| route.pattern == pattern),
            "route {pattern} is not in contract::routes::ROUTES"
        );
        self.monitors
            .iter()
            .find(|(p, _)| *p == pattern)
            .map(|(_, m)| m.clone())
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
        let route = match self.monitors.monitor(pattern) {
            Some(monitor) => get(Watched { handler, monitor }),
            None => get(handler),
        };
        self.add(pattern, route)
    }

    /// `POST pattern`, answered by `handler`.
    pub(crate) fn post<H, T>(self, pattern: &'static str, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let route = match self.monitors.monitor(pattern) {
            Some(monitor) => post(Watched { handler, monitor }),
            None => post(handler),
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

/// A handler whose future (extractors included) runs under a `TaskMonitor`.
/// No extra boxing: the future is the handler's own, wrapped.
#[derive(Clone)]
pub(crate) struct Watched<H> {
    handler: H,
    monitor: TaskMonitor,
}

impl<H, T> Handler<T, AppState> for Watched<H>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    type Future = tokio_metrics::Instrumented<H::Future>;

    fn call(self, request: Request, state: AppState) -> Self::Future {
        // `self` is axum's per-request clone: its monitor moves into the future.
        TaskMonitorCore::instrument_with(self.handler.call(request, state), self.monitor)
    }
}
