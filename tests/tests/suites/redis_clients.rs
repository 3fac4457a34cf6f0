//! Every Redis client of both servers keeps the same promises: the async
//! server's three (`--redis-client shared | deadpool-redis | pool`) and the
//! blocking server's two (`--redis-client shared | pool`). The cache routes
//! answer the contract's bytes (from the cache, and from Postgres on a miss,
//! healing the cache), many requests at once each get their own answer
//! (on a shared connection too), and through a real TCP proxy a Redis that
//! is down (open connections cut, new ones refused) or hanging gives the
//! contract's 503 within the acquire timeout, then 200 again within 5 s of
//! its return, without a restart.

use std::time::{Duration, Instant};

use contract::model::{to_json, CachedUser};
use contract::ApiError;
use harness::{spawn_app_with, AppOptions, Server, TestApp};
use net_tools::proxy::Mode;
use redis::Commands as _;

/// Each server with each of its clients (`--redis-client`).
const CLIENTS: [(Server, &str); 5] = [
    (Server::Async, "shared"),
    (Server::Async, "deadpool-redis"),
    (Server::Async, "pool"),
    (Server::Blocking, "shared"),
    (Server::Blocking, "pool"),
];
/// The harness's `--redis-pool-size`.
const POOL_SIZE: f64 = 3.0;
/// The acquire timeout the harness gives the servers (1 s) plus a wide margin.
const ANSWER_WITHIN: Duration = Duration::from_millis(1000 + 3000);
const RECOVER_WITHIN: Duration = Duration::from_secs(5);

fn app((server, client): (Server, &str)) -> TestApp {
    spawn_app_with(
        server,
        AppOptions {
            through_proxies: true,
            ..AppOptions::with_args(["--redis-client", client])
        },
    )
}

/// How a case is named in messages and thread names: "blocking shared".
fn name(&(server, client): &(Server, &str)) -> String {
    format!("{} {client}", server.name())
}

fn cached(name: &str, email: &str) -> Vec<u8> {
    to_json(&CachedUser {
        name: name.into(),
        email: email.into(),
    })
}

#[test]
fn every_client_answers_the_cache_routes_with_the_contracts_bytes() {
    harness::each_at_once(CLIENTS, name, |(server, client)| {
        let app = app((server, client));
        // The client asked for is the one in use: a shared connection is a
        // pool of one on /metrics.
        let connections = if client == "shared" { 1.0 } else { POOL_SIZE };
        let client = name(&(server, client));
        let max = app.metric(&format!(
            "pool_max_connections{{server=\"{}\",pool=\"redis\"}}",
            server.metrics_label()
        ));
        assert_eq!(max, Some(connections), "{client}: most Redis connections");
        let r = app.get("/users/1/cache");
        assert_eq!(
            (r.status, r.body.clone()),
            (200, cached("seungwoo", "seungwoo@gmail.com")),
            "{client}: {}",
            r.text()
        );
        let r = app.get("/users/10001/cache");
        assert_eq!(
            (r.status, r.body.clone()),
            (404, ApiError::user_not_found(10001).body_json()),
            "{client}"
        );
        // A miss reads Postgres and heals the cache.
        let mut redis = app.redis();
        let (name_key, email_key) = (
            contract::cache::name_key(app.redis_prefix(), 42),
            contract::cache::email_key(app.redis_prefix(), 42),
        );
        let _: () = redis.del(&[&name_key, &email_key]).expect("redis del");
        let first = app.get("/users/42/cache");
        assert_eq!(first.status, 200, "{client}: {}", first.text());
        let healed: Option<String> = redis.get(&name_key).expect("redis get");
        assert_eq!(
            healed.as_deref(),
            first.json()["name"].as_str(),
            "{client} heals the cache"
        );
        // Many requests at once on one client: every one gets its own answer.
        let addr = app.addr;
        let answers: Vec<(u16, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..=40)
                .map(|id| {
                    s.spawn(move || {
                        let path = format!("/users/{id}/cache");
                        let r = harness::http::send(addr, "GET", &path, &[], b"").expect("request");
                        (
                            r.status,
                            r.json()["email"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("request thread"))
                .collect()
        });
        for (i, (status, email)) in answers.iter().enumerate() {
            assert_eq!(*status, 200, "{client}: /users/{}/cache", i + 1);
            assert!(
                !email.is_empty(),
                "{client}: /users/{}/cache has no email",
                i + 1
            );
        }
        let distinct: std::collections::HashSet<&String> = answers.iter().map(|a| &a.1).collect();
        assert_eq!(
            distinct.len(),
            40,
            "{client}: answers were mixed up between requests"
        );
    });
}

fn expect_cache_unavailable(app: &TestApp, client: &str, fault: Mode) {
    let started = Instant::now();
    let r = app.get("/users/2/cache");
    assert_eq!(
        (r.status, r.body.clone()),
        (503, ApiError::unavailable("cache").body_json()),
        "{client} with Redis {fault:?}: {} {}",
        r.status,
        r.text()
    );
    assert!(
        started.elapsed() < ANSWER_WITHIN,
        "{client} with Redis {fault:?}: the 503 took {:?}",
        started.elapsed()
    );
}

fn expect_recovery(app: &TestApp, client: &str, fault: Mode) {
    let back = Instant::now();
    loop {
        let r = app.get("/users/2/cache");
        if r.status == 200 {
            return;
        }
        assert!(
            back.elapsed() < RECOVER_WITHIN,
            "{client} after Redis {fault:?}: still {} {} after {:?}",
            r.status,
            r.text(),
            back.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn every_client_gives_503_while_redis_is_down_or_hangs_and_recovers_without_a_restart() {
    harness::each_at_once(CLIENTS, name, |(server, client)| {
        let app = app((server, client));
        let client = &name(&(server, client));
        let proxy = app.redis_proxy.as_ref().expect("redis proxy");
        for fault in [Mode::Refuse, Mode::Stall] {
            assert_eq!(
                app.get("/users/2/cache").status,
                200,
                "{client} before {fault:?}"
            );
            proxy.set_mode(fault);
            for _ in 0..2 {
                expect_cache_unavailable(&app, client, fault);
            }
            assert_eq!(
                app.get("/health").status,
                200,
                "{client}: /health during {fault:?}"
            );
            proxy.set_mode(Mode::Pass);
            expect_recovery(&app, client, fault);
        }
    });
}
