//! Several servers at once: a test that checks the same promise on every
//! server mode starts them side by side instead of one after another.
//!
//! Most of a test server's life is waiting: for its database to be made,
//! for migrations and the cache seed, for a timeout the test provokes. Side
//! by side, a test of four modes takes about as long as its slowest one.
//! Not for servers slowed behind proxies on virtual threads: each of those
//! has may's carriers to itself (`carriers.rs`), so a second one would wait
//! for the first to stop.

use crate::app::{spawn_app, Server, TestApp};

/// Runs `check` for each of `servers`, all at once, each on a thread named
/// after its server (a failure's message says which). Fails when any
/// check failed, after every check has ended.
pub fn each_server_at_once(
    servers: impl IntoIterator<Item = Server>,
    check: impl Fn(Server) + Sync,
) {
    let check = &check;
    let failed: Vec<&str> = std::thread::scope(|scope| {
        let running: Vec<_> = servers
            .into_iter()
            .map(|server| {
                let thread = std::thread::Builder::new()
                    .name(server.name().to_owned())
                    .spawn_scoped(scope, move || check(server))
                    .unwrap_or_else(|e| panic!("a thread for {}: {e}", server.name()));
                (server, thread)
            })
            .collect();
        running
            .into_iter()
            .filter_map(|(server, thread)| thread.join().is_err().then_some(server.name()))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "failed on {failed:?} (each one's message is above)"
    );
}

/// Starts every one of `servers` with test defaults, all at once; the apps
/// in the same order.
pub fn spawn_apps(servers: impl IntoIterator<Item = Server>) -> Vec<TestApp> {
    std::thread::scope(|scope| {
        let starting: Vec<_> = servers
            .into_iter()
            .map(|server| scope.spawn(move || spawn_app(server)))
            .collect();
        starting
            .into_iter()
            .map(|start| {
                start
                    .join()
                    .unwrap_or_else(|_| panic!("a server did not start (its message is above)"))
            })
            .collect()
    })
}
