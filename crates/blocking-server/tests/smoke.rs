//! Smoke tests of the blocking server on real Postgres and Redis: each route's
//! happy path and one bad input, the size limits, graceful shutdown, and a
//! dependency that goes away. The cross-server contract suite is in
//! crates/server-tests; these stay close to this server's own machinery.

mod common;

use std::time::{Duration, Instant};

use chrono::TimeZone;
use contract::model::{to_json, CachedUser, CpuResult, EchoResponse, Health, Post, User};
use contract::ApiError;
use redis::Commands;

use common::proxy::{url_addr, url_with_addr, Proxy};
use common::{Conn, Reply};

fn json_post(path: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut raw = format!(
        "POST {path} HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(body);
    raw
}

fn assert_reply(reply: &Reply, status: u16, body: &[u8], what: &str) {
    assert_eq!(
        (reply.status, reply.text()),
        (status, String::from_utf8_lossy(body).into_owned()),
        "{what}"
    );
}

#[test]
fn every_route_answers_its_happy_path_and_a_bad_input() {
    let server = common::spawn(&[]);
    let t = chrono::Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    let user1 = User {
        id: 1,
        name: "seungwoo".into(),
        email: "seungwoo@gmail.com".into(),
        created_at: t,
        updated_at: t,
    };
    let bad_id = |raw: &str| {
        ApiError::bad_request(format!("id must be a positive integer, got {raw:?}")).body_json()
    };
    let cases: Vec<(&str, u16, Vec<u8>)> = vec![
        ("/health", 200, to_json(&Health::ok())),
        (
            "/cpu?n=1000",
            200,
            to_json(&CpuResult {
                n: 1000,
                result: contract::workload::sqrt_sum(1000),
            }),
        ),
        (
            "/cpu?n=0",
            400,
            contract::params::parse_cpu_n(Some("n=0"))
                .unwrap_err()
                .body_json(),
        ),
        ("/users/1", 200, to_json(&user1)),
        ("/users/abc", 400, bad_id("abc")),
        (
            "/users/99999",
            404,
            ApiError::user_not_found(99999).body_json(),
        ),
        (
            "/users/1/cache",
            200,
            to_json(&CachedUser {
                name: "seungwoo".into(),
                email: "seungwoo@gmail.com".into(),
            }),
        ),
        ("/users/0/cache", 400, bad_id("0")),
        (
            "/users/99999/cache",
            404,
            ApiError::user_not_found(99999).body_json(),
        ),
        (
            "/posts/1",
            200,
            to_json(&Post {
                id: 1,
                content: "Post content is 1".into(),
            }),
        ),
        (
            "/posts/10",
            500,
            contract::posts::post_after_delay(10)
                .unwrap_err()
                .body_json(),
        ),
        ("/posts/x", 400, bad_id("x")),
        ("/nope", 404, ApiError::no_route().body_json()),
    ];
    for (path, status, body) in &cases {
        let reply = server.get(path);
        assert_reply(&reply, *status, body, path);
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{path}"
        );
    }

    let echo_ok = server.send(&json_post(
        "/echo",
        "application/json",
        br#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#,
    ));
    assert_reply(
        &echo_ok,
        200,
        &to_json(&EchoResponse {
            first_name: "Adax".into(),
            last_name: "Lovelacex".into(),
            age: 46,
        }),
        "echo",
    );
    let echo_bad_json = server.send(&json_post("/echo", "application/json", b"{not json"));
    assert_eq!(
        echo_bad_json.status,
        400,
        "echo, malformed JSON: {}",
        echo_bad_json.text()
    );
    let echo_wrong_type = server.send(&json_post("/echo", "text/plain", b"{}"));
    assert_reply(
        &echo_wrong_type,
        415,
        &ApiError::unsupported_media_type().body_json(),
        "echo, text/plain",
    );

    let wrong_method = server.send(
        b"POST /health HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    assert_reply(
        &wrong_method,
        405,
        &ApiError::method_not_allowed().body_json(),
        "POST /health",
    );
    assert_eq!(wrong_method.header("allow"), Some("GET,HEAD"));

    let head = server.send(b"HEAD /health HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-length"), Some("15"));

    let metrics = server.get("/metrics");
    assert_eq!(metrics.status, 200);
    assert_eq!(
        metrics.header("content-type"),
        Some(contract::metrics::CONTENT_TYPE)
    );
    let text = metrics.text();
    assert!(
        text.contains("process_threads{server=\"blocking\"}"),
        "{text}"
    );
    assert!(
        text.contains("route=\"/users/{id}\",status=\"200\""),
        "{text}"
    );
    assert!(
        text.contains("pool_max_connections{server=\"blocking\",pool=\"postgres\"} 3"),
        "{text}"
    );
}

