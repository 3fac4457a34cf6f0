//! The wire contract, on raw sockets, on every server mode: each malformed
//! request gets the same status and the contract's JSON error from every
//! mode, whether it is the first request of its connection, the second
//! after an answered one, or pipelined behind a valid one; the framing both
//! servers refuse (request smuggling starts there), the size limits, HTTP
//! versions other than 1.0 and 1.1 and HTTP/2's preface, the request
//! targets a server must take (absolute-form) and those it refuses, and
//! bodies cut short by the client's close. The rules are the contract's
//! (contract::head, contract::chunked, contract::request_scan); the
//! expectations here are written out, so a rule that changes fails here.
//!
//! After each case a fresh connection must get `/health` 200: the server
//! still serves (an in-process server whose accept loop or process died
//! would not). Every mode but `--connector tiny-http`, whose own answers to
//! bad heads are its documented difference (tiny_http_differences.rs).
//! No case waits for a timeout: the cut bodies are half-closes.

use std::io::Write as _;
use std::net::Shutdown;
use std::time::Duration;

use contract::framing::{body_cut_short, malformed};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use contract::ApiError;
use harness::{http, spawn_app, Conn, Server, TestApp};

const WITHIN: Duration = Duration::from_secs(10);
const GET_HEALTH: &[u8] = b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
const HEALTH: &str = r#"{"health":"ok"}"#;
const ECHO_HEAD: &str = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n";
const ECHOED: &str = r#"{"firstName":"Ax","lastName":"Bx","age":11}"#;

/// What a case must get.
#[derive(Debug, Clone)]
enum Want {
    /// This error's status and JSON body, `connection: close`, then the
    /// connection closed.
    Refused(ApiError),
    /// An answer of the route layer: this status and exact body.
    Answer(u16, String),
    /// The connection closed without an answer.
    ClosedQuietly,
}

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// Whether the client closes its sending side after the bytes.
    half_close: bool,
    want: Want,
}

fn case(name: &'static str, bytes: impl Into<Vec<u8>>, want: Want) -> Case {
    Case {
        name,
        bytes: bytes.into(),
        half_close: false,
        want,
    }
}

fn half_closed(name: &'static str, bytes: impl Into<Vec<u8>>, want: Want) -> Case {
    Case {
        half_close: true,
        ..case(name, bytes, want)
    }
}

fn bad(what: &str) -> Want {
    Want::Refused(malformed(what))
}

fn echo(framing: &str, body: &str) -> String {
    format!("{ECHO_HEAD}{framing}\r\n{body}")
}

fn chunked(body: &str) -> String {
    echo("Transfer-Encoding: chunked\r\n", body)
}

/// The framing both servers refuse, and the bodies they read.
#[allow(clippy::too_many_lines, reason = "one table, a case per row")]
fn framing_cases() -> Vec<Case> {
    let json = r#"{"FirstName":"A","LastName":"B","Age":1}"#;
    let over_limit = MAX_BODY_BYTES + 1;
    let small_chunks = format!("{:x}\r\n{}\r\n", 30 * 1024, " ".repeat(30 * 1024)).repeat(3);
    vec![
        case(
            "a chunked echo",
            chunked(&format!("{:x}\r\n{json}\r\n0\r\n\r\n", json.len())),
            Want::Answer(200, ECHOED.into()),
        ),
        case(
            "a length echo",
            echo(&format!("Content-Length: {}\r\n", json.len()), json),
            Want::Answer(200, ECHOED.into()),
        ),
        case(
            "content-length and chunked at once",
            echo(
                "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                "0\r\n\r\n",
            ),
            bad("both transfer-encoding and content-length"),
        ),
        case(
            "chunked and content-length at once",
            echo(
                "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
                "0\r\n\r\n",
            ),
            bad("both transfer-encoding and content-length"),
        ),
        case(
            "two different content-lengths",
            echo("Content-Length: 1\r\nContent-Length: 2\r\n", "ab"),
            bad("content-length given twice"),
        ),
        case(
            "a content-length with a sign",
            echo("Content-Length: +2\r\n", "ab"),
            bad("content-length"),
        ),
        case(
            "a content-length over the body limit",
            echo(&format!("Content-Length: {over_limit}\r\n"), ""),
            Want::Refused(ApiError::payload_too_large()),
        ),
        case(
            "a transfer coding other than chunked",
            echo("Transfer-Encoding: gzip\r\n", ""),
            bad("transfer-encoding other than chunked"),
        ),
        case(
            "chunked in HTTP/1.0",
            "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            bad("transfer-encoding in HTTP/1.0"),
        ),
        case(
            "a chunk size that is not hex",
            chunked("zz\r\n"),
            bad("chunk size"),
        ),
        case(
            "a chunk larger than the body limit",
            chunked("100000\r\n"),
            Want::Refused(ApiError::payload_too_large()),
        ),
        case(
            "a chunk size past 64 bits",
            chunked("1ffffffffffffffff0\r\n"),
            Want::Refused(ApiError::payload_too_large()),
        ),
        case(
            "a chunked body over the limit in small chunks",
            chunked(&format!("{small_chunks}0\r\n\r\n")),
            Want::Refused(ApiError::payload_too_large()),
        ),
        case(
            "a 10 KB chunk extension",
            chunked(&format!("1;{}\r\nx\r\n0\r\n\r\n", "e".repeat(10 * 1024))),
            bad("chunk size line"),
        ),
        case(
            "a chunk extension with a bare LF",
            chunked("1;a\nb\r\nx\r\n0\r\n\r\n"),
            bad("chunk size"),
        ),
        case(
            "chunk data without its CRLF",
            chunked("1\r\nxy0\r\n\r\n"),
            bad("chunk end"),
        ),
        case(
            "a trailer that is no header field",
            chunked("0\r\nno colon\r\n\r\n"),
            bad("chunk trailer"),
        ),
        case(
            "trailers over the head limit",
            chunked(&format!(
                "0\r\nX-T: {}\r\n\r\n",
                "t".repeat(MAX_HEADER_BYTES)
            )),
            Want::Refused(ApiError::headers_too_large()),
        ),
    ]
}

