//! The route table of the contract: every route, which server serves it, and
//! the Spring analogue it mirrors. Servers route with their own routers; this
//! table is what the tests, the docs and the `/metrics` labels agree on.

/// Which servers serve a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Servers {
    Both,
    /// The WebFlux-scheduler-matrix variants exist on the async server only.
    AsyncOnly,
}

/// One row of the route table.
#[derive(Debug, Clone, Copy)]
pub struct RouteSpec {
    pub method: &'static str,
    /// The pattern, which is also the `route` label in `/metrics`.
    pub pattern: &'static str,
    pub servers: Servers,
    /// What the thread that runs the handler does while it waits (or works).
    pub what_the_thread_does: &'static str,
    /// The Spring MVC / WebFlux column it mirrors.
    pub spring_analogue: &'static str,
}

/// The label used in `/metrics` for requests that matched no route.
pub const UNMATCHED: &str = "unmatched";

pub const ROUTES: &[RouteSpec] = &[
    RouteSpec {
        method: "GET",
        pattern: "/health",
        servers: Servers::Both,
        what_the_thread_does: "answers at once",
        spring_analogue: "MVC and WebFlux /health (seed 001)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu",
        servers: Servers::Both,
        what_the_thread_does: "computes inline (a pool thread; on async, the event-loop worker)",
        spring_analogue: "MVC / WebFlux without scheduler, CPU-bound (seed 000)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a tokio blocking-pool thread computes",
        spring_analogue: "WebFlux + BoundedElasticScheduler",
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu/rayon",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a rayon thread (one per core) computes",
        spring_analogue: "WebFlux + ParallelScheduler (seed 000)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: pool thread blocks on the socket; async: worker is free while sqlx waits",
        spring_analogue: "MVC + JDBC / WebFlux + R2DBC (seeds 000, 001, 002)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks until a sync-driver query returns",
        spring_analogue: "WebFlux + JDBC without scheduler (seed 000)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a blocking-pool thread runs the sync-driver query",
        spring_analogue: "WebFlux + JDBC on BoundedElasticScheduler (seed 000)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/cache",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: two GETs one after the other; async: both GETs at once (Mono.zip)",
        spring_analogue: "MVC RedisTemplate / WebFlux ReactiveRedisTemplate (seed 001)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/cache/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks on sync redis",
        spring_analogue: "WebFlux calling blocking RedisTemplate",
    },
    RouteSpec {
        method: "GET",
        pattern: "/posts/{id}",
        servers: Servers::Both,
        what_the_thread_does: "blocking: thread sleeps 300 ms; async: a timer, the worker is free",
        spring_analogue: "MVC Thread.sleep / WebFlux Mono.delay (seed 001)",
    },
    RouteSpec {
        method: "GET",
        pattern: "/posts/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread sleeps 300 ms (std::thread::sleep)",
        spring_analogue: "WebFlux with Thread.sleep on the event loop",
    },
    RouteSpec {
        method: "POST",
        pattern: "/echo",
        servers: Servers::Both,
        what_the_thread_does: "parses and writes JSON",
        spring_analogue: "seed 003's JSON endpoint",
    },
    RouteSpec {
        method: "GET",
        pattern: "/metrics",
        servers: Servers::Both,
        what_the_thread_does: "reads /proc and counters",
        spring_analogue: "what the seeds read from JMeter and docker stats",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in ROUTES {
            assert!(seen.insert((r.method, r.pattern)), "{} twice", r.pattern);
        }
    }
}
