//! The stall detector's per-route state: tokio-metrics `TaskMonitor`s (one
//! per worker, see [`Shard`]) and one set of blocking-call counters
//! (crate::blocking_calls) per route, built once with the state, and
//! [`RouteWatch::watch`], which runs a route's handler future under both
//! (crate::route_handler calls it).
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
//! value axum clones for each request (crate::route_handler), as a
//! `&'static` reference. Per request that is one small allocation for the
//! monitor's per-future state, four clock reads and a few atomic additions,
//! plus a thread-local set and reset per poll for the blocking-call marker.
//! `--stall-detector off` builds the router without it, to measure that.
//!
//! The twin is crates/blocking-server/src/queue_wait.rs: a blocking server
//! cannot block an event loop, but its requests can wait for a thread.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use contract::routes::{Route, ROUTES};
use server_metrics::metrics::{this_threads_shard, SHARDS};
use tokio_metrics::TaskMonitorCore;

use crate::blocking_calls::{self, RouteBlockingCalls};

// How many monitors each route has, and which one a worker uses: one per
// worker, up to `SHARDS` (server_metrics::metrics::this_threads_shard, which the
// request counters use too).
//
// Why more than one: a monitor is about twenty atomic counters, and a
// request makes six additions to them. With one monitor per route, the two
// workers of a 2-core machine serving `/health` passed those cache lines back
// and forth on every request: measured with scripts/detector-overhead.sh
// (wrk, 50 connections, 7 rounds), the detector cost 6.5% of `/health`
// throughput and 8% more CPU per request with two workers, and nothing
// measurable with one (5 rounds: 1.03x), although it adds only 4.5% to the
// instructions per request. A future is timed by the monitor of the worker
// that created it, even if another worker steals and polls it later; that
// only shares a line now and then. The figures are summed when read
// ([`RouteTotals`]).

/// One worker's monitor of a route, on cache lines of its own: a monitor is
/// about 180 bytes, so without the alignment two workers' monitors would
/// share the line where one ends and the next begins.
#[repr(align(128))]
struct Shard(TaskMonitorCore);

impl Shard {
    /// `SHARDS` monitors for one route, leaked: they live as long as the
    /// server, and handler futures hold them by `&'static` reference.
    fn leak_all(slow_poll_threshold: Duration) -> &'static [Shard] {
        let shards: Vec<Shard> = (0..SHARDS)
            .map(|_| {
                Shard(
                    TaskMonitorCore::builder()
                        .with_slow_poll_threshold(slow_poll_threshold)
                        .build(),
                )
            })
            .collect();
        Vec::leak(shards)
    }
}

/// One route's share of the detector.
struct RouteMonitor {
    pattern: &'static str,
    /// One monitor per worker ([`Shard::leak_all`]).
    tasks: &'static [Shard],
    blocking_calls: &'static RouteBlockingCalls,
}

/// A route's figures since start-up, summed over its monitors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RouteTotals {
    pub(crate) polls: u64,
    pub(crate) slow_polls: u64,
    pub(crate) slow_poll_time: Duration,
    /// Times a handler future was woken and then polled.
    pub(crate) wakeups: u64,
    /// Time from wake-up to poll, summed.
    pub(crate) scheduling_delay: Duration,
}

impl RouteTotals {
    fn of(monitors: &[Shard]) -> Self {
        monitors
            .iter()
            .fold(RouteTotals::default(), |sum, monitor| {
                let m = monitor.0.cumulative();
                RouteTotals {
                    polls: sum.polls + m.total_poll_count,
                    slow_polls: sum.slow_polls + m.total_slow_poll_count,
                    slow_poll_time: sum.slow_poll_time + m.total_slow_poll_duration,
                    wakeups: sum.wakeups + m.total_scheduled_count,
                    scheduling_delay: sum.scheduling_delay + m.total_scheduled_duration,
                }
            })
    }
}

/// Every route's monitor, in the order of `contract::routes::ROUTES` (a
/// route's `index`).
pub(crate) struct RouteMonitors {
    slow_poll_threshold: Option<Duration>,
    monitors: Vec<RouteMonitor>,
}

impl RouteMonitors {
    /// `SHARDS` monitors per route of the contract; none when `threshold`
    /// is `None` (the detector is off).
    pub(crate) fn new(slow_poll_threshold: Option<Duration>) -> Self {
        let monitors = match slow_poll_threshold {
            Some(threshold) => ROUTES
                .iter()
                .map(|route| RouteMonitor {
                    pattern: route.pattern,
                    tasks: Shard::leak_all(threshold),
                    blocking_calls: RouteBlockingCalls::leak(),
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

    /// Each route's pattern and figures since start-up.
    pub(crate) fn totals(&self) -> impl Iterator<Item = (&'static str, RouteTotals)> + '_ {
        self.monitors
            .iter()
            .map(|m| (m.pattern, RouteTotals::of(m.tasks)))
    }

    /// Each route's pattern and blocking calls made on a worker, in the
    /// order of [`RouteMonitors::totals`].
    pub(crate) fn blocking_calls(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static RouteBlockingCalls)> + '_ {
        self.monitors.iter().map(|m| (m.pattern, m.blocking_calls))
    }

    /// The route's share of the detector, or `None` when it is off.
    pub(crate) fn watch(&self, route: Route) -> Option<RouteWatch> {
        self.monitors.get(route.index()).map(|m| RouteWatch {
            monitors: m.tasks,
            blocking_calls: m.blocking_calls,
        })
    }
}

/// What a route's handler runs under while the detector is on.
///
/// axum clones the handler, and so this, for every request: the monitors
/// are held by a `&'static` reference (leaked once, when the router is
/// built), not by tokio-metrics' `TaskMonitor`, an `Arc`, whose clone and
/// drop per request would be two atomic writes to one cache line that every
/// worker shares, passed back and forth between the two workers of a
/// 2-core machine on every request.
#[derive(Clone, Copy)]
pub(crate) struct RouteWatch {
    monitors: &'static [Shard],
    blocking_calls: &'static RouteBlockingCalls,
}

impl RouteWatch {
    /// `future` (a handler's, extractors included) timed by the route's
    /// monitor for this worker, with the blocking-call marker set during
    /// each of its polls. No extra boxing: the future is the handler's own,
    /// wrapped twice.
    pub(crate) fn watch<F: Future>(self, future: F) -> Watched<F> {
        MarkedPolls {
            future: self.monitors[this_threads_shard()].0.instrument(future),
            route: self.blocking_calls,
        }
    }
}

/// A handler's future under the stall detector.
pub(crate) type Watched<F> = MarkedPolls<tokio_metrics::Instrumented<F, &'static TaskMonitorCore>>;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A route's figures are its monitors' summed: a poll on each of two
    /// monitors (two workers') counts two, slow ones included.
    /// (`SHARDS` is at least 2.)
    #[tokio::test]
    async fn a_routes_totals_add_up_its_monitors() {
        let threshold = Duration::from_millis(5);
        let monitors = Shard::leak_all(threshold);
        monitors[0].0.instrument(async {}).await;
        monitors[1]
            .0
            .instrument(async { std::thread::sleep(threshold * 2) })
            .await;
        let totals = RouteTotals::of(monitors);
        assert_eq!((totals.polls, totals.slow_polls), (2, 1));
        assert!(totals.slow_poll_time >= threshold * 2, "{totals:?}");
    }
}
