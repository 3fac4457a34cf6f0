//! Which handler a request is for, from its method and path: pure matching,
//! no I/O.
//!
//! The path is matched by the contract's route table
//! (`contract::routes::match_path`, the one derivation of the `/metrics`
//! label); the blocking server serves the `Servers::Both` rows. A known path
//! asked with another method is a 405 with the contract's `Allow` header,
//! and `HEAD` is accepted wherever `GET` is.

use contract::routes::{match_path, Servers};

/// A matched route, with the raw path segment of its id where it has one
/// (still percent-encoded: `contract::params::parse_path_id` decodes and checks it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Health,
    Cpu,
    User(String),
    UserCache(String),
    Post(String),
    Echo,
    Metrics,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Routing {
    Matched {
        route: Route,
        pattern: &'static str,
    },
    WrongMethod {
        pattern: &'static str,
        allow: &'static str,
    },
    NoRoute,
}

/// Which route of the contract a request is for. The path is matched by
/// the contract's table (`contract::routes::match_path`), so the pattern,
/// the `/metrics` label, is the contract's; only the routes the blocking
/// server serves (`Servers::Both`) count. What is left here is which
/// handler answers each pattern.
pub(crate) fn route(method: &str, path: &str) -> Routing {
    let Some(found) = match_path(path).filter(|m| m.route.servers == Servers::Both) else {
        return Routing::NoRoute;
    };
    let pattern = found.route.pattern;
    if !found.route.allows(method) {
        return Routing::WrongMethod {
            pattern,
            allow: found.route.allow(),
        };
    }
    let id = || found.id.unwrap_or_default().to_owned();
    let route = match pattern {
        "/health" => Route::Health,
        "/cpu" => Route::Cpu,
        "/users/{id}" => Route::User(id()),
        "/users/{id}/cache" => Route::UserCache(id()),
        "/posts/{id}" => Route::Post(id()),
        "/echo" => Route::Echo,
        "/metrics" => Route::Metrics,
        // A route of the table without a handler here: a test below keeps
        // this arm unreachable.
        _ => return Routing::NoRoute,
    };
    Routing::Matched { route, pattern }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(method: &str, path: &str) -> Option<(Route, &'static str)> {
        match route(method, path) {
            Routing::Matched { route, pattern } => Some((route, pattern)),
            _ => None,
        }
    }

    #[test]
    fn every_route_matches_its_pattern() {
        let table = [
            ("GET", "/health", Route::Health, "/health"),
            ("HEAD", "/health", Route::Health, "/health"),
            ("GET", "/cpu", Route::Cpu, "/cpu"),
            ("GET", "/users/7", Route::User("7".into()), "/users/{id}"),
            ("GET", "/users/x", Route::User("x".into()), "/users/{id}"),
            (
                "GET",
                "/users/7/cache",
                Route::UserCache("7".into()),
                "/users/{id}/cache",
            ),
            ("GET", "/posts/3", Route::Post("3".into()), "/posts/{id}"),
            ("POST", "/echo", Route::Echo, "/echo"),
            ("GET", "/metrics", Route::Metrics, "/metrics"),
            (
                "GET",
                "/users/%31",
                Route::User("%31".into()),
                "/users/{id}",
            ),
        ];
        for (method, path, want, pattern) in table {
            assert_eq!(
                matched(method, path),
                Some((want, pattern)),
                "{method} {path}"
            );
        }
    }

    #[test]
    fn every_route_of_the_blocking_server_has_a_handler_and_no_other() {
        for spec in contract::routes::ROUTES {
            let path = spec.pattern.replace("{id}", "1");
            let routed = route(spec.method, &path);
            match spec.servers {
                Servers::Both => assert!(
                    matches!(routed, Routing::Matched { pattern, .. } if pattern == spec.pattern),
                    "{path}: {routed:?}"
                ),
                Servers::AsyncOnly => assert_eq!(routed, Routing::NoRoute, "{path}"),
            }
        }
    }

    #[test]
    fn wrong_method_names_what_is_allowed() {
        assert_eq!(
            route("POST", "/health"),
            Routing::WrongMethod {
                pattern: "/health",
                allow: "GET,HEAD"
            }
        );
        assert_eq!(
            route("GET", "/echo"),
            Routing::WrongMethod {
                pattern: "/echo",
                allow: "POST"
            }
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
            assert_eq!(route("GET", path), Routing::NoRoute, "{path:?}");
        }
    }
}
