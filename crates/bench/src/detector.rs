//! The servers' own stall detectors (issue 9) read around one measured
//! window: per route, the async server's slow polls (deltas of its
//! `route_polls_total` and `route_slow_polls_total`), its blocking calls on
//! an event-loop worker (deltas of `route_blocking_calls_total`) and its
//! event-loop lag p99, or the blocking server's handler queue-wait p99.
//!
//! Pure functions of two `/metrics` texts, parsed with
//! [`crate::remote_metrics::value`] (bench's one `/metrics` reader), so the
//! arithmetic is tested from captured texts of the real servers.

use crate::model::{DetectorWindow, RouteWindow};
use crate::remote_metrics::value;

/// The `route` label a request path is counted under: the contract's route
/// pattern whose segments match the path's, `{...}` matching any one
/// segment ("/users/1/blocking" -> "/users/{id}/blocking"; a query is
/// ignored). `None` for a path no route has.
pub fn route_pattern(path: &str) -> Option<&'static str> {
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    contract::routes::ROUTES
        .iter()
        .map(|r| r.pattern)
        .find(|pattern| {
            let want: Vec<&str> = pattern.split('/').collect();
            want.len() == segments.len()
                && want
                    .iter()
                    .zip(&segments)
                    .all(|(w, s)| w == s || (w.starts_with('{') && w.ends_with('}')))
        })
}

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

/// What the detector said about `routes` between the readings `before`
/// and `after` of one server's `/metrics`; `None` when `after` has no
/// detector figures (async with `--stall-detector off`, tiny_http, a server
/// of another kind). The async server is recognised by its
/// `slow_poll_threshold_seconds` (written only with the detector on), the
/// blocking one by `handler_threads`.
pub fn window(before: &str, after: &str, routes: &[&str]) -> Option<DetectorWindow> {
    let is_async = value(after, "slow_poll_threshold_seconds", &[]).is_some();
    let is_blocking = value(after, "handler_threads", &[]).is_some();
    if !is_async && !is_blocking {
        return None;
    }
    // A server from before the blocking-call half has no such family at all.
    let has_blocking_calls = is_async && after.contains("route_blocking_calls_total");
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
            queue_wait_p99_ms: if is_blocking {
                p99_ms(after, "handler_queue_wait_seconds", Some(route))
            } else {
                None
            },
        })
        .collect();
    Some(DetectorWindow {
        event_loop_lag_p99_ms: if is_async {
            p99_ms(after, "event_loop_lag_seconds", None)
        } else {
            None
        },
        routes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_route_label() {
        assert_eq!(
            route_pattern("/users/1/blocking"),
            Some("/users/{id}/blocking")
        );
        assert_eq!(route_pattern("/users/{rand:1-10000}"), Some("/users/{id}"));
        assert_eq!(route_pattern("/cpu?n=1000000"), Some("/cpu"));
        assert_eq!(route_pattern("/cpu/rayon?n=5"), Some("/cpu/rayon"));
        assert_eq!(route_pattern("/posts/1"), Some("/posts/{id}"));
        assert_eq!(route_pattern("/health"), Some("/health"));
        assert_eq!(route_pattern("/nope/1"), None);
    }
}
