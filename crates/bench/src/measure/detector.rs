//! The servers' own stall detectors read around one measured
//! window: per route, the async server's slow polls (deltas of its
//! `route_polls_total` and `route_slow_polls_total`), its blocking calls on
//! an event-loop worker (deltas of `route_blocking_calls_total`) and its
//! event-loop lag p99; the blocking server's handler queue-wait p99; on
//! virtual threads, blocking calls and carrier stalls per request and the
//! carrier lag p99; and the blocking server's pool checkouts and waits.
//!
//! Pure functions of two `/metrics` texts, parsed with
//! [`crate::measure::remote_metrics::value`] (bench's one `/metrics` reader), so the
//! arithmetic is tested from captured texts of the real servers.

use crate::measure::remote_metrics::value;
use bench_model::{DetectorWindow, PoolWindow, RouteWindow};

/// A counter of `route` in `text`. A route the async server has not polled
/// yet has no line at all, which is a count of 0.
fn route_counter(text: &str, name: &str, route: &str) -> f64 {
    value(text, name, &[("route", route)]).unwrap_or(0.0)
}

/// A summary's 0.99 quantile in ms, `None` when absent or empty (`NaN`).
fn p99_ms(text: &str, name: &str, route: Option<&str>) -> Option<f64> {
    let mut labels = vec![("quantile", "0.99")];
    labels.extend(route.map(|r| ("route", r)));
    value(text, name, &labels).map(|s| s * 1000.0)
}

/// Which stall detector a `/metrics` text has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The async server with its detector on (`slow_poll_threshold_seconds`).
    Async,
    /// The blocking server on virtual threads (`carriers`).
    Virtual,
    /// The blocking server on platform threads (`handler_threads`).
    Blocking,
}

fn kind(after: &str) -> Option<Kind> {
    if value(after, "slow_poll_threshold_seconds", &[]).is_some() {
        Some(Kind::Async)
    } else if value(after, "carriers", &[]).is_some() {
        Some(Kind::Virtual)
    } else if value(after, "handler_threads", &[]).is_some() {
        Some(Kind::Blocking)
    } else {
        None
    }
}

/// Every sample of counter `name` with `route`, summed (the statuses of
/// `http_requests_total`).
fn route_sum(text: &str, name: &str, route: &str) -> f64 {
    let label = format!("route=\"{route}\"");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.strip_prefix(name).is_some_and(|r| r.starts_with('{')))
        // The closing quote keeps "/users/{id}" from matching its /cache.
        .filter(|l| l.contains(&label))
        .filter_map(|l| l.rsplit(' ').next()?.trim().parse::<f64>().ok())
        .sum()
}

/// The pools a `/metrics` text counts checkouts of, over the window.
fn pools(before: &str, after: &str) -> Vec<PoolWindow> {
    ["postgres", "redis"]
        .into_iter()
        .filter_map(|pool| {
            let at = |text: &str, name: &str| value(text, name, &[("pool", pool)]);
            let acquires = at(after, "pool_acquires_total")?;
            let wait = at(after, "pool_acquire_wait_seconds_total")?;
            let acquires_before = at(before, "pool_acquires_total").unwrap_or(0.0);
            let wait_before = at(before, "pool_acquire_wait_seconds_total").unwrap_or(0.0);
            Some(PoolWindow {
                pool: pool.to_owned(),
                acquires: (acquires - acquires_before).max(0.0) as u64,
                wait_seconds: (wait - wait_before).max(0.0),
            })
        })
        .collect()
}

