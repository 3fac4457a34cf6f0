//! The contract suite: every case runs against both servers, and both must give
//! the documented status and the very same body.
//!
//! Expected bodies are built from the `contract` crate's own types and errors
//! (the cases are `harness::contract_cases`, which bench's tests also run
//! against the calibration servers), so the suite checks the servers against
//! the contract, not against each other alone.

use std::net::SocketAddr;

use contract::model::{to_json, CachedUser};
use contract::ApiError;
use harness::contract_cases::{self, cases, Case};
use harness::{spawn_app, spawn_app_with, AppOptions, Response, Server, TestApp};

fn run_case(app: &TestApp, case: &Case) -> Response {
    run_case_at(app.addr, app.server, case)
}

/// [`run_case`] against the server at `addr` (a `TestApp` stays on its
/// test's thread).
fn run_case_at(addr: SocketAddr, server: Server, case: &Case) -> Response {
    contract_cases::run_case_at(addr, server.name(), case)
}

fn check(server: Server, case: &Case, got: &Response) -> Result<(), String> {
    contract_cases::check(server.name(), case, got)
}

/// Every server, the async server with each of its Postgres drivers, and
/// the blocking server with each of its Redis clients.
#[test]
fn every_case_gets_the_contracts_answer_from_every_server() {
    let servers: Vec<Server> = Server::ALL
        .into_iter()
        .chain(Server::OTHER_ASYNC_DRIVERS)
        .chain(Server::OTHER_BLOCKING_REDIS_CLIENTS)
        .collect();
    let apps: Vec<TestApp> = harness::spawn_apps(servers);
    let cases = cases();
    // Every server through the cases at once, each in order on a thread of
    // its own (`/cpu`'s default n takes a while in a debug build).
    let answers_by_app: Vec<Vec<Response>> = std::thread::scope(|scope| {
        let running: Vec<_> = apps
            .iter()
            .map(|app| {
                let (addr, server, cases) = (app.addr, app.server, &cases);
                scope.spawn(move || {
                    cases
                        .iter()
                        .map(|case| run_case_at(addr, server, case))
                        .collect()
                })
            })
            .collect();
        running
            .into_iter()
            .map(|answers| answers.join().expect("a server's cases (see above)"))
            .collect()
    });
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let answers: Vec<&Response> = answers_by_app.iter().map(|answers| &answers[i]).collect();
        for (app, got) in apps.iter().zip(&answers) {
            if let Err(e) = check(app.server, case, got) {
                failures.push(e);
            }
        }
        // Byte for byte: the status, the headers that say what the body
        // is, and the body.
        let first = (&apps[0], answers[0]);
        for (app, got) in apps.iter().zip(&answers).skip(1) {
            let same = |r: &Response| {
                (
                    r.status,
                    r.header("content-type").map(str::to_owned),
                    r.header("content-length").map(str::to_owned),
                    r.header("allow").map(str::to_owned),
                    r.body.clone(),
                )
            };
            if same(first.1) != same(got) {
                failures.push(format!(
                    "case {:?}: servers differ: {} {} {} / {} {} {}",
                    case.name,
                    first.0.server.name(),
                    first.1.status,
                    first.1.text(),
                    app.server.name(),
                    got.status,
                    got.text()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The cases a well-formed request cannot pass on tiny_http: it reads the
/// head itself and decides first (tests/tests/suites/tiny_http_differences.rs asserts what
/// it does instead).
const NOT_FOR_TINY_HTTP: &[&str] = &[
    // tiny_http takes `+5` as a length of 5 and waits for five body bytes
    // before our code sees the request.
    "content-length with a sign",
];

#[test]
fn every_case_gets_the_contracts_answer_from_the_card_server_on_tiny_http() {
    let tiny = spawn_app(Server::BlockingTinyHttp);
    let nio = spawn_app(Server::Blocking);
    let mut failures = Vec::new();
    for case in cases()
        .into_iter()
        .filter(|c| !NOT_FOR_TINY_HTTP.contains(&c.name))
    {
        let got = run_case(&tiny, &case);
        if let Err(e) = check(tiny.server, &case, &got) {
            failures.push(e);
        }
        let ours = run_case(&nio, &case);
        if (got.status, &got.body) != (ours.status, &ours.body) {
            failures.push(format!(
                "case {:?}: connectors differ: tiny-http {} {} / nio {} {}",
                case.name,
                got.status,
                got.text(),
                ours.status,
                ours.text()
            ));
        }
    }
    let r = tiny.request("HEAD", "/health", &[], b"");
    if (r.status, r.body.len()) != (200, 0) {
        failures.push(format!("HEAD /health: {} {:?}", r.status, r.text()));
    }
    let r = tiny.request("POST", "/health", &[], b"");
    if r.header("allow") != Some("GET,HEAD") {
        failures.push(format!("405 Allow: {:?}", r.headers));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn wrong_method_names_the_allowed_ones() {
    harness::each_server_at_once(Server::ALL, |server| {
        let app = spawn_app(server);
        let r = app.request("POST", "/health", &[], b"");
        assert_eq!(r.status, 405, "{}", server.name());
        let allow = r.header("allow").unwrap_or_default().to_ascii_uppercase();
        assert!(allow.contains("GET"), "{} Allow: {allow:?}", server.name());
    });
}

#[test]
fn the_async_only_variants_answer_like_their_plain_routes() {
    let app = spawn_app(Server::Async);
    for (variant, plain) in [
        ("/cpu/spawn-blocking?n=5000", "/cpu?n=5000"),
        ("/cpu/rayon?n=5000", "/cpu?n=5000"),
        ("/users/1/blocking", "/users/1"),
        ("/users/1/spawn-blocking", "/users/1"),
        ("/users/77/blocking", "/users/77"),
        ("/users/10001/blocking", "/users/10001"),
        ("/users/10001/spawn-blocking", "/users/10001"),
        ("/users/abc/spawn-blocking", "/users/abc"),
        ("/users/1/cache/blocking", "/users/1/cache"),
        ("/users/10001/cache/blocking", "/users/10001/cache"),
        ("/posts/1/blocking", "/posts/1"),
        ("/posts/12/blocking", "/posts/12"),
    ] {
        let (a, b) = (app.get(variant), app.get(plain));
        assert_eq!(
            (a.status, a.text()),
            (b.status, b.text()),
            "{variant} vs {plain}"
        );
    }
    // The blocking server has no variants: they are unknown routes there.
    let blocking = spawn_app(Server::Blocking);
    for variant in [
        "/cpu/rayon",
        "/cpu/spawn-blocking",
        "/users/1/blocking",
        "/users/1/cache/blocking",
        "/posts/1/blocking",
    ] {
        let r = blocking.get(variant);
        assert_eq!(
            (r.status, r.body.clone()),
            (404, ApiError::no_route().body_json()),
            "{variant}"
        );
    }
}

#[test]
fn a_cache_miss_reads_the_database_and_heals_the_cache() {
    use redis::Commands;
    harness::each_server_at_once(Server::with_every_redis_client(), |server| {
        let app = spawn_app(server);
        let mut redis = app.redis();
        let name_key = contract::cache::name_key(app.redis_prefix(), 42);
        let email_key = contract::cache::email_key(app.redis_prefix(), 42);
        // Seeded at start-up.
        let seeded: Option<String> = redis.get(&name_key).expect("redis get");
        assert_eq!(
            seeded.as_deref(),
            Some("user42"),
            "{} seeds the cache",
            server.name()
        );

        let _: () = redis.del(&[&name_key, &email_key]).expect("redis del");
        let r = app.get("/users/42/cache");
        assert_eq!(r.status, 200, "{}: {}", server.name(), r.text());
        assert_eq!(
            r.body,
            to_json(&CachedUser {
                name: "user42".into(),
                email: "user42@example.com".into()
            })
        );
        let healed: (Option<String>, Option<String>) = (
            redis.get(&name_key).expect("get"),
            redis.get(&email_key).expect("get"),
        );
        assert_eq!(
            healed,
            (Some("user42".into()), Some("user42@example.com".into())),
            "{} refills both keys",
            server.name()
        );

        // The answer comes from the cache when the cache has it.
        let _: () = redis.set(&name_key, "from-cache").expect("redis set");
        assert_eq!(
            app.get("/users/42/cache").json()["name"],
            "from-cache",
            "{}",
            server.name()
        );
    });
}

/// A value under one of a user's cache keys that no server can read (a
/// name that is not UTF-8 text; an email key holding a list, which Redis
/// answers with WRONGTYPE) gets the contract's answer for a dependency's
/// unreadable data, the same status and body from every server mode and
/// every Redis client: a 500, not a 503 (`ApiError::unreadable_answer` says
/// why). Each app has its own key prefix, so the planted keys are its own.
#[test]
fn an_unreadable_cached_value_gets_the_contracts_answer_from_every_mode() {
    use redis::Commands;
    let async_with = |client: &str| {
        let options = AppOptions::with_args(["--redis-client", client]);
        (
            format!("async --redis-client {client}"),
            spawn_app_with(Server::Async, options),
        )
    };
    let mut apps: Vec<(String, TestApp)> = [
        Server::Blocking,
        Server::BlockingRedisPool,
        Server::BlockingTinyHttp,
        Server::Virtual,
        Server::VirtualYielding,
    ]
    .into_iter()
    .map(|server| (server.name().to_owned(), spawn_app(server)))
    .collect();
    apps.extend(["shared", "deadpool-redis", "pool"].map(async_with));
    let expected = ApiError::unreadable_answer();
    let mut failures = Vec::new();
    for (mode, app) in &apps {
        let mut redis = app.redis();
        let prefix = app.redis_prefix();
        let _: () = redis
            .set(contract::cache::name_key(prefix, 7), &[0xff_u8, 0xfe][..])
            .expect("planting a name that is not UTF-8");
        let _: () = redis
            .del(contract::cache::email_key(prefix, 8))
            .expect("redis del");
        let _: () = redis
            .rpush(contract::cache::email_key(prefix, 8), "user8@example.com")
            .expect("planting a list under an email key");
        let mut paths = vec!["/users/7/cache", "/users/8/cache"];
        if mode.starts_with("async") {
            // The blocking variant reads through the sync client, the
            // blocking server's own.
            paths.extend(["/users/7/cache/blocking", "/users/8/cache/blocking"]);
        }
        for path in paths {
            let got = app.get(path);
            if (got.status, &got.body) != (expected.status(), &expected.body_json()) {
                failures.push(format!("{mode} {path}: {} {}", got.status, got.text()));
            }
        }
        // The connection that read it is fine: the next request is served.
        let healthy = app.get("/users/1/cache");
        if healthy.status != 200 {
            failures.push(format!(
                "{mode} after: {} {}",
                healthy.status,
                healthy.text()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "expected {} {} everywhere; {} failures:\n{}",
        expected.status(),
        String::from_utf8_lossy(&expected.body_json()),
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn metrics_report_threads_requests_and_pools() {
    // The card's server (`--connector tiny-http`) reports the same /metrics.
    let servers = [
        Server::Blocking,
        Server::BlockingRedisPool,
        Server::Async,
        Server::BlockingTinyHttp,
        Server::Virtual,
    ];
    harness::each_server_at_once(servers, |server| {
        let app = spawn_app(server);
        assert_eq!(app.get("/users/1").status, 200);
        assert_eq!(app.get("/nope").status, 404);
        let r = app.get("/metrics");
        assert_eq!(r.status, 200);
        assert!(
            r.header("content-type")
                .is_some_and(|c| c.starts_with("text/plain")),
            "{:?}",
            r.headers
        );
        let text = r.text();
        let value = |prefix: &str| -> f64 {
            text.lines()
                .find(|l| l.starts_with(prefix))
                .and_then(|l| l.rsplit(' ').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{}: no {prefix} in\n{text}", server.name()))
        };
        assert!(value("process_threads{") >= 2.0, "{}", server.name());
        assert!(
            value("process_cpu_seconds_total{") > 0.0,
            "{}",
            server.name()
        );
        assert!(
            value("process_resident_memory_bytes{") > 1e6,
            "{}",
            server.name()
        );
        let label = format!(
            "http_requests_total{{server=\"{}\",route=\"/users/{{id}}\",status=\"200\"}}",
            server.metrics_label()
        );
        assert_eq!(value(&label), 1.0, "{}", server.name());
        assert!(text.contains("status=\"404\""), "{}: {text}", server.name());
        assert!(
            text.contains("pool_max_connections{"),
            "{}: {text}",
            server.name()
        );
        for secret in ["postgres://", "redis://", "password"] {
            assert!(!text.contains(secret), "{} leaks {secret}", server.name());
        }
    });
}
