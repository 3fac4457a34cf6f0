//! The contract suite: every case runs against both servers, and both must give
//! the documented status and the very same body.
//!
//! Expected bodies are built from the `contract` crate's own types and errors,
//! so the suite checks the servers against the contract, not against each other
//! alone.

use std::net::SocketAddr;

use contract::model::{to_json, CachedUser, CpuResult, Health, Post};
use contract::params::{parse_cpu_n, parse_id, MAX_BODY_BYTES};
use contract::workload::sqrt_sum;
use contract::ApiError;
use harness::{spawn_app, spawn_app_with, AppOptions, Response, Server, TestApp};

/// What a case expects: a status and either an exact body or an error of the contract's shape.
enum Expect {
    Json(u16, Vec<u8>),
    Error(ApiError),
    /// Only the status and the `{"error":..}` shape (message left to the server).
    ErrorStatus(u16),
}

struct Case {
    name: &'static str,
    method: &'static str,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    expect: Expect,
}

fn get(name: &'static str, path: &str, expect: Expect) -> Case {
    Case {
        name,
        method: "GET",
        path: path.to_owned(),
        headers: vec![],
        body: vec![],
        expect,
    }
}

fn user_1_json() -> Vec<u8> {
    br#"{"id":1,"name":"seungwoo","email":"seungwoo@gmail.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#.to_vec()
}