#[test]
fn a_flushed_cache_heals_itself_from_the_database() {
    let server = common::spawn(&[]);
    let mut redis = redis::Client::open(server.redis_url.as_str())
        .and_then(|c| c.get_connection())
        .expect("redis");
    let name_key = contract::cache::name_key(&server.prefix, 2);
    let _: () = redis.del(&name_key).expect("delete a cache key");
    let reply = server.get("/users/2/cache");
    assert_reply(
        &reply,
        200,
        &to_json(&CachedUser {
            name: "user2".into(),
            email: "user2@example.com".into(),
        }),
        "miss",
    );
    let name: Option<String> = redis.get(&name_key).expect("read the key back");
    assert_eq!(name.as_deref(), Some("user2"));
}

#[test]
fn keep_alive_serves_several_requests_and_pipelined_ones_in_order() {
    let server = common::spawn(&[]);
    let mut conn = Conn::open(server.addr).expect("connect");
    let deadline = Instant::now() + Duration::from_secs(10);
    for _ in 0..3 {
        let reply = conn
            .exchange(b"GET /health HTTP/1.1\r\nhost: t\r\n\r\n", deadline)
            .expect("answer");
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("connection"), None);
    }
    // Two requests in one write: both answered, in order.
    let reply = conn
        .exchange(
            b"GET /cpu?n=3 HTTP/1.1\r\nhost: t\r\n\r\nGET /users/abc HTTP/1.1\r\nhost: t\r\n\r\n",
            deadline,
        )
        .expect("first pipelined answer");
    assert_eq!(reply.status, 200);
    let second = conn
        .read_reply(false, deadline)
        .expect("second pipelined answer");
    assert_eq!(second.status, 400);
    // A chunked body is read too.
    let chunked = b"POST /echo HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n10\r\n{\"FirstName\":\"A\"\r\n18\r\n,\"LastName\":\"B\",\"Age\":1}\r\n0\r\n\r\n";
    let reply = conn.exchange(chunked, deadline).expect("chunked answer");
    assert_eq!(
        (reply.status, reply.text()),
        (
            200,
            r#"{"firstName":"Ax","lastName":"Bx","age":11}"#.to_owned()
        )
    );
}

#[test]
fn a_20_kib_header_gets_431_and_a_70_kib_body_gets_413() {
    let server = common::spawn(&[]);
    let big_header = format!(
        "GET /health HTTP/1.1\r\nhost: t\r\nx-filler: {}\r\n\r\n",
        "a".repeat(20 * 1024)
    );
    let reply = server.send(big_header.as_bytes());
    assert_reply(
        &reply,
        431,
        &ApiError::headers_too_large().body_json(),
        "20 KiB header",
    );

    let body = vec![b'x'; 70 * 1024];
    let reply = server.send(&json_post("/echo", "application/json", &body));
    assert_reply(
        &reply,
        413,
        &ApiError::payload_too_large().body_json(),
        "70 KiB body",
    );

    // The server is still fine afterwards.
    assert_eq!(server.get("/health").status, 200);
}

