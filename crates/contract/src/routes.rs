//! The route table of the contract: every route, which server serves it,
//! the Spring analogue it mirrors, and where it blocks its thread by design.
//! This table is what the servers' routers, the tests, the docs, bench's
//! findings and the `/metrics` labels agree on.
//!
//! A route is a [`Route`], and its row of [`ROUTES`] is its data: method,
//! pattern, servers, what blocks. Both servers dispatch with an exhaustive
//! `match` on [`Route`], so a route added to the table without a handler
//! in each server does not compile. The enum and the table are declared
//! together, from one list (`route_table!` below), so they cannot disagree.
//!
//! A request's `route` label is derived here and nowhere else: [`match_path`]
//! matches a path against the table's patterns (the blocking server routes
//! with it), [`label_of`] gives the label of a request target (bench reads
//! the servers' figures with it), and the async server registers its axum
//! routes from this table, each by its [`Route`].

/// Which servers serve a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Servers {
    Both,
    /// The WebFlux-scheduler-matrix variants exist on the async server only.
    AsyncOnly,
}

/// A way of running handlers in which a thread must never block, because it
/// serves many requests at once: the routes that block such a thread by
/// design are the ones its stall detector must flag, and no other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonBlocking {
    /// The async server's event-loop workers.
    EventLoop,
    /// The blocking server's carrier threads (`--threads virtual`) with the
    /// pinning driver: its Postgres and Redis calls hold the carrier.
    CarrierPinningDriver,
    /// The carrier threads with the yielding driver: only work that never
    /// waits (the inline CPU loop) holds a carrier.
    CarrierYieldingDriver,
}

/// The method a route is served for; `GET` also answers `HEAD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    /// As a request line writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One row of the route table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteSpec {
    /// The route this row describes.
    pub route: Route,
    pub method: Method,
    /// The pattern, which is also the `route` label in `/metrics`.
    pub pattern: &'static str,
    pub servers: Servers,
    /// What the thread that runs the handler does while it waits (or works).
    pub what_the_thread_does: &'static str,
    /// The Spring MVC / WebFlux column it mirrors.
    pub spring_analogue: &'static str,
    /// Where its handler blocks the thread that runs it, by design: the
    /// deliberately wrong variants and inline `/cpu` on the event loop.
    pub blocks: &'static [NonBlocking],
}

/// The patterns of the routes that block a thread of `mode` by design, in
/// table order.
pub fn blocks_by_design(mode: NonBlocking) -> impl Iterator<Item = &'static str> {
    ROUTES
        .iter()
        .filter(move |r| r.blocks.contains(&mode))
        .map(|r| r.pattern)
}

/// Whether the route `pattern` blocks a thread of `mode` by design.
pub fn blocks(pattern: &str, mode: NonBlocking) -> bool {
    ROUTES
        .iter()
        .any(|r| r.pattern == pattern && r.blocks.contains(&mode))
}

/// The label used in `/metrics` for requests that matched no route.
pub const UNMATCHED: &str = "unmatched";

/// A placeholder segment of a pattern, such as `{id}`: it stands for any
/// one non-empty segment of a path.
fn is_placeholder(segment: &str) -> bool {
    segment.len() > 2 && segment.starts_with('{') && segment.ends_with('}')
}

/// A request path matched against the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathMatch<'p> {
    /// The route whose pattern the path matches.
    pub route: Route,
    /// The path segment standing for the pattern's placeholder, if it has
    /// one, still percent-encoded (`crate::params::parse_path_id` decodes
    /// and checks it).
    pub id: Option<&'p str>,
}

