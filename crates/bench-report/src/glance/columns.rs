//! What the matrix needs to know of a column, read from what results.json
//! saved of it: its model (from its server), the name of its variant (the
//! driver, the route's offload, the connector or client its label names)
//! and whether it blocks by design (the contract's route table), so that a
//! column added to a group later takes its place without a change here.

pub use bench_analysis::by_design::{blocks_by_design, non_blocking_mode};
use bench_model::{ColumnResult, IdleServer, JavaServer, Target};
use contract::routes;

/// A way of serving requests the matrix compares, one column each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    /// A pool of platform threads, one per request (Spring MVC on Tomcat).
    ThreadPool,
    /// An event loop, a few workers (Spring WebFlux on Netty).
    EventLoop,
    /// The same blocking code on virtual threads (MVC on Loom).
    VirtualThreads,
}

impl Model {
    /// The three, in the matrix's order.
    pub const ALL: [Model; 3] = [Model::ThreadPool, Model::EventLoop, Model::VirtualThreads];

    /// The model of `target`'s columns; `None` for another implementation
    /// (a calibration server), which the matrix shows apart. Written as
    /// comparisons rather than a match so that a server added to
    /// bench-model falls to `None` by itself.
    pub fn of(target: Target) -> Option<Model> {
        if target == Target::Blocking {
            Some(Model::ThreadPool)
        } else if target == Target::Async {
            Some(Model::EventLoop)
        } else if target.driver().is_some() {
            Some(Model::VirtualThreads)
        } else {
            None
        }
    }

    /// The model a calibration server is the real thing of: Tomcat the
    /// thread pool's, Tomcat on virtual threads virtual threads', Netty the
    /// event loop's; `None` for our own servers.
    pub fn twin_of(target: Target) -> Option<Model> {
        match target.java()? {
            JavaServer::Tomcat => Some(Model::ThreadPool),
            JavaServer::TomcatVirtual => Some(Model::VirtualThreads),
            JavaServer::Netty => Some(Model::EventLoop),
        }
    }

    /// "thread pool", "event loop", "virtual threads".
    pub fn name(self) -> &'static str {
        match self {
            Model::ThreadPool => "thread pool",
            Model::EventLoop => "event loop",
            Model::VirtualThreads => "virtual threads",
        }
    }

    /// What it is in Java's terms and which of our servers runs it.
    pub fn shape(self) -> &'static str {
        match self {
            Model::ThreadPool => "Spring MVC on Tomcat · blocking-server",
            Model::EventLoop => "WebFlux on Netty · async-server",
            Model::VirtualThreads => "MVC on Loom · --threads virtual",
        }
    }

    /// Its id in a page: "thread-pool".
    pub fn slug(self) -> &'static str {
        match self {
            Model::ThreadPool => "thread-pool",
            Model::EventLoop => "event-loop",
            Model::VirtualThreads => "virtual-threads",
        }
    }
}

/// The server of an idle group's server, from its label ("async /health").
pub fn idle_target(s: &IdleServer) -> Option<Target> {
    s.label.split_whitespace().next().and_then(Target::parse)
}

/// The route of a column's path: its pattern in the route table, or the
/// path itself for one the table does not know.
pub fn route_of(path: &str) -> String {
    routes::label_of(path).map_or_else(
        || path.split('?').next().unwrap_or(path).to_owned(),
        str::to_owned,
    )
}

/// The words a variant's name is made of, made readable.
fn readable(word: &str) -> String {
    match word {
        "pinning" | "yielding" | "pipelined" => format!("{word} driver"),
        "spawn-blocking" => "spawn_blocking".to_owned(),
        "blocking" => "sync call on the loop".to_owned(),
        other => other.to_owned(),
    }
}

/// What a column says of its variant beyond its model and the group's
/// plain route `plain_route`: its driver (on virtual threads), what its
/// route adds to the plain one ("/cpu/rayon": "rayon"), and what its label
/// names in brackets ("(deadpool-redis)"). Failing all three, the words of
/// its id that are not its server's, its group's or its route's. Empty for
/// a plain column.
pub fn variant_words(
    id: &str,
    target: Target,
    label: &str,
    route: &str,
    plain_route: &str,
    group: &str,
) -> Vec<String> {
    let mut words: Vec<String> = target
        .driver()
        .map(|d| d.as_str().to_owned())
        .into_iter()
        .collect();
    if let Some(rest) = route.strip_prefix(plain_route) {
        words.extend(rest.split('/').filter(|w| !w.is_empty()).map(str::to_owned));
    }
    if let Some((_, bracket)) = label.rsplit_once('(') {
        words.push(bracket.trim_end_matches(')').trim().to_owned());
    }
    if words.is_empty() {
        let known: Vec<&str> = target
            .name()
            .split('-')
            .chain(group.split('-'))
            .chain(route.split(['/', '-']))
            .collect();
        words.extend(
            id.split('-')
                .filter(|w| !known.contains(w))
                .map(str::to_owned),
        );
    }
    words.iter().map(|w| readable(w)).collect()
}

