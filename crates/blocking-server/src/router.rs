//! Which route a request is for, from its method and path: pure matching, no I/O.
//!
//! The patterns are those of `contract::routes::ROUTES` (the blocking server
//! serves the `Servers::Both` rows); the pattern is also the `/metrics` label.
//! A known path asked with another method is a 405 with an `Allow` header,
//! and `HEAD` is accepted wherever `GET` is.

/// A matched route, with the raw (percent-decoded) path parameter where it has one.
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
        ["users", id] if !id.is_empty() => (Route::User(decode(id)), "/users/{id}", GET_ALLOW),
        ["users", id, "cache"] if !id.is_empty() => {
            (Route::UserCache(decode(id)), "/users/{id}/cache", GET_ALLOW)
        }
        ["posts", id] if !id.is_empty() => (Route::Post(decode(id)), "/posts/{id}", GET_ALLOW),
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

/// Percent-decodes a path segment, as axum's `Path` does on the async server,
/// so `/users/%31` is user 1 on both. Bytes that do not decode are kept as
/// they are (and then fail the id check).
fn decode(segment: &str) -> String {
    if !segment.contains('%') {
        return segment.to_owned();
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| segment.to_owned())
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
            ("GET", "/users/%31", Route::User("1".into()), "/users/{id}"),
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

    #[test]
    fn bad_percent_escapes_are_kept() {
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("1%2"), "1%2");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("%41b"), "Ab");
        assert_eq!(decode("%ff"), "%ff");
    }
}