/// The row of the table whose pattern matches `path` (a path without its
/// query string), segment by segment, a placeholder such as `{id}` standing
/// for any one non-empty segment: `/users/7/cache` is `/users/{id}/cache`,
/// `/users/` and `/health/` are nothing. Methods are not compared: a known
/// path asked with another method is still its route (a 405, counted under
/// the route's pattern); [`RouteSpec::allows`] says whether the method is
/// served. Whether the asking server serves the route is the caller's
/// question ([`RouteSpec::servers`]).
pub fn match_path(path: &str) -> Option<PathMatch<'_>> {
    ROUTES.iter().find_map(|spec| {
        let mut id = None;
        let mut wanted = spec.pattern.split('/');
        let mut given = path.split('/');
        loop {
            match (wanted.next(), given.next()) {
                (None, None) => {
                    let route = spec.route;
                    return Some(PathMatch { route, id });
                }
                (Some(w), Some(g)) if is_placeholder(w) && !g.is_empty() => id = Some(g),
                (Some(w), Some(g)) if w == g => {}
                _ => return None,
            }
        }
    })
}

/// The `/metrics` `route` label of a request target (a path, with or
/// without its query string): the pattern of the route [`match_path`]
/// matches, or `None` for a path no route has (the servers count it under
/// [`UNMATCHED`]). `/users/1/blocking?x=1` is `/users/{id}/blocking`, and a
/// load tool's template `/users/{rand:1-10000}` is `/users/{id}`.
pub fn label_of(target: &str) -> Option<&'static str> {
    let path = target.split_once('?').map_or(target, |(path, _)| path);
    match_path(path).map(|m| m.route.pattern())
}

/// The row with this exact pattern, if the table has one.
pub fn find(pattern: &str) -> Option<&'static RouteSpec> {
    ROUTES.iter().find(|route| route.pattern == pattern)
}

/// Every `route` label the blocking server uses: the patterns of the routes
/// it serves (`Servers::Both`), in table order, then [`UNMATCHED`].
pub fn blocking_server_labels() -> impl Iterator<Item = &'static str> {
    ROUTES
        .iter()
        .filter(|route| route.servers == Servers::Both)
        .map(|route| route.pattern)
        .chain([UNMATCHED])
}

impl RouteSpec {
    /// Whether a request with `method` is served on this route: its own
    /// method, and `HEAD` wherever `GET` is (the answer without its body).
    pub fn allows(&self, method: &str) -> bool {
        method == self.method.as_str() || (self.method == Method::Get && method == "HEAD")
    }

    /// The `Allow` header of a 405 on this route.
    pub fn allow(&self) -> &'static str {
        match self.method {
            Method::Get => "GET,HEAD",
            Method::Post => "POST",
        }
    }
}

impl Route {
    /// This route's row of [`ROUTES`].
    pub fn spec(self) -> &'static RouteSpec {
        // In range: route_table! writes the enum and the table from one
        // list, a row per variant, in order.
        &ROUTES[self.index()]
    }

    /// Its place in [`ROUTES`] (and in [`Route::ALL`]): each server's
    /// per-route figures are kept in this order.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The pattern, which is also the `route` label in `/metrics`.
    pub fn pattern(self) -> &'static str {
        self.spec().pattern
    }

    /// The still percent-encoded segment of `path` that stands for this
    /// route's `{id}` placeholder, for a path this route matched; `None` for
    /// a route without one. `contract::params::parse_path_id` decides what
    /// id it is: `Route::User.id_segment("/users/%31")` is `"%31"`, user 1.
    pub fn id_segment(self, path: &str) -> Option<&str> {
        let at = self.pattern().split('/').position(is_placeholder)?;
        path.split('/').nth(at)
    }
}

/// Declares [`Route`], [`Route::ALL`] and [`ROUTES`] from one list: a
/// variant and its row each, in the same order, so the enum and the table
/// cannot disagree and [`Route::spec`] is an index.
macro_rules! route_table {
    ($($route:ident { $($field:ident: $value:expr,)* })*) => {
        /// A route of the contract. Each server dispatches on it with an
        /// exhaustive `match`: a variant added here fails to compile until
        /// both servers say what answers it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Route {
            $($route,)*
        }

        impl Route {
            /// Every route, in the table's order.
            pub const ALL: &[Route] = &[$(Route::$route,)*];
        }

        /// The route table: one row per [`Route`], in its order.
        pub const ROUTES: &[RouteSpec] = &[
            $(RouteSpec { route: Route::$route, $($field: $value,)* },)*
        ];
    };
}

