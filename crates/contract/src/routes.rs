//! The route table of the contract: every route, which server serves it,
//! the Spring analogue it mirrors, and where it blocks its thread by design.
//! Servers route with their own routers; this table is what the tests, the
//! docs, bench's findings and the `/metrics` labels agree on.

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

pub const ROUTES: &[RouteSpec] = &[
    RouteSpec {
        method: "GET",
        pattern: "/health",
        servers: Servers::Both,
        what_the_thread_does: "answers at once",
        spring_analogue: "MVC and WebFlux /health (seed 001)",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu",
        servers: Servers::Both,
        what_the_thread_does: "computes inline (a pool thread; on async, the event-loop worker)",
        spring_analogue: "MVC / WebFlux without scheduler, CPU-bound (seed 000)",
        blocks: &[
            NonBlocking::EventLoop,
            NonBlocking::CarrierPinningDriver,
            NonBlocking::CarrierYieldingDriver,
        ],
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a tokio blocking-pool thread computes",
        spring_analogue: "WebFlux + BoundedElasticScheduler",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/cpu/rayon",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a rayon thread (one per core) computes",
        spring_analogue: "WebFlux + ParallelScheduler (seed 000)",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: pool thread blocks on the socket; async: worker is free while sqlx waits",
        spring_analogue: "MVC + JDBC / WebFlux + R2DBC (seeds 000, 001, 002)",
        blocks: &[NonBlocking::CarrierPinningDriver],
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks until a sync-driver query returns",
        spring_analogue: "WebFlux + JDBC without scheduler (seed 000)",
        blocks: &[NonBlocking::EventLoop],
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/spawn-blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker awaits; a blocking-pool thread runs the sync-driver query",
        spring_analogue: "WebFlux + JDBC on BoundedElasticScheduler (seed 000)",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/cache",
        servers: Servers::Both,
        what_the_thread_does:
            "blocking: two GETs one after the other; async: both GETs at once (Mono.zip)",
        spring_analogue: "MVC RedisTemplate / WebFlux ReactiveRedisTemplate (seed 001)",
        blocks: &[NonBlocking::CarrierPinningDriver],
    },
    RouteSpec {
        method: "GET",
        pattern: "/users/{id}/cache/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread blocks on sync redis",
        spring_analogue: "WebFlux calling blocking RedisTemplate",
        blocks: &[NonBlocking::EventLoop],
    },
    RouteSpec {
        method: "GET",
        pattern: "/posts/{id}",
        servers: Servers::Both,
        what_the_thread_does: "blocking: thread sleeps 300 ms; async: a timer, the worker is free",
        spring_analogue: "MVC Thread.sleep / WebFlux Mono.delay (seed 001)",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/posts/{id}/blocking",
        servers: Servers::AsyncOnly,
        what_the_thread_does: "worker thread sleeps 300 ms (std::thread::sleep)",
        spring_analogue: "WebFlux with Thread.sleep on the event loop",
        blocks: &[NonBlocking::EventLoop],
    },
    RouteSpec {
        method: "POST",
        pattern: "/echo",
        servers: Servers::Both,
        what_the_thread_does: "parses and writes JSON",
        spring_analogue: "seed 003's JSON endpoint",
        blocks: &[],
    },
    RouteSpec {
        method: "GET",
        pattern: "/metrics",
        servers: Servers::Both,
        what_the_thread_does: "reads /proc and counters",
        spring_analogue: "what the seeds read from JMeter and docker stats",
        blocks: &[],
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
