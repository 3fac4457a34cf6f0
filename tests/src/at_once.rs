//! Several servers at once: a test that checks the same promise on every
//! server mode starts them side by side instead of one after another.
//!
//! Most of a test server's life is waiting: for its database to be made,
//! for migrations and the cache seed, for a timeout the test provokes. Side
//! by side, a test of four modes takes about as long as its slowest one.
//! Servers slowed behind proxies on virtual threads still take turns: each
//! has may's carriers to itself (`carriers.rs`).

use crate::app::{spawn_app, Server, TestApp};

/// Runs `check` for each of `servers`, all at once, each on a thread named
/// after its server (a failure's message says which). Fails when any
/// check failed, after every check has ended.
pub fn each_server_at_once(
    servers: impl IntoIterator<Item = Server>,
    check: impl Fn(Server) + Sync,
) {
    each_at_once(servers, |server| server.name().to_owned(), check);
}

/// [`each_server_at_once`] for any kind of case (a client, a setting),
/// each thread named by `name`.
pub fn each_at_once<T: Send>(
    cases: impl IntoIterator<Item = T>,
    name: impl Fn(&T) -> String,
    check: impl Fn(T) + Sync,
) {
    let check = &check;
    let failed: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = cases
            .into_iter()
            .map(|case| {
                let named = name(&case);
                let thread = std::thread::Builder::new()
                    .name(named.clone())
                    .spawn_scoped(scope, move || check(case))
                    .unwrap_or_else(|e| panic!("a thread for {named}: {e}"));
                (named, thread)
            })
            .collect();
        running
            .into_iter()
            .filter_map(|(named, thread)| thread.join().is_err().then_some(named))
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