route_table! {
    Health {
        method: Method::Get,
        pattern: "/health",
        servers: Servers::Both,
        what_the_thread_does: "answers at once",
        spring_analogue: "MVC and WebFlux /health (seed 001)",
        blocks: &[],
    }
    Cpu {
        method: Method::Get,
        pattern: "/cpu",
        servers: Servers::Both,
        what_the_thread_does: "computes inline (a pool thread; on async, the event-loop worker)",
        spring_analogue: "MVC / WebFlux without scheduler, CPU-bound (seed 000)",
        blocks: &[
            NonBlocking::EventLoop,
            NonBlocking::CarrierPinningDriver,
            NonBlocking::CarrierYieldingDriver,
        ],
    }
    CpuSpawnBlocking {
        method: Method::Get,
        pattern: "/cpu/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a tokio blocking-pool thread computes",
        spring_analogue: "WebFlux + BoundedElasticScheduler",
        blocks: &[],
    }
    CpuRayon {
        method: Method::Get,
        pattern: "/cpu/rayon",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a rayon thread (one per core) computes",
        spring_analogue: "WebFlux + ParallelScheduler (seed 000)",
        blocks: &[],
    }
    User {
        method: Method::Get,
        pattern: "/users/{id}",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: pool thread blocks on the socket; async: worker is free while sqlx waits",
        spring_analogue: "MVC + JDBC / WebFlux + R2DBC (seeds 000, 001, 002)",
        blocks: &[NonBlocking::CarrierPinningDriver],
    }
    UserBlocking {
        method: Method::Get,
        pattern: "/users/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks until a sync-driver query returns",
        spring_analogue: "WebFlux + JDBC without scheduler (seed 000)",
        blocks: &[NonBlocking::EventLoop],
    }
    UserSpawnBlocking {
        method: Method::Get,
        pattern: "/users/{id}/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a blocking-pool thread runs the sync-driver query",
        spring_analogue: "WebFlux + JDBC on BoundedElasticScheduler (seed 000)",
        blocks: &[],
    }
    UserCache {
        method: Method::Get,
        pattern: "/users/{id}/cache",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: two GETs one after the other; async: both GETs at once (Mono.zip)",
        spring_analogue: "MVC RedisTemplate / WebFlux ReactiveRedisTemplate (seed 001)",
        blocks: &[NonBlocking::CarrierPinningDriver],
    }
    UserCacheBlocking {
        method: Method::Get,
        pattern: "/users/{id}/cache/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks on sync redis",
        spring_analogue: "WebFlux calling blocking RedisTemplate",
        blocks: &[NonBlocking::EventLoop],
    }
    Post {
        method: Method::Get,
        pattern: "/posts/{id}",
        servers: Servers::Both,
        what_the_thread_does: "blocking: thread sleeps 300 ms; async: a timer, the worker is free",
        spring_analogue: "MVC Thread.sleep / WebFlux Mono.delay (seed 001)",
        blocks: &[],
    }
    PostBlocking {
        method: Method::Get,
        pattern: "/posts/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread sleeps 300 ms (std::thread::sleep)",
        spring_analogue: "WebFlux with Thread.sleep on the event loop",
        blocks: &[NonBlocking::EventLoop],
    }
    Echo {
        method: Method::Post,
        pattern: "/echo",
        servers: Servers::Both,
        what_the_thread_does: "parses and writes JSON",
        spring_analogue: "seed 003's JSON endpoint",
        blocks: &[],
    }
    Metrics {
        method: Method::Get,
        pattern: "/metrics",
        servers: Servers::Both,
        what_the_thread_does: "reads /proc and counters",
        spring_analogue: "what the seeds read from JMeter and docker stats",
        blocks: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in ROUTES {
            assert!(seen.insert(r.pattern), "{} twice", r.pattern);
        }
    }

    #[test]
    fn each_route_is_its_own_row() {
        assert_eq!(Route::ALL.len(), ROUTES.len());
        for (index, route) in Route::ALL.iter().enumerate() {
            assert_eq!(route.index(), index);
            assert_eq!(route.spec().route, *route);
        }
    }

    #[test]
    fn every_pattern_matches_a_path_of_its_own_and_gives_its_label() {
        for route in Route::ALL {
            let pattern = route.pattern();
            let path = pattern.replace("{id}", "42");
            let found = match_path(&path).map(|m| (m.route, m.id));
            let id = pattern.contains("{id}").then_some("42");
            assert_eq!(found, Some((*route, id)), "{path}");
            assert_eq!(route.id_segment(&path), id, "{path}");
            assert_eq!(label_of(&format!("{path}?n=5")), Some(pattern));
        }
    }

    #[test]
    fn the_id_segment_is_the_raw_one_where_the_pattern_has_its_placeholder() {
        assert_eq!(Route::User.id_segment("/users/%31"), Some("%31"));
        assert_eq!(Route::UserCache.id_segment("/users/x/cache"), Some("x"));
        assert_eq!(Route::Post.id_segment("/posts/3"), Some("3"));
        assert_eq!(Route::Health.id_segment("/health"), None);
    }

    #[test]
    fn a_path_matches_segment_by_segment_and_a_placeholder_is_one_non_empty_segment() {
        let table = [
            ("/users/%31", Some("/users/{id}")),
            ("/users/x/cache", Some("/users/{id}/cache")),
            ("/users/{rand:1-10000}", Some("/users/{id}")),
            ("/cpu/rayon", Some("/cpu/rayon")),
            ("/cpu?n=1000000", Some("/cpu")),
            ("/users/1/blocking?x=1", Some("/users/{id}/blocking")),
            ("", None),
            ("/", None),
            ("/nope", None),
            ("/nope/1", None),
            ("/health/", None),
            ("/users/", None),
            ("/users//cache", None),
            ("/users/1/", None),
            ("/users/1/nope", None),
            ("health", None),
        ];
        for (target, label) in table {
            assert_eq!(label_of(target), label, "{target:?}");
        }
    }

    #[test]
    fn a_get_route_allows_head_and_says_so() {
        let health = find("/health").unwrap();
        assert!(health.allows("GET") && health.allows("HEAD") && !health.allows("POST"));
        assert_eq!(health.allow(), "GET,HEAD");
        let echo = Route::Echo.spec();
        assert!(echo.allows("POST") && !echo.allows("GET") && !echo.allows("HEAD"));
        assert_eq!(echo.allow(), "POST");
        assert!(find("/users/1").is_none());
    }

    #[test]
    fn the_blocking_server_labels_its_routes_and_the_unmatched() {
        let labels: Vec<&str> = blocking_server_labels().collect();
        assert_eq!(
            labels,
            [
                "/health",
                "/cpu",
                "/users/{id}",
                "/users/{id}/cache",
                "/posts/{id}",
                "/echo",
                "/metrics",
                UNMATCHED
            ]
        );
    }

    #[test]
    fn the_event_loop_is_blocked_by_design_on_four_routes_all_async() {
        let on_the_loop: Vec<&str> = blocks_by_design(NonBlocking::EventLoop).collect();
        assert_eq!(
            on_the_loop,
            [
                "/cpu",
                "/users/{id}/blocking",
                "/users/{id}/cache/blocking",
                "/posts/{id}/blocking"
            ]
        );
        assert!(blocks("/cpu", NonBlocking::EventLoop));
        assert!(!blocks("/users/{id}", NonBlocking::EventLoop));
        assert!(!blocks("/nope", NonBlocking::EventLoop));
    }
}