/// Limits, versions, targets and header values.
#[allow(clippy::too_many_lines, reason = "one table, a case per row")]
fn head_cases() -> Vec<Case> {
    let many_fields: String = (0..=100).map(|i| format!("X-{i}: v\r\n")).collect();
    let id_error = ApiError::bad_request("id must be a positive integer, got \"abc\"").body_json();
    vec![
        case(
            "a request line over the head limit",
            format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEADER_BYTES)),
            Want::Refused(ApiError::headers_too_large()),
        ),
        case(
            "a header over the head limit",
            format!(
                "GET /health HTTP/1.1\r\nX-Big: {}\r\n\r\n",
                "b".repeat(20 * 1024)
            ),
            Want::Refused(ApiError::headers_too_large()),
        ),
        case(
            "101 header fields",
            format!("GET /health HTTP/1.1\r\n{many_fields}\r\n"),
            Want::Refused(ApiError::headers_too_large()),
        ),
        case(
            "HTTP/1.2",
            "GET /health HTTP/1.2\r\n\r\n",
            bad("request head: invalid HTTP version"),
        ),
        case(
            "HTTP/2's preface",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            bad("request head: invalid HTTP version"),
        ),
        case(
            "absolute-form",
            "GET http://t/health HTTP/1.1\r\n\r\n",
            Want::Answer(200, HEALTH.into()),
        ),
        case(
            "absolute-form with a port, to a route's 400",
            "GET http://t:8080/users/abc?x=1 HTTP/1.1\r\n\r\n",
            Want::Answer(400, String::from_utf8(id_error).unwrap_or_default()),
        ),
        case(
            "a target with a <",
            "GET /<x> HTTP/1.1\r\n\r\n",
            bad("request target"),
        ),
        case(
            "a target in authority-form",
            "GET t:8080 HTTP/1.1\r\n\r\n",
            bad("request target"),
        ),
        case(
            "a target with a fragment",
            "GET /health#top HTTP/1.1\r\n\r\n",
            bad("request target"),
        ),
        case(
            "a header value that is not UTF-8",
            &b"GET /health HTTP/1.1\r\nX: caf\xe9\r\n\r\n"[..],
            bad("header value"),
        ),
    ]
}

/// A client that closes its side: a body cut short is refused, half a head
/// is the quiet end of the connection. (A whole request and then the close
/// is where the models differ on purpose: docs/reliability.md's known
/// limits.)
fn half_close_cases() -> Vec<Case> {
    vec![
        half_closed(
            "a body cut short by a half-close",
            echo("Content-Length: 10\r\n", "abc"),
            Want::Refused(body_cut_short()),
        ),
        half_closed(
            "a chunked body cut short by a half-close",
            chunked("5\r\nab"),
            Want::Refused(body_cut_short()),
        ),
        half_closed(
            "half a head, then a half-close",
            "GET /health HTTP/1.1\r\nHo",
            Want::ClosedQuietly,
        ),
    ]
}

