//! Every route and async-only variant of the async server answers as the
//! contract says, in-process on port 0 against a fresh database and key prefix.

mod common;

use common::{exchange, post_json, TestServer};

const USER_1: &str = r#"{"id":1,"name":"seungwoo","email":"seungwoo@gmail.com","created_at":"2024-01-01T00:00:00.000000Z","updated_at":"2024-01-01T00:00:00.000000Z"}"#;
const CACHED_USER_1: &str = r#"{"name":"seungwoo","email":"seungwoo@gmail.com"}"#;

#[test]
fn every_get_route_and_variant_answers_the_contract() {
    let server = TestServer::start(&[]);
    let cases: &[(&str, u16, &str)] = &[
        ("/health", 200, r#"{"health":"ok"}"#),
        ("/cpu?n=5", 200, r#"{"n":5,"result":6.146264369941973}"#),
        (
            "/cpu/spawn-blocking?n=5",
            200,
            r#"{"n":5,"result":6.146264369941973}"#,
        ),
        (
            "/cpu/rayon?n=5",
            200,
            r#"{"n":5,"result":6.146264369941973}"#,
        ),
        (
            "/cpu?n=0",
            400,
            r#"{"error":"n must be an integer from 1 to 100000000, got \"0\""}"#,
        ),
        (
            "/cpu/rayon?n=x",
            400,
            r#"{"error":"n must be an integer from 1 to 100000000, got \"x\""}"#,
        ),
        ("/users/1", 200, USER_1),
        ("/users/1/blocking", 200, USER_1),
        ("/users/1/spawn-blocking", 200, USER_1),
        ("/users/1/cache", 200, CACHED_USER_1),
        ("/users/1/cache/blocking", 200, CACHED_USER_1),
        ("/users/10001", 404, r#"{"error":"user 10001 not found"}"#),
        (
            "/users/10001/blocking",
            404,
            r#"{"error":"user 10001 not found"}"#,
        ),
        (
            "/users/10001/spawn-blocking",
            404,
            r#"{"error":"user 10001 not found"}"#,
        ),
        (
            "/users/10001/cache",
            404,
            r#"{"error":"user 10001 not found"}"#,
        ),
        (
            "/users/10001/cache/blocking",
            404,
            r#"{"error":"user 10001 not found"}"#,
        ),
        (
            "/users/abc",
            400,
            r#"{"error":"id must be a positive integer, got \"abc\""}"#,
        ),
        (
            "/users/0/cache",
            400,
            r#"{"error":"id must be a positive integer, got \"0\""}"#,
        ),
        ("/users/%31", 200, USER_1),
        (
            "/users/%zz",
            400,
            r#"{"error":"id must be a positive integer, got \"%zz\""}"#,
        ),
        ("/posts/1", 200, r#"{"id":1,"content":"Post content is 1"}"#),
        (
            "/posts/1/blocking",
            200,
            r#"{"id":1,"content":"Post content is 1"}"#,
        ),
        (
            "/posts/10",
            500,
            r#"{"error":"post 10 failed (ids from 10 fail on purpose, as in seed 001)"}"#,
        ),
        (
            "/posts/-1",
            400,
            r#"{"error":"id must be a positive integer, got \"-1\""}"#,
        ),
        ("/nope", 404, r#"{"error":"no such route"}"#),
        ("/health/", 404, r#"{"error":"no such route"}"#),
    ];
    for (path, status, body) in cases {
        let answer = server.get(path);
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (*status, *body),
            "GET {path}"
        );
        assert_eq!(
            answer.header("content-type"),
            Some("application/json"),
            "GET {path}"
        );
    }
}

#[test]
fn a_cache_miss_reads_postgres_and_heals_the_cache() {
    let server = TestServer::start(&[]);
    let mut redis = redis::Client::open(server.deps.redis_url.as_str())
        .and_then(|c| c.get_connection())
        .expect("redis connection");
    for (path, id) in [("/users/5/cache", 5), ("/users/6/cache/blocking", 6)] {
        let name_key = contract::cache::name_key(&server.deps.prefix, id);
        let _: () = redis::cmd("DEL").arg(&name_key).query(&mut redis).unwrap();
        let answer = server.get(path);
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(
            answer.body,
            format!(r#"{{"name":"user{id}","email":"user{id}@example.com"}}"#)
        );
        let healed: Option<String> = redis::cmd("GET").arg(&name_key).query(&mut redis).unwrap();
        assert_eq!(
            healed.as_deref(),
            Some(format!("user{id}").as_str()),
            "{path}"
        );
    }
}

#[test]
fn echo_answers_seed_003_and_rejects_bad_bodies() {
    let server = TestServer::start(&[]);
    let good = br#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#;
    let answer = post_json(
        server.addr,
        "/echo",
        "application/json; charset=utf-8",
        good,
    );
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.body,
        r#"{"firstName":"Adax","lastName":"Lovelacex","age":46}"#
    );

    let answer = post_json(server.addr, "/echo", "text/plain", good);
    assert_eq!(answer.status, 415);
    assert_eq!(
        answer.body,
        r#"{"error":"expected Content-Type: application/json"}"#
    );

    let answer = post_json(server.addr, "/echo", "application/json", b"{not json");
    assert_eq!(answer.status, 400);
    assert!(
        answer.body.starts_with(r#"{"error":"invalid JSON body: "#),
        "{}",
        answer.body
    );

    // Over the limit, declared in Content-Length: refused before the body is read.
    let too_big = vec![b' '; contract::params::MAX_BODY_BYTES + 1];
    let answer = post_json(server.addr, "/echo", "application/json", &too_big);
    assert_eq!(answer.status, 413);
    assert_eq!(
        answer.body,
        r#"{"error":"request body is larger than 65536 bytes"}"#
    );

    // The declared length is checked first, on any route, as on the blocking server.
    let answer = post_json(server.addr, "/echo", "text/plain", &too_big);
    assert_eq!(answer.status, 413);
    let raw = format!(
        "GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        contract::params::MAX_BODY_BYTES + 1
    );
    assert_eq!(exchange(server.addr, raw.as_bytes()).unwrap().status, 413);

    // Over the limit in chunks, with no Content-Length: refused while reading.
    let mut raw = b"POST /echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        raw.extend_from_slice(format!("{:x}\r\n", 32 * 1024).as_bytes());
        raw.extend(std::iter::repeat_n(b' ', 32 * 1024));
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    let answer = exchange(server.addr, &raw).unwrap();
    assert_eq!(answer.status, 413);
}

#[test]
fn wrong_methods_heads_and_oversized_heads_answer_the_contract() {
    let server = TestServer::start(&[]);
    let answer = exchange(
        server.addr,
        b"DELETE /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(answer.status, 405);
    assert_eq!(answer.body, r#"{"error":"method not allowed"}"#);
    assert_eq!(answer.header("allow"), Some("GET,HEAD"));

    let answer = exchange(
        server.addr,
        b"GET /echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(answer.status, 405);
    assert_eq!(answer.header("allow"), Some("POST"));

    let answer = exchange(
        server.addr,
        b"HEAD /users/1 HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, "");

    // A head of 20 KB: over the contract's 16 KiB, under hyper's own limit.
    let big = "a".repeat(20_000);
    let raw =
        format!("GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\nX-Big: {big}\r\n\r\n");
    let answer = exchange(server.addr, raw.as_bytes()).unwrap();
    assert_eq!(answer.status, 431);
    assert_eq!(
        answer.body,
        r#"{"error":"request headers are larger than 16384 bytes"}"#
    );

    // Just under the limit still passes.
    let fits = "a".repeat(16_000);
    let raw =
        format!("GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\nX-Big: {fits}\r\n\r\n");
    assert_eq!(exchange(server.addr, raw.as_bytes()).unwrap().status, 200);
}

#[test]
fn metrics_count_requests_by_route_pattern_and_show_pools() {
    let server = TestServer::start(&[]);
    server.get("/users/2");
    server.get("/users/3");
    server.get("/no/such/thing");
    let answer = server.get("/metrics");
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.header("content-type"),
        Some(contract::metrics::CONTENT_TYPE)
    );
    let text = answer.body;
    for line in [
        r#"http_requests_total{server="async",route="/users/{id}",status="200"} 2"#,
        r#"http_requests_total{server="async",route="unmatched",status="404"} 1"#,
        r#"http_requests_in_flight{server="async"} 1"#,
        r#"pool_max_connections{server="async",pool="postgres"} 2"#,
        r#"pool_max_connections{server="async",pool="redis"} 2"#,
        r#"pool_max_connections{server="async",pool="postgres_sync"} 2"#,
        r#"pool_max_connections{server="async",pool="redis_sync"} 2"#,
        r#"pool_waiters{server="async",pool="redis"} 0"#,
        r#"tokio_workers{server="async"} 2"#,
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    assert!(
        text.contains("process_threads{server=\"async\"} "),
        "{text}"
    );
}
