//! `/metrics` and the layer that counts requests by route and status.
//!
//! The route label is the matched route's pattern from axum's `MatchedPath`
//! ("/users/{id}", as in `contract::routes::ROUTES`), or `unmatched`, so a
//! scan of random ids does not create one series per id. The twin is
//! crates/blocking-server/src/metrics.rs.
//!
//! Besides the contract's figures, the stall detector's: per route, its
//! polls, slow polls, time in slow polls and scheduling delay (counters since
//! start-up, from crate::route_monitors), its blocking calls made on an
//! event-loop worker (crate::blocking_calls), and the event-loop lag probe's
//! summary (crate::lag_probe). With `--stall-detector off` they are absent.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use contract::metrics::{
    append_summaries, render, seconds, write_family_header, MetricsSnapshot, PoolGauges,
    ProcessGauges, RequestCounters, SummarySeries, CONTENT_TYPE,
};
use contract::routes::{ROUTES, UNMATCHED};

use crate::route_monitors::RouteTotals;
use crate::AppState;

/// The status recorded for a request whose client went away before the
/// answer was ready (nginx's convention), so `in_flight` still comes back down.
const CLIENT_CLOSED_REQUEST: u16 = 499;

/// Decrements `in_flight` exactly once, even if the request future is dropped.
struct InFlight {
    counters: &'static RequestCounters,
    route: &'static str,
    status: Option<u16>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.counters
            .finished(self.route, self.status.unwrap_or(CLIENT_CLOSED_REQUEST));
    }
}

/// The `&'static` pattern of the route axum matched, if it is one of ours.
/// Only a 405 needs it (crate::route_handler): every route's own handler
/// knows its pattern.
pub(crate) fn route_label(request: &Request) -> &'static str {
    request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|matched| ROUTES.iter().find(|r| r.pattern == matched.as_str()))
        .map_or(UNMATCHED, |r| r.pattern)
}

/// Counts a request that has begun on `route` ([`RequestCounters`]): in
/// flight now, and by status once `future` has answered (499 if it is
/// dropped first). Three atomic additions; the counters are held by a
/// `&'static` reference, because an `Arc` clone per request would be two
/// more atomic writes, to a count that every worker shares.
pub(crate) fn count<F>(
    counters: &'static RequestCounters,
    route: &'static str,
    future: F,
) -> Counted<F> {
    counters.started();
    Counted {
        future,
        in_flight: InFlight {
            counters,
            route,
            status: None,
        },
    }
}

pin_project_lite::pin_project! {
    /// A request's future; its answer's status is counted when it is ready,
    /// 499 if the future is dropped first.
    pub(crate) struct Counted<F> {
        #[pin]
        future: F,
        in_flight: InFlight,
    }
}

impl<F> Future for Counted<F>
where
    F: Future<Output = Response>,
{
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let this = self.project();
        let response = std::task::ready!(this.future.poll(cx));
        this.in_flight.status = Some(response.status().as_u16());
        Poll::Ready(response)
    }
}

/// Gauges only the async server has: what the tokio runtime is doing.
fn append_runtime_gauges(out: &mut String) {
    use std::fmt::Write as _;
    let runtime = tokio::runtime::Handle::current().metrics();
    for (name, help, value) in [
        (
            "tokio_workers",
            "Runtime worker threads (the event loop).",
            runtime.num_workers(),
        ),
        (
            "tokio_alive_tasks",
            "Tasks alive now: one per open connection, plus a few.",
            runtime.num_alive_tasks(),
        ),
        (
            "tokio_global_queue_depth",
            "Tasks waiting in the runtime's shared queue.",
            runtime.global_queue_depth(),
        ),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} gauge");
        let _ = writeln!(out, "{name}{{server=\"async\"}} {value}");
    }
}