fn cases() -> Vec<Case> {
    let json = |status, v: Vec<u8>| Expect::Json(status, v);
    let echo = |name, content_type: Option<&str>, body: &[u8], expect| Case {
        name,
        method: "POST",
        path: "/echo".into(),
        headers: content_type
            .map(|c| vec![("Content-Type", c.to_owned())])
            .unwrap_or_default(),
        body: body.to_vec(),
        expect,
    };
    vec![
        get("health", "/health", json(200, to_json(&Health::ok()))),
        get("cpu small n", "/cpu?n=1000", json(200, to_json(&CpuResult { n: 1000, result: sqrt_sum(1000) }))),
        get("cpu default n", "/cpu", json(200, to_json(&CpuResult { n: 10_000_000, result: sqrt_sum(10_000_000) }))),
        get("cpu n=0", "/cpu?n=0", Expect::Error(parse_cpu_n(Some("n=0")).unwrap_err())),
        get("cpu n too big", "/cpu?n=100000001", Expect::Error(parse_cpu_n(Some("n=100000001")).unwrap_err())),
        get("cpu n not a number", "/cpu?n=abc", Expect::Error(parse_cpu_n(Some("n=abc")).unwrap_err())),
        get("user 1", "/users/1", json(200, user_1_json())),
        get("user 10000", "/users/10000", json(200, br#"{"id":10000,"name":"user10000","email":"user10000@example.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#.to_vec())),
        get("absent user", "/users/10001", Expect::Error(ApiError::user_not_found(10001))),
        get("user id 0", "/users/0", Expect::Error(parse_id("0").unwrap_err())),
        get("user id negative", "/users/-1", Expect::Error(parse_id("-1").unwrap_err())),
        get("user id text", "/users/abc", Expect::Error(parse_id("abc").unwrap_err())),
        get("user id overflow", "/users/99999999999999999999", Expect::Error(parse_id("99999999999999999999").unwrap_err())),
        get("cached user 1", "/users/1/cache", json(200, to_json(&CachedUser { name: "seungwoo".into(), email: "seungwoo@gmail.com".into() }))),
        get("cached absent user", "/users/10001/cache", Expect::Error(ApiError::user_not_found(10001))),
        get("cached bad id", "/users/x/cache", Expect::Error(parse_id("x").unwrap_err())),
        get("post 1", "/posts/1", json(200, to_json(&Post { id: 1, content: "Post content is 1".into() }))),
        get("post 10 fails on purpose", "/posts/10", Expect::Error(contract::posts::post_after_delay(10).unwrap_err())),
        get("post bad id", "/posts/nope", Expect::Error(parse_id("nope").unwrap_err())),
        echo("echo", Some("application/json"), br#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#,
            json(200, br#"{"firstName":"Adax","lastName":"Lovelacex","age":46}"#.to_vec())),
        echo("echo with charset", Some("application/json; charset=utf-8"), br#"{"FirstName":"a","LastName":"b","Age":-10}"#,
            json(200, br#"{"firstName":"ax","lastName":"bx","age":0}"#.to_vec())),
        echo("echo malformed json", Some("application/json"), b"{not json", Expect::ErrorStatus(400)),
        echo("echo missing field", Some("application/json"), br#"{"FirstName":"a"}"#, Expect::ErrorStatus(400)),
        echo("echo wrong content type", Some("text/plain"), br#"{"FirstName":"a","LastName":"b","Age":1}"#, Expect::Error(ApiError::unsupported_media_type())),
        echo("echo no content type", None, br#"{"FirstName":"a","LastName":"b","Age":1}"#, Expect::Error(ApiError::unsupported_media_type())),
        echo("echo body over 64 KiB", Some("application/json"), &vec![b' '; MAX_BODY_BYTES + 1], Expect::Error(ApiError::payload_too_large())),
        get("unknown route", "/nope", Expect::Error(ApiError::no_route())),
        get("unknown sub-route", "/users/1/nope", Expect::Error(ApiError::no_route())),
        get("echo with GET", "/echo", Expect::Error(ApiError::method_not_allowed())),
        Case { name: "health with POST", method: "POST", path: "/health".into(), headers: vec![], body: vec![], expect: Expect::Error(ApiError::method_not_allowed()) },
        Case { name: "user with DELETE", method: "DELETE", path: "/users/1".into(), headers: vec![], body: vec![], expect: Expect::Error(ApiError::method_not_allowed()) },
        // The framing rule both servers share (contract::framing).
        Case { name: "content-length with a sign", method: "GET", path: "/health".into(), headers: vec![("Content-Length", "+5".into())], body: vec![], expect: Expect::Error(contract::framing::malformed("content-length")) },
        Case { name: "header over 16 KiB", method: "GET", path: "/health".into(), headers: vec![("X-Big", "a".repeat(20 * 1024))], body: vec![], expect: Expect::Error(ApiError::headers_too_large()) },
    ]
}

fn run_case(app: &TestApp, case: &Case) -> Response {
    run_case_at(app.addr, app.server, case)
}

/// [`run_case`] against the server at `addr` (a `TestApp` stays on its
/// test's thread).
fn run_case_at(addr: SocketAddr, server: Server, case: &Case) -> Response {
    let headers: Vec<(&str, &str)> = case.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    harness::http::send(addr, case.method, &case.path, &headers, &case.body)
        .unwrap_or_else(|e| panic!("{} {} {}: {e}", server.name(), case.method, case.path))
}

fn check(server: Server, case: &Case, got: &Response) -> Result<(), String> {
    let fail = |what: String| {
        Err(format!(
            "{} server, case {:?}: {what}; got {} {}",
            server.name(),
            case.name,
            got.status,
            got.text()
        ))
    };
    let (status, body) = match &case.expect {
        Expect::Json(s, b) => (*s, Some(b.clone())),
        Expect::Error(e) => (e.status(), Some(e.body_json())),
        Expect::ErrorStatus(s) => (*s, None),
    };
    if got.status != status {
        return fail(format!("expected status {status}"));
    }
    match body {
        Some(b) if got.body != b => {
            return fail(format!("expected body {}", String::from_utf8_lossy(&b)))
        }
        None => {
            let v = got.json();
            if v.as_object()
                .map(|o| o.len() == 1 && o.get("error").is_some_and(|m| m.is_string()))
                != Some(true)
            {
                return fail("expected the {\"error\":..} shape".into());
            }
        }
        _ => {}
    }
    if !got.body.is_empty()
        && !got
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/json"))
    {
        return fail(format!(
            "expected Content-Type application/json, got {:?}",
            got.header("content-type")
        ));
    }
    Ok(())
}

/// Every server, and the async server with each of its Postgres drivers.
#[test]
fn every_case_gets_the_contracts_answer_from_every_server() {
    let servers: Vec<Server> = Server::ALL
        .into_iter()
        .chain(Server::OTHER_ASYNC_DRIVERS)
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
    harness::each_server_at_once(Server::ALL, |server| {
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
        let options = AppOptions {
            extra_args: vec!["--redis-client".into(), client.into()],
            ..AppOptions::default()
        };
        (
            format!("async --redis-client {client}"),
            spawn_app_with(Server::Async, options),
        )
    };
    let mut apps: Vec<(String, TestApp)> = [
        Server::Blocking,
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