#[test]
fn shutdown_lets_requests_in_progress_finish_and_refuses_new_connections() {
    let mut server = common::spawn(&[]);
    let addr = server.addr;
    let requests: Vec<_> = (0..20)
        .map(|_| std::thread::spawn(move || common::get(addr, "/posts/1").status))
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    server.signal_shutdown();
    let statuses: Vec<u16> = requests
        .into_iter()
        .map(|t| t.join().unwrap_or(0))
        .collect();
    assert_eq!(statuses, vec![200; 20]);
    server
        .wait_stopped(Duration::from_secs(10))
        .expect("run returns after the drain");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "a connection after shutdown must be refused"
    );
}

/// The servers run with a 1 s acquire timeout in these tests; a 503 must come
/// within that plus a margin a busy 2-core machine cannot miss.
const UNAVAILABLE_WITHIN: Duration = Duration::from_millis(1000 + 2000);

fn expect_unavailable(server: &common::TestServer, path: &str, dependency: &str) {
    let started = Instant::now();
    let reply = server.get(path);
    let took = started.elapsed();
    assert_reply(
        &reply,
        503,
        &ApiError::unavailable(dependency).body_json(),
        path,
    );
    assert!(took < UNAVAILABLE_WITHIN, "{path}: 503 took {took:?}");
}