fn cases() -> Vec<Case> {
    let mut cases = framing_cases();
    cases.extend(head_cases());
    cases.extend(half_close_cases());
    cases
}

/// Where on its connection a case's request is sent.
#[derive(Debug, Clone, Copy)]
enum Position {
    First,
    /// After a `/health` that was answered, on the same connection.
    SecondAfterAnAnswer,
    /// Behind a `/health`, in the same write.
    Pipelined,
}

/// One case at one position: `Err` says what differed.
fn run(app: &TestApp, case: &Case, position: Position) -> Result<(), String> {
    let mut conn = Conn::open(app.addr).map_err(|e| format!("connect: {e}"))?;
    let send = |conn: &mut Conn, bytes: &[u8]| -> Result<(), String> {
        // A server may answer and close before reading all of it.
        let _ = conn.stream.write_all(bytes);
        if case.half_close {
            conn.stream
                .shutdown(Shutdown::Write)
                .map_err(|e| format!("half-close: {e}"))?;
        }
        Ok(())
    };
    match position {
        Position::First => send(&mut conn, &case.bytes)?,
        Position::SecondAfterAnAnswer => {
            conn.stream
                .write_all(GET_HEALTH)
                .map_err(|e| format!("the first request: {e}"))?;
            expect_health(&mut conn)?;
            send(&mut conn, &case.bytes)?;
        }
        Position::Pipelined => {
            send(&mut conn, &[GET_HEALTH, &case.bytes[..]].concat())?;
            expect_health(&mut conn)?;
        }
    }
    check_answer(&mut conn, &case.want)
}

fn expect_health(conn: &mut Conn) -> Result<(), String> {
    let r = conn
        .read_response(false, WITHIN)
        .map_err(|e| format!("the valid request before: {e}"))?;
    if (r.status, r.text().as_str()) != (200, HEALTH) {
        return Err(format!(
            "the valid request before: {} {}",
            r.status,
            r.text()
        ));
    }
    Ok(())
}

fn check_answer(conn: &mut Conn, want: &Want) -> Result<(), String> {
    let answer = conn.read_response(false, WITHIN);
    match (want, answer) {
        (Want::ClosedQuietly, Err(e))
            if !matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            Ok(())
        }
        (Want::ClosedQuietly, other) => Err(format!("not closed quietly: {other:?}")),
        (_, Err(e)) => Err(format!("no answer: {e}")),
        (Want::Answer(status, body), Ok(r)) => {
            if (r.status, r.text()) == (*status, body.clone()) {
                Ok(())
            } else {
                Err(format!("{} {}, not {status} {body}", r.status, r.text()))
            }
        }
        (Want::Refused(error), Ok(r)) => {
            let got = (
                r.status,
                r.text(),
                r.header("content-type"),
                r.header("connection"),
            );
            let body = String::from_utf8(error.body_json()).unwrap_or_default();
            let want = (
                error.status(),
                body,
                Some("application/json"),
                Some("close"),
            );
            if got != want {
                return Err(format!("{got:?}, not {want:?}"));
            }
            if !conn.closed_by_server(WITHIN) {
                return Err("the connection left open after the refusal".into());
            }
            Ok(())
        }
    }
}

/// Every case at every position on `server`, then `/health` on a fresh
/// connection after each: one line per difference.
fn every_case_at_every_position(server: Server) {
    let app = spawn_app(server);
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in cases() {
        for position in [
            Position::First,
            Position::SecondAfterAnAnswer,
            Position::Pipelined,
        ] {
            ran += 1;
            if let Err(what) = run(&app, &case, position) {
                failures.push(format!("{} ({position:?}): {what}", case.name));
            }
            match http::send(app.addr, "GET", "/health", &[], b"") {
                Ok(r) if r.status == 200 => {}
                other => failures.push(format!(
                    "{} ({position:?}): /health afterwards: {other:?}",
                    case.name
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}: {} of {ran} cases differ from the contract:\n{}",
        server.name(),
        failures.len(),
        failures.join("\n")
    );
}

harness::test_cases! {
    every_case_at_every_position;
    blocking_server_keeps_the_wire_contract(Server::Blocking);
    blocking_server_with_a_redis_pool_keeps_the_wire_contract(Server::BlockingRedisPool);
    async_server_keeps_the_wire_contract(Server::Async);
    async_server_with_deadpool_keeps_the_wire_contract(Server::AsyncDeadpool);
    async_server_pipelined_keeps_the_wire_contract(Server::AsyncPipelined);
    virtual_threads_keep_the_wire_contract(Server::Virtual);
    virtual_threads_yielding_keep_the_wire_contract(Server::VirtualYielding);
}
