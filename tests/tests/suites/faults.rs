//! Fault tests: Postgres or Redis goes away (or hangs) behind a real TCP proxy
//! while the server runs. Its routes must answer 503 with the contract's error
//! within the acquire timeout, never hang, keep serving `/health` and `/cpu`,
//! and recover without a restart once the dependency is back.

use std::time::{Duration, Instant};

use contract::ApiError;
use harness::{spawn_app_with, AppOptions, Server, TestApp};
use net_tools::proxy::Mode;
use net_tools::FaultProxy;

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

/// A dependency as the routes that need it see it.
struct Dependency {
    /// Its name in the contract's 503 body.
    name: &'static str,
    /// A route that needs it.
    route: &'static str,
    /// The async server's variants of `route` (on blocking threads).
    async_variants: &'static [&'static str],
    /// Routes that must still be served while it is down.
    unaffected: &'static [&'static str],
    proxy: fn(&TestApp) -> &FaultProxy,
    /// Server modes beyond `Server::ALL` that differ in how they reach it.
    more_servers: &'static [Server],
}

const POSTGRES: Dependency = Dependency {
    name: "database",
    route: "/users/2",
    async_variants: &["/users/2/blocking", "/users/2/spawn-blocking"],
    unaffected: &[],
    proxy: |app| app.db_proxy.as_ref().expect("db proxy"),
    more_servers: &[],
};

const REDIS: Dependency = Dependency {
    name: "cache",
    route: "/users/2/cache",
    async_variants: &["/users/2/cache/blocking"],
    // The database still works.
    unaffected: &["/users/2"],
    proxy: |app| app.redis_proxy.as_ref().expect("redis proxy"),
    more_servers: &Server::OTHER_BLOCKING_REDIS_CLIENTS,
};

/// `dependency` refuses connections, then comes back, on every server.
fn a_dependency_down_on_every_server(dependency: &Dependency) {
    let servers = Server::ALL
        .into_iter()
        .chain(dependency.more_servers.iter().copied());
    harness::each_server_at_once(servers, |server| {
        // Arrange
        let app = app(server);
        assert_eq!(app.get(dependency.route).status, 200);
        // Act
        let proxy = (dependency.proxy)(&app);
        proxy.set_mode(Mode::Refuse);
        // Assert
        for _ in 0..2 {
            expect_unavailable(&app, dependency.route, dependency.name);
        }
        if server == Server::Async {
            for variant in dependency.async_variants {
                expect_unavailable(&app, variant, dependency.name);
            }
        }
        expect_still_serving(&app);
        for route in dependency.unaffected {
            assert_eq!(app.get(route).status, 200, "{} {route}", server.name());
        }
        proxy.set_mode(Mode::Pass);
        expect_recovery(&app, dependency.route);
    });
}

/// Both dependencies hang (accept, never answer), then come back.
fn stalled_dependencies_on_every_server() {
    let servers = Server::ALL
        .into_iter()
        .chain(Server::OTHER_BLOCKING_REDIS_CLIENTS);
    harness::each_server_at_once(servers, |server| {
        // Arrange
        let app = app(server);
        let routes = [("/users/3", "database"), ("/users/3/cache", "cache")];
        for (route, _) in routes {
            assert_eq!(app.get(route).status, 200);
        }
        let proxies = [&POSTGRES, &REDIS].map(|dependency| (dependency.proxy)(&app));
        // Act
        proxies.iter().for_each(|proxy| proxy.set_mode(Mode::Stall));
        // Assert
        for (route, dependency) in routes {
            expect_unavailable(&app, route, dependency);
        }
        expect_still_serving(&app);
        proxies.iter().for_each(|proxy| proxy.set_mode(Mode::Pass));
        for (route, _) in routes {
            expect_recovery(&app, route);
        }
    });
}

// Each in a process of its own: its virtual-thread servers, slowed behind
// proxies, have may's carriers to themselves (the harness's carrier gate);
// here they would wait for every other test's virtual-thread servers.
harness::test_cases! {
    a_dependency_down_on_every_server;
    in_own_process postgres_down_gives_503_then_recovers(&POSTGRES);
    in_own_process redis_down_gives_503_then_recovers(&REDIS);

    stalled_dependencies_on_every_server;
    in_own_process a_stalled_dependency_times_out_instead_of_hanging();
}