/// What the detector said about `routes` between the readings `before`
/// and `after` of one server's `/metrics`; `None` when `after` has no
/// detector figures (async with `--stall-detector off`, tiny_http, a server
/// of another kind). The async server is recognised by its
/// `slow_poll_threshold_seconds` (written only with the detector on),
/// virtual threads by `carriers`, the blocking server by `handler_threads`.
pub fn window(before: &str, after: &str, routes: &[&str]) -> Option<DetectorWindow> {
    let kind = kind(after)?;
    let is_async = kind == Kind::Async;
    let is_virtual = kind == Kind::Virtual;
    // A server from before the blocking-call half has no such family at all.
    let has_blocking_calls =
        (is_async || is_virtual) && after.contains("route_blocking_calls_total");
    let delta = |name: &str, route: &str| {
        (route_counter(after, name, route) - route_counter(before, name, route)).max(0.0)
    };
    let routes = routes
        .iter()
        .map(|&route| RouteWindow {
            route: route.to_owned(),
            polls: is_async.then(|| delta("route_polls_total", route) as u64),
            slow_polls: is_async.then(|| delta("route_slow_polls_total", route) as u64),
            slow_poll_seconds: is_async.then(|| delta("route_slow_poll_seconds_total", route)),
            blocking_calls: has_blocking_calls
                .then(|| delta("route_blocking_calls_total", route) as u64),
            queue_wait_p99_ms: if kind == Kind::Blocking {
                p99_ms(after, "handler_queue_wait_seconds", Some(route))
            } else {
                None
            },
            requests: is_virtual.then(|| {
                let sum = |t: &str| route_sum(t, "http_requests_total", route);
                (sum(after) - sum(before)).max(0.0) as u64
            }),
            blocking_call_seconds: is_virtual
                .then(|| delta("route_blocking_call_seconds_total", route)),
            carrier_stalls: is_virtual.then(|| delta("route_carrier_stalls_total", route) as u64),
            carrier_stall_seconds: is_virtual
                .then(|| delta("route_carrier_stall_seconds_total", route)),
        })
        .collect();
    Some(DetectorWindow {
        event_loop_lag_p99_ms: is_async
            .then(|| p99_ms(after, "event_loop_lag_seconds", None))
            .flatten(),
        routes,
        carrier_lag_p99_ms: is_virtual
            .then(|| p99_ms(after, "carrier_lag_seconds", None))
            .flatten(),
        pools: pools(before, after),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A virtual-thread server's /metrics, as it writes it (trimmed).
    fn virtual_metrics(calls: u64, stalls: u64, (ok, err): (u64, u64), pool: (u64, f64)) -> String {
        let (acquires, wait) = pool;
        format!(
            "carriers{{server=\"virtual\"}} 2\n\
             http_requests_total{{server=\"virtual\",route=\"/users/{{id}}\",status=\"200\"}} {ok}\n\
             http_requests_total{{server=\"virtual\",route=\"/users/{{id}}\",status=\"503\"}} {err}\n\
             http_requests_total{{server=\"virtual\",route=\"/users/{{id}}/cache\",status=\"200\"}} 99\n\
             route_blocking_calls_total{{server=\"virtual\",route=\"/users/{{id}}\"}} {calls}\n\
             route_blocking_call_seconds_total{{server=\"virtual\",route=\"/users/{{id}}\"}} {}\n\
             route_carrier_stalls_total{{server=\"virtual\",route=\"/users/{{id}}\"}} {stalls}\n\
             route_carrier_stall_seconds_total{{server=\"virtual\",route=\"/users/{{id}}\"}} 0.5\n\
             carrier_lag_seconds{{server=\"virtual\",quantile=\"0.99\"}} 0.004\n\
             pool_acquires_total{{server=\"virtual\",pool=\"postgres\"}} {acquires}\n\
             pool_acquire_wait_seconds_total{{server=\"virtual\",pool=\"postgres\"}} {wait}\n",
            calls as f64 * 0.002
        )
    }

    #[test]
    fn virtual_threads_are_read_per_request_with_their_pools() {
        let before = virtual_metrics(10, 1, (10, 1), (10, 0.5));
        let after = virtual_metrics(110, 3, (109, 3), (110, 2.5));
        let w = window(&before, &after, &["/users/{id}"]).unwrap();
        let r = w.route("/users/{id}").unwrap();
        // Both statuses counted (99 + 2), the cache route's not.
        assert_eq!(r.requests, Some(101));
        assert_eq!(r.blocking_calls, Some(100));
        assert_eq!(r.carrier_stalls, Some(2));
        assert_eq!(r.polls, None);
        assert!((r.ms_per_blocking_call().unwrap() - 2.0).abs() < 1e-9);
        assert!((r.blocking_calls_per_request().unwrap() - 100.0 / 101.0).abs() < 1e-9);
        assert_eq!(w.carrier_lag_p99_ms, Some(4.0));
        let pg = w.pool("postgres").unwrap();
        assert_eq!((pg.acquires, pg.mean_wait_ms()), (100, Some(20.0)));
        assert!(w.pool("redis").is_none());
    }
}