/// The plain route of a group's columns: the shortest of their routes
/// (the one the variants add to), the first of the shortest.
pub fn plain_route<'a>(routes: impl IntoIterator<Item = &'a str>) -> String {
    routes
        .into_iter()
        .min_by_key(|r| r.split('/').count())
        .unwrap_or_default()
        .to_owned()
}

/// The routes of a group's load columns.
pub fn column_routes(columns: &[ColumnResult]) -> Vec<String> {
    columns.iter().map(|c| route_of(&c.path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::Driver;

    fn words(id: &str, target: Target, label: &str, route: &str, plain: &str) -> String {
        variant_words(id, target, label, route, plain, "database").join(", ")
    }

    #[test]
    fn a_model_comes_from_the_server_and_the_route_table_says_what_is_wrong() {
        assert_eq!(Model::of(Target::Blocking), Some(Model::ThreadPool));
        assert_eq!(Model::of(Target::Async), Some(Model::EventLoop));
        assert_eq!(
            Model::of(Target::Virtual(Driver::Yielding)),
            Some(Model::VirtualThreads)
        );
        // A calibration server is none of our models, and its twin's.
        let tomcat = Target::Java(JavaServer::Tomcat);
        assert_eq!(Model::of(tomcat), None);
        assert_eq!(Model::twin_of(tomcat), Some(Model::ThreadPool));
        assert_eq!(
            Model::twin_of(Target::Java(JavaServer::Netty)),
            Some(Model::EventLoop)
        );
        assert_eq!(Model::twin_of(Target::Async), None);
        assert!(!blocks_by_design(
            Target::Java(JavaServer::Netty),
            "/cpu?n=5",
            None
        ));
        assert!(blocks_by_design(Target::Async, "/cpu?n=5", None));
        assert!(!blocks_by_design(Target::Async, "/cpu/rayon?n=5", None));
        assert!(!blocks_by_design(Target::Blocking, "/cpu?n=5", None));
        assert!(blocks_by_design(
            Target::Virtual(Driver::Pinning),
            "/users/1",
            None
        ));
        assert!(!blocks_by_design(
            Target::Virtual(Driver::Yielding),
            "/users/1",
            None
        ));
        assert!(blocks_by_design(
            Target::Async,
            "/health",
            Some("/posts/1/blocking")
        ));
        assert!(!blocks_by_design(
            Target::Async,
            "/health",
            Some("/posts/1")
        ));
    }

    #[test]
    fn a_variant_is_named_by_its_driver_route_label_or_id() {
        let v = Target::Virtual(Driver::Yielding);
        assert_eq!(
            words(
                "virtual-yielding-users",
                v,
                "virtual-yielding /users/1",
                "/users/{id}",
                "/users/{id}"
            ),
            "yielding driver"
        );
        assert_eq!(
            words(
                "async-cpu-rayon",
                Target::Async,
                "async /cpu/rayon",
                "/cpu/rayon",
                "/cpu"
            ),
            "rayon"
        );
        assert_eq!(
            words(
                "async-cache-deadpool-redis",
                Target::Async,
                "async /users/1/cache (deadpool-redis)",
                "/users/{id}/cache",
                "/users/{id}/cache"
            ),
            "deadpool-redis"
        );
        assert_eq!(
            words(
                "async-users",
                Target::Async,
                "async /users/1",
                "/users/{id}",
                "/users/{id}"
            ),
            ""
        );
        // A column whose label says nothing of its variant: its id does.
        assert_eq!(
            words(
                "async-users-pipelined",
                Target::Async,
                "async /users/1",
                "/users/{id}",
                "/users/{id}"
            ),
            "pipelined driver"
        );
        assert_eq!(
            plain_route(["/cpu/rayon", "/cpu", "/cpu/spawn-blocking"]),
            "/cpu"
        );
    }
}
