//! Which route of the contract a request is for, from its method and path:
//! pure matching, no I/O.
//!
//! The path is matched by the contract's route table
//! (`contract::routes::match_path`, the one derivation of the `/metrics`
//! label); the blocking server serves the `Servers::Both` rows. A known path
//! asked with another method is a 405 with the contract's `Allow` header,
//! and `HEAD` is accepted wherever `GET` is. Which handler answers each
//! route is the exhaustive `match` in crate::handlers.

use contract::routes::{match_path, Route, Servers, UNMATCHED};

/// Where a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Routing<'p> {
    /// A route this server serves, asked with a method it serves, with the
    /// raw path segment of its `{id}` where it has one (still
    /// percent-encoded: `contract::params::parse_path_id` decides the id).
    Matched { route: Route, id: Option<&'p str> },
    /// A route this server serves, asked with another method: 405.
    WrongMethod { route: Route },
    /// No route of this server: 404.
    NoRoute,
}

impl Routing<'_> {
    /// The `/metrics` `route` label the request is counted under: its
    /// route's pattern, or `unmatched`.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Routing::Matched { route, .. } | Routing::WrongMethod { route } => route.pattern(),
            Routing::NoRoute => UNMATCHED,
        }
    }
}

/// Which route of the contract a request is for. The path is matched by
/// the contract's table (`contract::routes::match_path`), so the route and
/// its label are the contract's; only the routes the blocking server serves
/// (`Servers::Both`) count.
pub(crate) fn route<'p>(method: &str, path: &'p str) -> Routing<'p> {
    let Some(found) = match_path(path).filter(|m| m.route.spec().servers == Servers::Both) else {
        return Routing::NoRoute;
    };
    let route = found.route;
    if route.spec().allows(method) {
        Routing::Matched {
            route,
            id: found.id,
        }
    } else {
        Routing::WrongMethod { route }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_matches_its_pattern() {
        let table = [
            ("GET", "/health", Route::Health, None),
            ("HEAD", "/health", Route::Health, None),
            ("GET", "/cpu", Route::Cpu, None),
            ("GET", "/users/7", Route::User, Some("7")),
            ("GET", "/users/x", Route::User, Some("x")),
            ("GET", "/users/7/cache", Route::UserCache, Some("7")),
            ("GET", "/posts/3", Route::Post, Some("3")),
            ("POST", "/echo", Route::Echo, None),
            ("GET", "/metrics", Route::Metrics, None),
            ("GET", "/users/%31", Route::User, Some("%31")),
        ];
        for (method, path, route_, id) in table {
            let routed = route(method, path);
            assert_eq!(
                routed,
                Routing::Matched { route: route_, id },
                "{method} {path}"
            );
            assert_eq!(routed.label(), route_.pattern());
        }
    }

    #[test]
    fn the_blocking_server_serves_the_routes_of_both_and_no_other() {
        for spec in contract::routes::ROUTES {
            let path = spec.pattern.replace("{id}", "1");
            let routed = route(spec.method.as_str(), &path);
            match spec.servers {
                Servers::Both => assert!(
                    matches!(routed, Routing::Matched { route, .. } if route == spec.route),
                    "{path}: {routed:?}"
                ),
                Servers::AsyncOnly => assert_eq!(routed, Routing::NoRoute, "{path}"),
            }
        }
    }

    #[test]
    fn wrong_method_is_counted_under_the_route_and_names_what_is_allowed() {
        let routed = route("POST", "/health");
        assert_eq!(
            routed,
            Routing::WrongMethod {
                route: Route::Health
            }
        );
        assert_eq!(routed.label(), "/health");
        assert_eq!(Route::Health.spec().allow(), "GET,HEAD");
        assert_eq!(
            route("GET", "/echo"),
            Routing::WrongMethod { route: Route::Echo }
        );
    }

    #[test]
    fn unknown_paths_match_nothing() {
        for path in [
            "",
            "/",
            "/nope",
            "/health/",
            "/users/",
            "/users/1/",
            "/cpu/rayon",
            "health",
        ] {
            let routed = route("GET", path);
            assert_eq!(routed, Routing::NoRoute, "{path:?}");
            assert_eq!(routed.label(), UNMATCHED);
        }
    }
}
