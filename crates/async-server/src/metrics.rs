//! `/metrics`, and the wrapper that counts and times each request by route,
//! method and status (`http_requests_total` and the histogram
//! `http_server_requests_seconds`, both from `server_metrics::metrics`).
//!
//! The route label is the route's pattern ("/users/{id}", as in
//! `contract::routes::ROUTES`), or `unmatched`, so a scan of random ids
//! does not create one series per id. The twin is
//! crates/blocking-server/src/metrics.rs.
//!
//! Besides the contract's figures, the stall detector's: per route, its
//! polls, slow polls, time in slow polls, wake-ups and scheduling delay
//! (counters since start-up, from crate::route_monitors), its blocking calls
//! made on an event-loop worker (crate::blocking_calls), and the event-loop
//! lag probe's summary (crate::lag_probe). With `--stall-detector off` they
//! are absent.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use contract::routes::UNMATCHED;
use server_metrics::metrics::{
    append_summaries, render, seconds, write_family_header, MetricsSnapshot, PoolGauges,
    RequestCounters, SummarySeries, CLIENT_CLOSED_REQUEST, CONTENT_TYPE,
};

use crate::route_monitors::RouteTotals;
use crate::AppState;

/// Counts the request's answer exactly once, even if the request future is
/// dropped first (then with [`CLIENT_CLOSED_REQUEST`], so `in_flight` still
/// comes back down).
struct InFlight {
    counters: &'static RequestCounters,
    route: &'static str,
    method: &'static str,
    /// When the request reached its handler: the end of its head.
    began: Instant,
    status: Option<u16>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.counters.finished(
            self.route,
            self.method,
            self.status.unwrap_or(CLIENT_CLOSED_REQUEST),
            self.began.elapsed(),
        );
    }
}

/// The `&'static` pattern of the route axum matched, if it is one of ours.
/// Only a 405 needs it (crate::route_handler): every route's own handler
/// knows its pattern.
pub(crate) fn route_label(request: &Request) -> &'static str {
    request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|matched| contract::routes::find(matched.as_str()))
        .map_or(UNMATCHED, |r| r.pattern)
}

/// Counts a request that has begun on `route` with `method` at `began`
/// ([`RequestCounters`]): in flight now, and by status once `future` has
/// answered (499 if it is dropped first), timed from `began`. Three atomic
/// additions and, with the caller's, two clock reads; the counters are held
/// by a `&'static` reference, because an `Arc` clone per request would be
/// two more atomic writes, to a count that every worker shares.
pub(crate) fn count<F>(
    counters: &'static RequestCounters,
    route: &'static str,
    method: &'static str,
    began: Instant,
    future: F,
) -> Counted<F> {
    counters.started();
    Counted {
        future,
        in_flight: InFlight {
            counters,
            route,
            method,
            began,
            status: None,
        },
    }
}

/// The histogram's `method` label, without a string comparison for the
/// usual three.
pub(crate) fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        _ => server_metrics::metrics::request_histogram::method_label(method.as_str()),
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

/// The stall detector's figures: the threshold, each route's poll and
/// blocking-call counters (only routes polled at least once), and the lag
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
    append_route_counters(out, &routes);
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

/// Per route: the monitor's counters and the blocking calls.
fn append_route_counters(out: &mut String, routes: &[(&'static str, RouteTotals, u64)]) {
    use std::fmt::Write as _;
    type Figure = fn(&RouteTotals, u64) -> String;
    let families: [(&str, &str, Figure); 6] = [
        (
            "route_polls_total",
            "Polls of the route's handler futures by an event-loop worker.",
            |t, _| t.polls.to_string(),
        ),
        (
            "route_slow_polls_total",
            "Polls at or over the slow-poll threshold: the handler held its worker that long.",
            |t, _| t.slow_polls.to_string(),
        ),
        (
            "route_slow_poll_seconds_total",
            "Time spent in slow polls.",
            |t, _| seconds(t.slow_poll_time),
        ),
        (
            "route_wakeups_total",
            "Times a handler future was woken and then polled.",
            |t, _| t.wakeups.to_string(),
        ),
        (
            "route_scheduling_delay_seconds_total",
            "Time from wake-up to poll, summed: the event-loop lag this route waited through \
             (divided by route_wakeups_total: the mean).",
            |t, _| seconds(t.scheduling_delay),
        ),
        (
            "route_blocking_calls_total",
            "Blocking calls (sync Postgres query, sync Redis GET or SET, thread sleep) made while \
             an event-loop worker polled the route's handler, however short each was.",
            |_, calls| calls.to_string(),
        ),
    ];
    for (name, help, figure) in families {
        write_family_header(out, name, help, "counter");
        for (route, totals, calls) in routes {
            let _ = writeln!(
                out,
                "{name}{{server=\"async\",route=\"{route}\"}} {}",
                figure(totals, *calls)
            );
        }
    }
}

/// The four pools' gauges: the Postgres driver's (with its checkout
/// totals), the async Redis client's, and the sync driver's and sync
/// Redis's behind the blocking variants.
fn pool_gauges(state: &AppState) -> Vec<PoolGauges> {
    let redis = state.cache.gauges();
    let sync_db = state.sync_db.pool().state();
    let sync_cache = state.sync_cache.state();
    vec![
        state.db.pool_gauges(),
        PoolGauges {
            pool: "redis",
            max_size: redis.max_size,
            size: redis.size,
            idle: redis.idle,
            waiters: redis.waiters,
            waits: None,
        },
        PoolGauges {
            pool: "postgres_sync",
            max_size: u64::from(state.sync_db.pool().max_size()),
            size: u64::from(sync_db.connections),
            idle: u64::from(sync_db.idle_connections),
            waiters: None,
            waits: None,
        },
        PoolGauges {
            pool: "redis_sync",
            max_size: u64::from(state.sync_cache.max_size()),
            size: u64::from(sync_cache.connections),
            idle: u64::from(sync_cache.idle_connections),
            waiters: None,
            waits: None,
        },
    ]
}

/// GET /metrics — the worker reads /proc and the counters (a few syscalls).
/// Twin: `metrics` in crates/blocking-server/src/handlers.rs.
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    // Without /proc the answer is still 200, minus the process metrics (the
    // shared rule, server_metrics::metrics), as on the blocking server.
    let mut text = render(&MetricsSnapshot {
        server: "async",
        process: server_support::process_gauges(),
        requests: state.counters.read(),
        pools: pool_gauges(&state),
    });
    state
        .db
        .append_metrics(&mut text, state.settings.postgres_driver);
    append_runtime_gauges(&mut text);
    append_stall_detector(&mut text, &state);
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
        text,
    )
        .into_response()
}
