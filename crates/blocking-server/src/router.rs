//! Which route a request is for, from its method and path: pure matching, no I/O.
//!
//! The patterns are those of `contract::routes::ROUTES` (the blocking server
//! serves the `Servers::Both` rows); the pattern is also the `/metrics` label.
//! A known path asked with another method is a 405 with an `Allow` header,
//! and `HEAD` is accepted wherever `GET` is.

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

/// Every pattern [`route`] matches, and the `route` label of requests that
/// matched none: the labels this server's per-route figures use.
pub(crate) const PATTERNS: [&str; 8] = [
    "/health",
    "/cpu",
    "/users/{id}",
    "/users/{id}/cache",
    "/posts/{id}",
    "/echo",
    "/metrics",
    contract::routes::UNMATCHED,
];

const GET_ALLOW: &str = "GET,HEAD";
const POST_ALLOW: &str = "POST";

pub(crate) fn route(method: &str, path: &str) -> Routing {
    let Some(rest) = path.strip_prefix('/') else {
        return Routing::NoRoute;
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let (route, pattern, allow) = match segments.as_slice() {
        ["health"] => (Route::Health, "/health", GET_ALLOW),
        ["cpu"] => (Route::Cpu, "/cpu", GET_ALLOW),
        ["users", id] if !id.is_empty() => (Route::User(id.to_string()), "/users/{id}", GET_ALLOW),
        ["users", id, "cache"] if !id.is_empty() => (
            Route::UserCache(id.to_string()),
            "/users/{id}/cache",
            GET_ALLOW,
        ),
        ["posts", id] if !id.is_empty() => (Route::Post(id.to_string()), "/posts/{id}", GET_ALLOW),
        ["echo"] => (Route::Echo, "/echo", POST_ALLOW),
        ["metrics"] => (Route::Metrics, "/metrics", GET_ALLOW),
        _ => return Routing::NoRoute,
    };
    let allowed = match allow {
        GET_ALLOW => method == "GET" || method == "HEAD",
        _ => method == "POST",
    };
    if allowed {
        Routing::Matched { route, pattern }
    } else {
        Routing::WrongMethod { pattern, allow }
    }
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
    fn every_pattern_is_listed_and_served_by_both_servers() {
        for pattern in PATTERNS
            .iter()
            .filter(|p| **p != contract::routes::UNMATCHED)
        {
            let row = contract::routes::ROUTES
                .iter()
                .find(|r| r.pattern == *pattern);
            assert_eq!(
                row.map(|r| r.servers),
                Some(contract::routes::Servers::Both),
                "{pattern}"
            );
        }
        let served = contract::routes::ROUTES
            .iter()
            .filter(|r| r.servers == contract::routes::Servers::Both)
            .count();
        assert_eq!(served + 1, PATTERNS.len());
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