#[test]
fn postgres_going_away_gives_503_in_time_and_health_stays_up() {
    let fixtures = common::fixtures();
    let proxy = Proxy::start(url_addr(fixtures.database.url()));
    let database_url = url_with_addr(fixtures.database.url(), proxy.addr);
    let server = common::spawn_with(
        fixtures,
        common::Options {
            database_url: Some(database_url),
            ..common::Options::default()
        },
    );
    assert_eq!(server.get("/users/1").status, 200);
    proxy.cut();
    // First on the pooled connection that broke, then with no connection to get.
    expect_unavailable(&server, "/users/1", "database");
    expect_unavailable(&server, "/users/1", "database");
    assert_eq!(server.get("/health").status, 200);
    proxy.restore();
    let back = Instant::now();
    while server.get("/users/1").status != 200 {
        assert!(
            back.elapsed() < Duration::from_secs(10),
            "no recovery after the database came back"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn redis_going_away_gives_503_in_time_and_health_stays_up() {
    let fixtures = common::fixtures();
    let proxy = Proxy::start(url_addr(&fixtures.redis_url));
    let redis_url = url_with_addr(&fixtures.redis_url, proxy.addr);
    let server = common::spawn_with(
        fixtures,
        common::Options {
            redis_url: Some(redis_url),
            ..common::Options::default()
        },
    );
    assert_eq!(server.get("/users/1/cache").status, 200);
    proxy.cut();
    expect_unavailable(&server, "/users/1/cache", "cache");
    expect_unavailable(&server, "/users/1/cache", "cache");
    assert_eq!(server.get("/health").status, 200);
    assert_eq!(
        server.get("/users/1").status,
        200,
        "the database still works"
    );
}

#[test]
fn a_stalled_dependency_gives_503_by_timeout_not_a_hang() {
    let fixtures = common::fixtures();
    let db_proxy = Proxy::start(url_addr(fixtures.database.url()));
    let redis_proxy = Proxy::start(url_addr(&fixtures.redis_url));
    let database_url = url_with_addr(fixtures.database.url(), db_proxy.addr);
    let redis_url = url_with_addr(&fixtures.redis_url, redis_proxy.addr);
    let server = common::spawn_with(
        fixtures,
        common::Options {
            database_url: Some(database_url),
            redis_url: Some(redis_url),
            ..common::Options::default()
        },
    );
    assert_eq!(server.get("/users/3").status, 200);
    assert_eq!(server.get("/users/3/cache").status, 200);
    db_proxy.stall();
    redis_proxy.stall();
    // First on a pooled connection that stops answering, then while a new
    // connection cannot finish its handshake.
    expect_unavailable(&server, "/users/3", "database");
    expect_unavailable(&server, "/users/3", "database");
    expect_unavailable(&server, "/users/3/cache", "cache");
    assert_eq!(server.get("/health").status, 200);
    db_proxy.restore();
    redis_proxy.restore();
    for path in ["/users/3", "/users/3/cache"] {
        let back = Instant::now();
        while server.get(path).status != 200 {
            assert!(
                back.elapsed() < Duration::from_secs(10),
                "{path}: no recovery"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn a_client_that_sends_half_a_head_gets_408_after_the_header_timeout() {
    let server = common::spawn(&["--header-read-timeout-ms", "500"]);
    let mut conn = Conn::open(server.addr).expect("connect");
    let started = Instant::now();
    std::io::Write::write_all(&mut conn.stream, b"GET /health HTTP/1.1\r\nhost: t\r\n")
        .expect("send half a head");
    let reply = conn
        .read_reply(false, Instant::now() + Duration::from_secs(10))
        .expect("an answer");
    assert_reply(
        &reply,
        408,
        &ApiError::request_timeout().body_json(),
        "half a head",
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_secs(5),
        "408 after {took:?}"
    );
    assert_eq!(server.get("/health").status, 200);
}

#[test]
fn clients_sending_their_head_slowly_do_not_hold_handler_threads() {
    // Two handler threads and ten clients stuck in the middle of their head:
    // the heads wait in the poller, so a normal request is still served at once.
    let server = common::spawn(&["--handler-threads", "2"]);
    let mut stuck = Vec::new();
    for _ in 0..10 {
        let mut conn = Conn::open(server.addr).expect("connect");
        std::io::Write::write_all(
            &mut conn.stream,
            b"GET /health HTTP/1.1\r\nhost: t\r\nx-slow: ",
        )
        .expect("send part of a head");
        stuck.push(conn);
    }
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    assert_eq!(server.get("/health").status, 200);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "/health took {took:?} behind slow heads"
    );
}

#[test]
fn http_framing_edge_cases() {
    let server = common::spawn(&[]);
    let deadline = || Instant::now() + Duration::from_secs(10);

    // HTTP/1.0 closes unless asked to keep alive; asked, it says so.
    let reply = server.send(b"GET /health HTTP/1.0\r\n\r\n");
    assert_eq!(
        (reply.status, reply.header("connection")),
        (200, Some("close"))
    );
    let mut conn = Conn::open(server.addr).expect("connect");
    for _ in 0..2 {
        let reply = conn
            .exchange(
                b"GET /health HTTP/1.0\r\nconnection: keep-alive\r\n\r\n",
                deadline(),
            )
            .expect("HTTP/1.0 keep-alive answer");
        assert_eq!(
            (reply.status, reply.header("connection")),
            (200, Some("keep-alive"))
        );
    }

    // Both framings at once is refused (request smuggling starts there).
    let reply = server.send(b"POST /echo HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n");
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert_eq!(reply.header("connection"), Some("close"));

    // A chunked body is refused as soon as it grows past the limit.
    let mut raw = b"POST /echo HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        raw.extend_from_slice(format!("{:x}\r\n", 30 * 1024).as_bytes());
        raw.extend_from_slice(&vec![b' '; 30 * 1024]);
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    let reply = server.send(&raw);
    assert_reply(
        &reply,
        413,
        &ApiError::payload_too_large().body_json(),
        "chunked 90 KiB",
    );

    // `Connection: close` from an HTTP/1.1 client is honoured.
    let reply = server.get("/health");
    assert_eq!(reply.header("connection"), Some("close"));
}

#[test]
fn shutdown_returns_after_the_drain_timeout_even_with_a_request_stuck() {
    // A client that promises a body and never sends it holds a handler thread
    // in a blocking read (up to the 20 s header timeout here); shutdown must
    // not wait for it longer than the 1 s drain timeout.
    let mut server = common::spawn(&[
        "--drain-timeout-s",
        "1",
        "--header-read-timeout-ms",
        "20000",
    ]);
    let mut stuck = Conn::open(server.addr).expect("connect");
    std::io::Write::write_all(
        &mut stuck.stream,
        b"POST /echo HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n",
    )
    .expect("send a head without its body");
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    server.signal_shutdown();
    server
        .wait_stopped(Duration::from_secs(8))
        .expect("run returns after the drain timeout");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900),
        "returned after {took:?}, before the drain timeout"
    );
}
