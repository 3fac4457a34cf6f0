//! Fault tests: Postgres or Redis goes away (or hangs) behind a real TCP proxy
//! while the server runs. Its routes must answer 503 with the contract's error
//! within the acquire timeout, never hang, keep serving `/health` and `/cpu`,
//! and recover without a restart once the dependency is back.

use std::time::{Duration, Instant};

use contract::ApiError;
use harness::{spawn_app_with, AppOptions, Server, TestApp};
use net_tools::proxy::Mode;

/// The servers run with `--acquire-timeout-ms 1000` in tests; a 503 must come
/// within that plus a wide margin for a busy 2-core machine.
const ANSWER_WITHIN: Duration = Duration::from_millis(1000 + 3000);
/// How soon routes must work again after the dependency returns (the promise: 5 s).
const RECOVER_WITHIN: Duration = Duration::from_secs(5);

fn app(server: Server) -> TestApp {
    spawn_app_with(
        server,
        AppOptions {
            through_proxies: true,
            ..AppOptions::default()
        },
    )
}

fn expect_unavailable(app: &TestApp, path: &str, dependency: &str) {
    let started = Instant::now();
    let r = app.get(path);
    let took = started.elapsed();
    assert_eq!(
        (r.status, r.body.clone()),
        (503, ApiError::unavailable(dependency).body_json()),
        "{} {path}: {} {}",
        app.server.name(),
        r.status,
        r.text()
    );
    assert!(
        took < ANSWER_WITHIN,
        "{} {path}: 503 took {took:?}",
        app.server.name()
    );
}

fn expect_still_serving(app: &TestApp) {
    assert_eq!(
        app.get("/health").status,
        200,
        "{} /health",
        app.server.name()
    );
    assert_eq!(
        app.get("/cpu?n=1000").status,
        200,
        "{} /cpu",
        app.server.name()
    );
}

fn expect_recovery(app: &TestApp, path: &str) {
    let back = Instant::now();
    loop {
        let r = app.get(path);
        if r.status == 200 {
            return;
        }
        assert!(
            back.elapsed() < RECOVER_WITHIN,
            "{} {path} still {} {} after {:?}",
            app.server.name(),
            r.status,
            r.text(),
            back.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn postgres_down_gives_503_then_recovers() {
    // Its own process: its virtual-thread servers, slowed behind proxies,
    // have may's carriers to themselves (the harness's carrier gate); here
    // they would wait for every other test's virtual-thread servers.
    harness::in_own_process!(postgres_down_gives_503_then_recovers, {
        postgres_down_on_every_server();
    });
}

/// The test above, in its own process.
fn postgres_down_on_every_server() {
    harness::each_server_at_once(Server::ALL, |server| {
        let app = app(server);
        assert_eq!(app.get("/users/2").status, 200);
        let proxy = app.db_proxy.as_ref().expect("db proxy");
        proxy.set_mode(Mode::Refuse);
        for _ in 0..2 {
            expect_unavailable(&app, "/users/2", "database");
        }
        if server == Server::Async {
            expect_unavailable(&app, "/users/2/blocking", "database");
            expect_unavailable(&app, "/users/2/spawn-blocking", "database");
        }
        expect_still_serving(&app);
        proxy.set_mode(Mode::Pass);
        expect_recovery(&app, "/users/2");
    });
}

#[test]
fn redis_down_gives_503_then_recovers() {
    // Its own process: its virtual-thread servers, slowed behind proxies,
    // have may's carriers to themselves (the harness's carrier gate); here
    // they would wait for every other test's virtual-thread servers.
    harness::in_own_process!(redis_down_gives_503_then_recovers, {
        redis_down_on_every_server();
    });
}

/// The test above, in its own process.
fn redis_down_on_every_server() {
    let servers = Server::ALL
        .into_iter()
        .chain(Server::OTHER_BLOCKING_REDIS_CLIENTS);
    harness::each_server_at_once(servers, |server| {
        let app = app(server);
        assert_eq!(app.get("/users/2/cache").status, 200);
        let proxy = app.redis_proxy.as_ref().expect("redis proxy");
        proxy.set_mode(Mode::Refuse);
        for _ in 0..2 {
            expect_unavailable(&app, "/users/2/cache", "cache");
        }
        if server == Server::Async {
            expect_unavailable(&app, "/users/2/cache/blocking", "cache");
        }
        expect_still_serving(&app);
        assert_eq!(
            app.get("/users/2").status,
            200,
            "{}: the database still works",
            server.name()
        );
        proxy.set_mode(Mode::Pass);
        expect_recovery(&app, "/users/2/cache");
    });
}

#[test]
fn a_stalled_dependency_times_out_instead_of_hanging() {
    // Its own process: its virtual-thread servers, slowed behind proxies,
    // have may's carriers to themselves (the harness's carrier gate); here
    // they would wait for every other test's virtual-thread servers.
    harness::in_own_process!(a_stalled_dependency_times_out_instead_of_hanging, {
        stalled_dependencies_on_every_server();
    });
}

/// The test above, in its own process.
fn stalled_dependencies_on_every_server() {
    let servers = Server::ALL
        .into_iter()
        .chain(Server::OTHER_BLOCKING_REDIS_CLIENTS);
    harness::each_server_at_once(servers, |server| {
        let app = app(server);
        assert_eq!(app.get("/users/3").status, 200);
        assert_eq!(app.get("/users/3/cache").status, 200);
        app.db_proxy
            .as_ref()
            .expect("db proxy")
            .set_mode(Mode::Stall);
        app.redis_proxy
            .as_ref()
            .expect("redis proxy")
            .set_mode(Mode::Stall);
        expect_unavailable(&app, "/users/3", "database");
        expect_unavailable(&app, "/users/3/cache", "cache");
        expect_still_serving(&app);
        app.db_proxy
            .as_ref()
            .expect("db proxy")
            .set_mode(Mode::Pass);
        app.redis_proxy
            .as_ref()
            .expect("redis proxy")
            .set_mode(Mode::Pass);
        expect_recovery(&app, "/users/3");
        expect_recovery(&app, "/users/3/cache");
    });
}
