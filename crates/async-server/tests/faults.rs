//! Dependency faults: with Postgres or Redis cut off (a TCP proxy between the
//! server and the real service), their routes answer 503 with the contract's
//! body within the acquire timeout plus a margin, and /health stays 200.
//! When the dependency returns, the routes heal without a restart.

mod common;

use std::time::{Duration, Instant};

use common::{host_port, timed_get, Deps, Proxy, TestServer};

const ACQUIRE_MS: u64 = 500;

/// Generous: the acquire timeout, the query bound on top, and a slow machine.
const WITHIN: Duration = Duration::from_millis(ACQUIRE_MS * 2 + 1500);

fn server_behind_proxies() -> (TestServer, Proxy, Proxy) {
    let mut deps = Deps::fresh();
    let pg = Proxy::start(host_port(&deps.database_url));
    let redis = Proxy::start(host_port(&deps.redis_url));
    deps.database_url = pg.url_for(&deps.database_url);
    deps.redis_url = redis.url_for(&deps.redis_url);
    let server = TestServer::start_on(deps, &["--acquire-timeout-ms", &ACQUIRE_MS.to_string()]);
    (server, pg, redis)
}

fn assert_unavailable(server: &TestServer, path: &str, dependency: &str) {
    let (answer, took) = timed_get(server.addr, path);
    assert_eq!(answer.status, 503, "{path}: {answer:?}");
    assert_eq!(
        answer.body,
        format!(r#"{{"error":"{dependency} unavailable, try again later"}}"#),
        "{path}"
    );
    assert!(took < WITHIN, "{path} took {took:?}");
}

fn wait_for_200(server: &TestServer, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = server.get(path);
        if answer.status == 200 {
            return;
        }
        assert!(Instant::now() < deadline, "{path} did not heal: {answer:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn postgres_cut_off_gives_503_and_heals() {
    let (server, pg, _redis) = server_behind_proxies();
    assert_eq!(server.get("/users/1").status, 200);
    assert_eq!(server.get("/users/1/blocking").status, 200);

    pg.cut();
    for path in [
        "/users/1",
        "/users/1/blocking",
        "/users/1/spawn-blocking",
        "/users/2",
    ] {
        assert_unavailable(&server, path, "database");
    }
    assert_eq!(server.get("/health").status, 200);
    // Cached users do not need Postgres.
    assert_eq!(server.get("/users/1/cache").status, 200);

    pg.restore();
    for path in ["/users/1", "/users/1/blocking", "/users/1/spawn-blocking"] {
        wait_for_200(&server, path);
    }
}

#[test]
fn redis_cut_off_gives_503_and_heals() {
    let (server, _pg, redis) = server_behind_proxies();
    assert_eq!(server.get("/users/1/cache").status, 200);
    assert_eq!(server.get("/users/1/cache/blocking").status, 200);

    redis.cut();
    for path in [
        "/users/1/cache",
        "/users/1/cache/blocking",
        "/users/3/cache",
    ] {
        assert_unavailable(&server, path, "cache");
    }
    assert_eq!(server.get("/health").status, 200);
    assert_eq!(server.get("/users/1").status, 200);

    redis.restore();
    for path in ["/users/1/cache", "/users/1/cache/blocking"] {
        wait_for_200(&server, path);
    }
}
