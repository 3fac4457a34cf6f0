//! Where the card's server (`blocking-server --connector tiny-http`)
//! answers differently from the contract, because tiny_http 0.12 reads the
//! request head itself and answers some requests before our code sees them.
//!
//! Each difference is asserted exactly (status, body, whether the connection
//! is closed), so a change in tiny_http's behaviour turns this red; the
//! docs/servers.md's "What the card's server does differently" lists the same cases.
//! Where it matters, the same request is sent to our nio connector too, to
//! show the contract's answer next to tiny_http's.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use contract::model::{to_json, Health};
use contract::ApiError;
use harness::drip::drip_body;
use harness::{spawn_app_with, AppOptions, Server, TestApp};

/// A short header timeout, so "a head that never finishes" is quick to test.
const HEADER_TIMEOUT_MS: u64 = 300;

fn app(server: Server) -> TestApp {
    spawn_app_with(
        server,
        AppOptions::with_args(["--header-read-timeout-ms", &HEADER_TIMEOUT_MS.to_string()]),
    )
}

/// What came back on one connection within `wait`.
#[derive(Debug)]
struct Seen {
    status: Option<u16>,
    headers: String,
    body: Vec<u8>,
    /// The server closed the connection (EOF or reset) within `wait`.
    closed: bool,
}

/// Sends `raw` on a new connection and collects what comes back until the
/// server closes or `wait` passes.
fn exchange(addr: SocketAddr, raw: &[u8], wait: Duration) -> Seen {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let _ = stream.write_all(raw);
    collect(&mut stream, wait)
}