/// The stall detector's figures: each route's poll and blocking-call
/// counters (only routes polled at least once), the threshold, and the lag
/// probe's summary.
fn append_stall_detector(out: &mut String, state: &AppState) {
    use std::fmt::Write as _;
    let Some(threshold) = state.route_monitors.slow_poll_threshold() else {
        return;
    };
    write_family_header(
        out,
        "slow_poll_threshold_seconds",
        "A handler poll this long or longer counts as slow (--slow-poll-ms).",
        "gauge",
    );
    let _ = writeln!(
        out,
        "slow_poll_threshold_seconds{{server=\"async\"}} {}",
        seconds(threshold)
    );
    let routes: Vec<_> = state
        .route_monitors
        .totals()
        .zip(state.route_monitors.blocking_calls())
        .map(|((route, totals), (_, calls))| (route, totals, calls.total()))
        .filter(|(_, totals, _)| totals.polls > 0)
        .collect();
    type Figure = fn(&RouteTotals) -> String;
    let families: [(&str, &str, &str, Figure); 6] = [
        (
            "route_polls_total",
            "Polls of the route's handler futures by an event-loop worker.",
            "counter",
            |t| t.polls.to_string(),
        ),
        (
            "route_slow_polls_total",
            "Polls at or over the slow-poll threshold: the handler held its worker that long.",
            "counter",
            |t| t.slow_polls.to_string(),
        ),
        (
            "route_slow_poll_seconds_total",
            "Time spent in slow polls.",
            "counter",
            |t| seconds(t.slow_poll_time),
        ),
        (
            "route_wakeups_total",
            "Times a handler future was woken and then polled.",
            "counter",
            |t| t.wakeups.to_string(),
        ),
        (
            "route_scheduling_delay_seconds_total",
            "Time from wake-up to poll, summed: the event-loop lag this route waited through.",
            "counter",
            |t| seconds(t.scheduling_delay),
        ),
        (
            "route_mean_scheduling_delay_seconds",
            "Mean time from wake-up to poll since start-up (0 before the first wake-up).",
            "gauge",
            |t| seconds(t.mean_scheduling_delay()),
        ),
    ];
    for (name, help, kind, figure) in families {
        write_family_header(out, name, help, kind);
        for (route, totals, _) in &routes {
            let _ = writeln!(
                out,
                "{name}{{server=\"async\",route=\"{route}\"}} {}",
                figure(totals)
            );
        }
    }
    write_family_header(
        out,
        "route_blocking_calls_total",
        "Blocking calls (sync Postgres query, sync Redis GET or SET, thread sleep) made while \
         an event-loop worker polled the route's handler, however short each was.",
        "counter",
    );
    for (route, _, calls) in &routes {
        let _ = writeln!(
            out,
            "route_blocking_calls_total{{server=\"async\",route=\"{route}\"}} {calls}"
        );
    }
    if let Some(probe) = &state.lag_probe {
        append_summaries(
            out,
            "event_loop_lag_seconds",
            "How late the lag probe woke (due every 50 ms; ticks a stall swallowed are counted too); \
             quantiles over the last minute, sum and count since start-up.",
            "async",
            &[SummarySeries {
                label: None,
                summary: probe.summary(),
            }],
        );
    }
}

/// GET /metrics — the worker reads /proc and the counters (a few syscalls).
/// Twin: `metrics` in crates/blocking-server/src/handlers.rs.
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    // Without /proc the answer is still 200, minus the process gauges (the
    // contract's rule, contract::metrics), as on the blocking server.
    let process = process_stats::sample_self()
        .inspect_err(|e| tracing::warn!(error = %e, "reading /proc/self for /metrics failed"))
        .ok()
        .map(|p| ProcessGauges::new(p.threads, p.rss_bytes, p.cpu_seconds));
    let sqlx_pool = &state.db;
    let redis = state.cache.gauges();
    let sync_db = state.sync_db.pool().state();
    let sync_cache = state.sync_cache.state();
    let common = &state.settings.common;
    let pools = vec![
        PoolGauges {
            pool: "postgres",
            max_size: u64::from(common.db_pool_size),
            size: u64::from(sqlx_pool.size()),
            idle: sqlx_pool.num_idle() as u64,
            waiters: None,
        },
        PoolGauges {
            pool: "redis",
            max_size: redis.max_size,
            size: redis.size,
            idle: redis.idle,
            waiters: redis.waiters,
        },
        PoolGauges {
            pool: "postgres_sync",
            max_size: u64::from(state.sync_db.pool().max_size()),
            size: u64::from(sync_db.connections),
            idle: u64::from(sync_db.idle_connections),
            waiters: None,
        },
        PoolGauges {
            pool: "redis_sync",
            max_size: u64::from(state.sync_cache.max_size()),
            size: u64::from(sync_cache.connections),
            idle: u64::from(sync_cache.idle_connections),
            waiters: None,
        },
    ];
    let mut text = render(&MetricsSnapshot {
        server: "async",
        process,
        in_flight: state.counters.in_flight(),
        requests: state.counters.counts(),
        pools,
    });
    append_runtime_gauges(&mut text);
    append_stall_detector(&mut text, &state);
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
        text,
    )
        .into_response()
}
