//! `/metrics` and the middleware that counts requests by route and status.
//!
//! The route label is the matched route's pattern from axum's `MatchedPath`
//! ("/users/{id}", as in `contract::routes::ROUTES`), or `unmatched`, so a
//! scan of random ids does not create one series per id. The twin is
//! crates/blocking-server/src/metrics.rs.

use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use contract::metrics::{
    render, MetricsSnapshot, PoolGauges, ProcessGauges, RequestCounters, CONTENT_TYPE,
};
use contract::routes::{ROUTES, UNMATCHED};

use crate::AppState;

/// The status recorded for a request whose client went away before the
/// answer was ready (nginx's convention), so `in_flight` still comes back down.
const CLIENT_CLOSED_REQUEST: u16 = 499;

/// Decrements `in_flight` exactly once, even if the request future is dropped.
struct InFlight<'a> {
    counters: &'a RequestCounters,
    route: &'static str,
    status: Option<u16>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.counters
            .finished(self.route, self.status.unwrap_or(CLIENT_CLOSED_REQUEST));
    }
}

/// The `&'static` pattern of the route axum matched, if it is one of ours.
fn route_label(request: &Request) -> &'static str {
    request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|matched| ROUTES.iter().find(|r| r.pattern == matched.as_str()))
        .map_or(UNMATCHED, |r| r.pattern)
}

/// Middleware around every route and the fallback.
pub(crate) async fn count_requests(
    State(counters): State<Arc<RequestCounters>>,
    request: Request,
    next: Next,
) -> Response {
    let mut in_flight = InFlight {
        counters: &counters,
        route: route_label(&request),
        status: None,
    };
    counters.started();
    let response = next.run(request).await;
    in_flight.status = Some(response.status().as_u16());
    response
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
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
        text,
    )
        .into_response()
}
