//! The connection layer of both servers, on one keep-alive connection at a
//! time: several requests on one connection, pipelined requests answered in
//! order, chunked request bodies, HTTP/1.0's keep-alive rules, the framing
//! both servers refuse (request smuggling starts there), an idle
//! keep-alive connection closed at shutdown instead of holding the drain
//! open, and a request whose body is still arriving answered by the drain.
//!
//! Slow clients and the header timeout are in slow_clients.rs; SIGTERM with
//! requests in flight in process_reliability.rs.

use std::io::Write as _;
use std::time::{Duration, Instant};

use contract::ApiError;
use harness::{http, spawn_app, Conn, Server, TestApp};

const WITHIN: Duration = Duration::from_secs(10);

fn conn(app: &TestApp) -> Conn {
    Conn::open(app.addr).unwrap_or_else(|e| panic!("{}: connect: {e}", app.server.name()))
}

fn send_raw(app: &TestApp, raw: &[u8]) -> harness::Response {
    http::send_raw(app.addr, raw)
        .unwrap_or_else(|e| panic!("{}: no answer: {e}", app.server.name()))
}

#[test]
fn keep_alive_serves_several_requests_and_pipelined_ones_in_order() {
    harness::each_server_at_once(Server::ALL, |server| {
        let (app, name) = (spawn_app(server), server.name());
        let mut conn = conn(&app);
        for _ in 0..3 {
            let r = conn
                .exchange(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n", WITHIN)
                .unwrap_or_else(|e| panic!("{name}: keep-alive answer: {e}"));
            assert_eq!(
                (r.status, r.text().as_str()),
                (200, r#"{"health":"ok"}"#),
                "{name}"
            );
            assert_ne!(r.header("connection"), Some("close"), "{name}");
        }
        // Two requests in one write: both answered, in order.
        let first = conn
            .exchange(
                b"GET /cpu?n=3 HTTP/1.1\r\nHost: t\r\n\r\nGET /users/abc HTTP/1.1\r\nHost: t\r\n\r\n",
                WITHIN,
            )
            .unwrap_or_else(|e| panic!("{name}: first pipelined answer: {e}"));
        let second = conn
            .read_response(false, WITHIN)
            .unwrap_or_else(|e| panic!("{name}: second pipelined answer: {e}"));
        assert_eq!((first.status, second.status), (200, 400), "{name}");
        // A chunked request body is read too.
        let chunked = b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"FirstName\":\"A\"\r\n18\r\n,\"LastName\":\"B\",\"Age\":1}\r\n0\r\n\r\n";
        let r = conn
            .exchange(chunked, WITHIN)
            .unwrap_or_else(|e| panic!("{name}: chunked answer: {e}"));
        assert_eq!(
            (r.status, r.text().as_str()),
            (200, r#"{"firstName":"Ax","lastName":"Bx","age":11}"#),
            "{name}"
        );
    });
}

#[test]
fn http_1_0_closes_unless_asked_and_both_framings_at_once_are_refused() {
    harness::each_server_at_once(Server::ALL, |server| {
        let (app, name) = (spawn_app(server), server.name());
        let r = send_raw(&app, b"GET /health HTTP/1.0\r\n\r\n");
        assert_eq!(r.status, 200, "{name}: HTTP/1.0");
        let mut conn = conn(&app);
        for _ in 0..2 {
            let r = conn
                .exchange(
                    b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                    WITHIN,
                )
                .unwrap_or_else(|e| panic!("{name}: HTTP/1.0 keep-alive answer: {e}"));
            assert_eq!(r.status, 200, "{name}: HTTP/1.0 keep-alive");
        }

        let r = send_raw(&app, b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assert_eq!(r.status, 400, "{name}: both framings: {}", r.text());

        // A chunked body is refused once it grows past the limit.
        let mut raw = b"POST /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..3 {
            raw.extend_from_slice(format!("{:x}\r\n", 30 * 1024).as_bytes());
            raw.extend_from_slice(&[b' '; 30 * 1024]);
            raw.extend_from_slice(b"\r\n");
        }
        raw.extend_from_slice(b"0\r\n\r\n");
        let r = send_raw(&app, &raw);
        assert_eq!(
            (r.status, r.body),
            (413, ApiError::payload_too_large().body_json()),
            "{name}: chunked 90 KiB body"
        );
    });
}

#[test]
fn an_idle_keep_alive_connection_is_closed_at_shutdown() {
    harness::each_server_at_once(Server::ALL, |server| {
        let (mut app, name) = (spawn_app(server), server.name());
        let mut conn = conn(&app);
        let r = conn
            .exchange(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n", WITHIN)
            .unwrap_or_else(|e| panic!("{name}: keep-alive answer: {e}"));
        assert_eq!(r.status, 200, "{name}");

        // The connection is idle now; shutdown must close it, not wait the
        // harness's 10 s drain timeout for it.
        let stopping = Instant::now();
        while_shutting_down(&mut app, || {
            assert!(
                conn.closed_by_server(Duration::from_secs(8)),
                "{name}: idle keep-alive connection left open at shutdown"
            );
        });
        let took = stopping.elapsed();
        assert!(took < Duration::from_secs(8), "{name}: drain took {took:?}");
    });
}

/// A request whose head came before the drain began and whose body comes
/// after is in flight: it is answered, with `Connection: close`, and then
/// the connection is closed. (The async server keeps such a request back
/// from hyper until its body is whole; its drain waits for it to reach
/// hyper before hyper's graceful shutdown, which would close a connection
/// it thinks idle: crates/async-server/src/serve.rs.)
#[test]
fn a_body_still_arriving_when_the_drain_begins_is_answered() {
    const HEAD: &[u8] = b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n";
    const BODY: &[u8] = br#"{"FirstName":"A","LastName":"B","Age":1}"#;
    harness::each_server_at_once(Server::ALL, |server| {
        let (mut app, name) = (spawn_app(server), server.name());
        let (mut conn, addr) = (conn(&app), app.addr);
        conn.stream.write_all(HEAD).expect("send the head");
        std::thread::sleep(Duration::from_millis(200));
        while_shutting_down(&mut app, || {
            // The drain has begun once new connections are refused.
            let refusing = Instant::now();
            while std::net::TcpStream::connect_timeout(&addr, WITHIN).is_ok() {
                assert!(refusing.elapsed() < WITHIN, "{name}: still accepting");
                std::thread::sleep(Duration::from_millis(20));
            }
            std::thread::sleep(Duration::from_millis(50));
            let answer = conn
                .stream
                .write_all(BODY)
                .and_then(|()| conn.read_response(false, WITHIN))
                .unwrap_or_else(|e| panic!("{name}: the request in flight was dropped: {e}"));
            assert_eq!(
                (answer.status, answer.text().as_str()),
                (200, r#"{"firstName":"Ax","lastName":"Bx","age":11}"#),
                "{name}"
            );
            assert_eq!(answer.header("connection"), Some("close"), "{name}");
            assert!(
                conn.closed_by_server(Duration::from_secs(8)),
                "{name}: connection left open after the drain's answer"
            );
        });
    });
}

/// Runs `during` while `app` shuts down on another thread, then requires
/// the shutdown to have ended well.
fn while_shutting_down(app: &mut TestApp, during: impl FnOnce()) {
    let name = app.server.name();
    std::thread::scope(|s| {
        let stopped = s.spawn(|| app.shutdown(Duration::from_secs(15)));
        during();
        stopped
            .join()
            .expect("shutdown thread")
            .unwrap_or_else(|e| panic!("{name}: run: {e:#}"));
    });
}

/// The header timeout on a keep-alive connection, after a first request:
/// the next head must arrive within `--header-read-timeout-ms` of the
/// previous answer. Half a head gets the contract's 408; a connection that
/// sends nothing is closed quietly (Tomcat's keepAliveTimeout). In the async
/// server these later heads are timed by the connection's own task
/// (crates/async-server/src/idle_timeout.rs), one timer per connection.
#[test]
fn a_late_second_head_gets_408_and_an_idle_connection_is_closed() {
    const TIMEOUT: Duration = Duration::from_millis(1_500);
    harness::each_server_at_once(Server::ALL, |server| {
        let name = server.name();
        let app = harness::spawn_app_with(
            server,
            harness::AppOptions::with_args([
                "--header-read-timeout-ms",
                &TIMEOUT.as_millis().to_string(),
            ]),
        );
        let mut half = conn(&app);
        let mut idle = conn(&app);
        for c in [&mut half, &mut idle] {
            // Several requests first: each one's head is on time.
            for _ in 0..3 {
                let r = c
                    .exchange(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n", WITHIN)
                    .unwrap_or_else(|e| panic!("{name}: keep-alive answer: {e}"));
                assert_eq!(r.status, 200, "{name}");
            }
        }
        let answered = Instant::now();
        half.stream
            .write_all(b"GET /health HTTP/1.1\r\nHo")
            .expect("half a head");

        let r = half
            .read_response(false, WITHIN)
            .unwrap_or_else(|e| panic!("{name}: no answer to half a head: {e}"));
        let took = answered.elapsed();
        assert_eq!(r.status, 408, "{name}: {}", r.text());
        assert_eq!(
            r.json()["error"],
            ApiError::request_timeout().body().error,
            "{name}"
        );
        // Wide margins: this checks that the deadline is the timeout, not a
        // multiple of it or none, on a machine that may be busy.
        assert!(
            took >= TIMEOUT - Duration::from_millis(300),
            "{name}: 408 after {took:?}, before the {TIMEOUT:?} timeout"
        );
        assert!(
            took < TIMEOUT * 4,
            "{name}: 408 only after {took:?} (timeout {TIMEOUT:?})"
        );
        assert!(
            idle.closed_by_server(WITHIN),
            "{name}: idle keep-alive connection still open after {WITHIN:?}"
        );
        let idle_for = answered.elapsed();
        assert!(
            idle_for >= TIMEOUT - Duration::from_millis(300) && idle_for < TIMEOUT * 4,
            "{name}: idle connection closed after {idle_for:?} (timeout {TIMEOUT:?})"
        );
    });
}