fn collect(stream: &mut TcpStream, wait: Duration) -> Seen {
    let deadline = Instant::now() + wait;
    let mut got = Vec::new();
    let mut closed = false;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        stream.set_read_timeout(Some(left)).expect("read timeout");
        match stream.read(&mut buf) {
            Ok(0) => {
                closed = true;
                break;
            }
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(_) => {
                closed = true;
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let (headers, body) = match text.split_once("\r\n\r\n") {
        Some((h, b)) => (h.to_owned(), b.as_bytes().to_vec()),
        None => (text.clone(), Vec::new()),
    };
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok());
    Seen {
        status,
        headers,
        body,
        closed,
    }
}

/// The card's server and nio, started side by side by `start`.
fn tiny_and_nio(start: fn(Server) -> TestApp) -> (TestApp, TestApp) {
    std::thread::scope(|scope| {
        let tiny = scope.spawn(|| start(Server::BlockingTinyHttp));
        let nio = start(Server::Blocking);
        let tiny = tiny.join().expect("the card's server did not start");
        (tiny, nio)
    })
}

fn has_header(seen: &Seen, name: &str) -> bool {
    seen.headers
        .lines()
        .any(|l| l.to_ascii_lowercase().starts_with(&format!("{name}:")))
}

const QUICK: Duration = Duration::from_secs(3);

#[test]
fn a_malformed_request_line_gets_tinys_empty_400_not_the_contracts_json() {
    let (tiny, nio) = tiny_and_nio(app);
    let raw = b"GARBAGE\r\n\r\n";

    let got = exchange(tiny.addr, raw, QUICK);
    assert_eq!(got.status, Some(400), "{got:?}");
    assert_eq!(got.body, b"", "{got:?}");
    assert!(!has_header(&got, "content-type"), "{got:?}");
    assert!(got.closed, "{got:?}");

    let contract = exchange(nio.addr, raw, QUICK);
    assert_eq!(contract.status, Some(400), "{contract:?}");
    assert!(contract.body.starts_with(b"{\"error\":"), "{contract:?}");
}

#[test]
fn a_header_line_without_a_colon_gets_tinys_empty_400() {
    let tiny = app(Server::BlockingTinyHttp);
    let got = exchange(
        tiny.addr,
        b"GET /health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
        QUICK,
    );
    assert_eq!(
        (got.status, got.body.as_slice()),
        (Some(400), &b""[..]),
        "{got:?}"
    );
    assert!(got.closed, "{got:?}");
}

#[test]
fn an_unknown_expectation_gets_tinys_empty_417() {
    let (tiny, nio) = tiny_and_nio(app);
    let raw =
        b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: something-else\r\n\r\n";
    let got = exchange(tiny.addr, raw, QUICK);
    assert_eq!(
        (got.status, got.body.as_slice()),
        (Some(417), &b""[..]),
        "{got:?}"
    );
    assert!(got.closed, "{got:?}");

    // nio ignores an expectation it does not know and serves the request.
    let contract = exchange(nio.addr, raw, QUICK);
    assert_eq!(contract.status, Some(200), "{contract:?}");
    assert_eq!(contract.body, to_json(&Health::ok()));
}

#[test]
fn http_2_0_on_the_request_line_gets_no_answer_from_tiny_http() {
    let (tiny, nio) = tiny_and_nio(app);
    let raw = b"GET /health HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n";
    // tiny_http 0.12 has a 505 for this ("This server only supports HTTP
    // versions 1.0 and 1.1"), but it never reaches the client: its writer
    // waits for the refused request's writer, which is still alive
    // (client.rs, util/sequential.rs), so the reader thread hangs for good
    // and the connection stays open with nothing sent.
    let got = exchange(tiny.addr, raw, QUICK);
    assert_eq!((got.status, got.closed), (None, false), "{got:?}");

    let contract = exchange(nio.addr, raw, QUICK);
    assert_eq!(contract.status, Some(400), "{contract:?}");
    assert!(contract.body.starts_with(b"{\"error\":"), "{contract:?}");
}

#[test]
fn a_head_that_never_finishes_gets_no_408_from_tiny_http() {
    let (tiny, nio) = tiny_and_nio(app);
    let unfinished = b"GET /health HTTP/1.1\r\nHost: x\r\n";
    // Five header timeouts: nio has answered 408 long before.
    let wait = Duration::from_millis(5 * HEADER_TIMEOUT_MS + 1_000);

    let got = exchange(tiny.addr, unfinished, wait);
    assert_eq!(got.status, None, "{got:?}");
    assert!(!got.closed, "tiny_http has no header timeout: {got:?}");

    let contract = exchange(nio.addr, unfinished, wait);
    assert_eq!(contract.status, Some(408), "{contract:?}");
    assert_eq!(contract.body, ApiError::request_timeout().body_json());
}

#[test]
fn a_signed_content_length_makes_tiny_http_wait_for_the_body_first() {
    let tiny = app(Server::BlockingTinyHttp);
    let mut stream = TcpStream::connect(tiny.addr).expect("connect");
    stream
        .write_all(
            b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: +5\r\n\r\n",
        )
        .expect("write head");
    // tiny_http reads `+5` as 5 and waits for five bytes before our code sees
    // the request (nio refuses the head at once, contract_suite.rs).
    let got = collect(&mut stream, Duration::from_secs(2));
    assert_eq!(got.status, None, "{got:?}");
    assert!(!got.closed, "{got:?}");
    // Once they come, our layer applies the contract's framing rule.
    stream.write_all(b"hello").expect("write body");
    let got = collect(&mut stream, QUICK);
    assert_eq!(got.status, Some(400), "{got:?}");
    assert_eq!(
        got.body,
        contract::framing::malformed("content-length").body_json()
    );
}

#[test]
fn a_non_ascii_header_value_is_closed_without_an_answer() {
    let (tiny, nio) = tiny_and_nio(app);
    let raw = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Name: café\r\n\r\n";
    let got = exchange(tiny.addr, raw.as_bytes(), QUICK);
    assert_eq!((got.status, got.closed), (None, true), "{got:?}");

    // httparse takes bytes above 0x7f in a value (obs-text): nio serves it.
    let contract = exchange(nio.addr, raw.as_bytes(), QUICK);
    assert_eq!(contract.status, Some(200), "{contract:?}");
    assert_eq!(contract.body, to_json(&Health::ok()));
}

#[test]
fn an_oversized_head_gets_the_contracts_431_but_only_after_tiny_http_read_all_of_it() {
    let tiny = app(Server::BlockingTinyHttp);
    // 1 MiB of headers: nio stops reading at 16 KiB; tiny_http reads them all
    // into memory, then our layer refuses the head by its size.
    let mut raw = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".to_vec();
    for i in 0..1024 {
        raw.extend_from_slice(format!("X-Pad-{i:04}: {}\r\n", "a".repeat(1000)).as_bytes());
    }
    raw.extend_from_slice(b"\r\n");
    let got = exchange(tiny.addr, &raw, Duration::from_secs(10));
    assert_eq!(got.status, Some(431), "{got:?}");
    assert_eq!(got.body, ApiError::headers_too_large().body_json());
}

/// The body deadline of the slow-body tests (tests/tests/suites/slow_bodies.rs).
const BODY_DEADLINE: Duration = Duration::from_millis(500);

fn app_with_body_deadline(server: Server) -> TestApp {
    spawn_app_with(
        server,
        AppOptions::with_args([
            "--body-read-timeout-ms",
            &BODY_DEADLINE.as_millis().to_string(),
        ]),
    )
}

fn echo_head(length: usize) -> Vec<u8> {
    format!(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    )
    .into_bytes()
}

#[test]
fn a_small_dripped_body_is_read_by_tiny_http_itself_with_no_deadline() {
    let (tiny, nio) = tiny_and_nio(app_with_body_deadline);
    // Up to 1 KiB, tiny_http's reader thread reads the whole body before
    // our code sees the request (request.rs): nothing can time it.
    let drip = |addr| {
        let give_up = BODY_DEADLINE + Duration::from_millis(1500);
        drip_body(
            addr,
            &echo_head(100),
            Duration::from_millis(100),
            give_up,
            Duration::ZERO,
        )
        .expect("drip")
    };
    let got = drip(tiny.addr);
    assert_eq!((got.status(), got.closed), (None, false), "{got:?}");

    let contract = drip(nio.addr);
    assert_eq!(contract.status(), Some(408), "{contract:?}");
    assert_eq!(contract.body(), ApiError::body_timeout().body_json());
}

#[test]
fn a_large_dripped_body_gets_the_408_but_tiny_http_keeps_reading_it() {
    let tiny = app_with_body_deadline(Server::BlockingTinyHttp);
    // Over 1 KiB, our recv() thread reads the body and checks the deadline
    // between reads: the contract's 408 comes in time. tiny_http then reads
    // the rest of the body on that thread before it lets go of the request
    // (util/equal_reader.rs, on drop), and keeps the connection open.
    let give_up = BODY_DEADLINE + Duration::from_secs(2);
    let got = drip_body(
        tiny.addr,
        &echo_head(2048),
        Duration::from_millis(100),
        give_up,
        Duration::from_secs(1),
    )
    .expect("drip");
    assert_eq!(got.status(), Some(408), "{got:?}");
    assert_eq!(got.body(), ApiError::body_timeout().body_json());
    let at = got.answered_after.expect("answered");
    assert!(at <= BODY_DEADLINE + Duration::from_secs(1), "{at:?}");
    assert!(!got.closed, "tiny_http closed the connection: {got:?}");
}
