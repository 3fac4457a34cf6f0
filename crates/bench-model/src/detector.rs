//! What the servers' own stall detectors said about one measured window.

use serde::{Deserialize, Serialize};

/// The server's stall detector over one measured window, read from
/// its `/metrics` just before the window starts (for the mixed group: when
/// the /health probe starts, after the background's lead) and just after it
/// ends. Counters are deltas over the window; the quantiles are the
/// server's own summaries read at the window's end, which cover the last
/// minute before that reading: on a server started for this column round,
/// its warm-up and the window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DetectorWindow {
    /// Async server: `event_loop_lag_seconds{quantile="0.99"}` at the
    /// window's end, in ms (how late the 50-ms lag probe woke).
    pub event_loop_lag_p99_ms: Option<f64>,
    /// The column's route, then (mixed group) its background route.
    pub routes: Vec<RouteWindow>,
    /// Virtual threads: `carrier_lag_seconds{quantile="0.99"}` at the
    /// window's end, in ms (how late each carrier's probe coroutine woke).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_lag_p99_ms: Option<f64>,
    /// The blocking server's pools (either mode) over the window: checkouts
    /// and the time spent waiting for one; empty from a server that does
    /// not export them, and in runs saved before they existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<PoolWindow>,
}

/// One pool's checkouts over a window (`pool_acquires_total` and
/// `pool_acquire_wait_seconds_total`, deltas).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoolWindow {
    /// "postgres" or "redis", as the `pool` label spells it.
    pub pool: String,
    pub acquires: u64,
    pub wait_seconds: f64,
}

impl PoolWindow {
    /// Mean wait for a checkout in ms; `None` without checkouts.
    pub fn mean_wait_ms(&self) -> Option<f64> {
        (self.acquires > 0).then(|| self.wait_seconds * 1000.0 / self.acquires as f64)
    }
}

/// One route's figures of a [`DetectorWindow`]; `None` where the server
/// does not export the figure (the other server, or tiny_http's queue).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RouteWindow {
    /// The route pattern, as the `route` label of `/metrics` spells it,
    /// e.g. "/users/{id}/blocking".
    pub route: String,
    /// Async: polls of the route's handler futures in the window.
    pub polls: Option<u64>,
    /// Async: polls at or over `--slow-poll-ms` in the window.
    pub slow_polls: Option<u64>,
    /// Async: time spent in those slow polls, in seconds.
    pub slow_poll_seconds: Option<f64>,
    /// Async: blocking calls (sync Postgres query, sync Redis GET or SET,
    /// thread sleep) the route made on an event-loop worker in the window
    /// (`route_blocking_calls_total`); `None` from a server that does not
    /// export them (and in results.json written before they existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_calls: Option<u64>,
    /// Blocking: `handler_queue_wait_seconds{quantile="0.99"}` of the route
    /// at the window's end, in ms (the wait for a free handler thread).
    pub queue_wait_p99_ms: Option<f64>,
    /// Virtual threads: requests of the route answered in the window
    /// (`http_requests_total`, every status): the per-request denominator
    /// of the carrier figures, since a coroutine has no polls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Virtual threads: time the route's blocking calls held a carrier, in
    /// seconds (`route_blocking_call_seconds_total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_call_seconds: Option<f64>,
    /// Virtual threads: runs of a request between two parks that held its
    /// carrier past the stall threshold (`route_carrier_stalls_total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_stalls: Option<u64>,
    /// Virtual threads: time in those stalls, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_stall_seconds: Option<f64>,
}

impl RouteWindow {
    /// Slow polls as a share of polls (0..1); `None` without polls.
    pub fn slow_poll_share(&self) -> Option<f64> {
        per(self.slow_polls.map(|n| n as f64), self.polls)
    }

    /// Blocking calls on a worker per poll (0 or more; a request whose one
    /// poll makes two sync Redis GETs gives 2); `None` without polls or
    /// without the figure.
    pub fn blocking_calls_per_poll(&self) -> Option<f64> {
        per(self.blocking_calls.map(|n| n as f64), self.polls)
    }

    /// Virtual threads: blocking calls on a carrier per request; `None`
    /// without requests or without the figure.
    pub fn blocking_calls_per_request(&self) -> Option<f64> {
        per(self.blocking_calls.map(|n| n as f64), self.requests)
    }

    /// Virtual threads: carrier stalls per request.
    pub fn carrier_stalls_per_request(&self) -> Option<f64> {
        per(self.carrier_stalls.map(|n| n as f64), self.requests)
    }

    /// Virtual threads: the mean time one blocking call held its carrier, in ms.
    pub fn ms_per_blocking_call(&self) -> Option<f64> {
        per(
            self.blocking_call_seconds.map(|s| s * 1000.0),
            self.blocking_calls,
        )
    }
}

/// `part` per one of `whole`; `None` without either, or with `whole` at 0.
fn per(part: Option<f64>, whole: Option<u64>) -> Option<f64> {
    let whole = whole.filter(|&n| n > 0)?;
    Some(part? / whole as f64)
}

impl DetectorWindow {
    /// The pool named `pool`, if the server exported it.
    pub fn pool(&self, pool: &str) -> Option<&PoolWindow> {
        self.pools.iter().find(|p| p.pool == pool)
    }

    /// The figures of `route`, if they were recorded.
    pub fn route(&self, route: &str) -> Option<&RouteWindow> {
        self.routes.iter().find(|r| r.route == route)
    }
}
