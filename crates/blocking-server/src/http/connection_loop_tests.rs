//! The connection loop's promises, one table run against both executors:
//! the connector's handler threads (platform threads, the head waited for
//! in the poller) and the virtual threads' connection coroutines (the head
//! waited for in a parked read). Keep-alive, pipelining, refusals and
//! timeouts, over real sockets, with a handler that needs no database.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use contract::ApiError;
use crossbeam_channel::Sender;

use crate::connector::busy_threads::BusyThreads;
use crate::http::read::ReadTimeouts;
use crate::http::{Handler, Response};
use crate::settings::{Connector, ServeConfig};

const HEAD_TIMEOUT: Duration = Duration::from_millis(300);
const BODY_TIMEOUT: Duration = Duration::from_millis(300);
const KEEP_ALIVE: Duration = Duration::from_millis(600);

fn config() -> ServeConfig {
    ServeConfig {
        timeouts: ReadTimeouts {
            head: HEAD_TIMEOUT,
            body: BODY_TIMEOUT,
        },
        keep_alive_timeout: KEEP_ALIVE,
        drain_timeout: Duration::from_secs(2),
        handler_threads: 16,
        connector: Connector::Nio,
        all_busy_warn: Duration::from_secs(60),
        carriers: 1,
        coroutine_stack_kib: crate::settings::DEFAULT_COROUTINE_STACK_KIB,
        report_stack_use: false,
        max_connections: 100,
        reserved_fds: 0,
    }
}

/// Answers every request with its path as the body, and a refusal with
/// the contract's error.
fn echo_path() -> Arc<Handler> {
    Arc::new(|incoming| match incoming {
        Ok(request) => Response::json(request.path.clone().into_bytes()),
        Err(refused) => Response::error(&refused.error),
    })
}

/// The two executors' connection layers.
#[derive(Debug, Clone, Copy)]
enum Executor {
    PlatformThreads,
    VirtualThreads,
}

/// A connection layer serving on a free port until dropped.
struct Running {
    addr: SocketAddr,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<anyhow::Result<()>>>,
}

impl Running {
    fn start(executor: Executor) -> Running {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, shutdown) = crossbeam_channel::bounded(1);
        let config = config();
        let thread = std::thread::spawn(move || match executor {
            Executor::PlatformThreads => {
                let busy = Arc::new(BusyThreads::new(
                    config.handler_threads,
                    config.all_busy_warn,
                ));
                crate::connector::serve(listener, &config, echo_path(), busy, &shutdown)
            }
            Executor::VirtualThreads => {
                crate::yielding::test_support::configure();
                crate::virtual_threads::serve_connections(listener, &config, echo_path(), &shutdown)
            }
        });
        Running {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One step of a case, on one client connection.
enum Step {
    Send(Vec<u8>),
    /// The next answer: its status, its `connection` header, its body (the
    /// request's path, or the refusal's error), and how long after the
    /// step before it at the earliest.
    Answer {
        status: u16,
        connection: Option<&'static str>,
        body: &'static str,
        not_before: Duration,
    },
    /// The server closes the connection with nothing more to say, between
    /// `not_before` and `within` after the step before.
    Closed {
        not_before: Duration,
        within: Duration,
    },
}

fn send(bytes: impl Into<Vec<u8>>) -> Step {
    Step::Send(bytes.into())
}

fn ok(path: &'static str, connection: Option<&'static str>) -> Step {
    Step::Answer {
        status: 200,
        connection,
        body: path,
        not_before: Duration::ZERO,
    }
}

fn refused(status: u16, body: &'static str, not_before: Duration) -> Step {
    Step::Answer {
        status,
        connection: Some("close"),
        body,
        not_before,
    }
}

fn closed_within(within: Duration) -> Step {
    Step::Closed {
        not_before: Duration::ZERO,
        within,
    }
}

fn get(path: &str, headers: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n{headers}\r\n").into_bytes()
}

/// The cases: what a client sends and what it must see, whichever executor.
fn cases() -> Vec<(&'static str, Vec<Step>)> {
    let mut cases = keep_alive_cases();
    cases.extend(refusal_cases());
    cases.extend(timeout_cases());
    cases
}

/// How long a close may take to be seen, a wide margin on a busy machine.
const SOON: Duration = Duration::from_secs(3);

/// Persistent connections: kept, pipelined, closed when asked.
fn keep_alive_cases() -> Vec<(&'static str, Vec<Step>)> {
    vec![
        (
            "keep-alive: two requests on one connection",
            vec![
                send(get("/a", "")),
                ok("/a", None),
                send(get("/b", "")),
                ok("/b", None),
            ],
        ),
        (
            "pipelined requests are answered in order",
            vec![
                send([get("/a", ""), get("/b", "")].concat()),
                ok("/a", None),
                ok("/b", None),
            ],
        ),
        (
            "connection: close is answered so and closed",
            vec![
                send(get("/a", "Connection: close\r\n")),
                ok("/a", Some("close")),
                closed_within(SOON),
            ],
        ),
        (
            "HTTP/1.0 asking for keep-alive is told so and kept",
            vec![
                send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
                ok("/a", Some("keep-alive")),
                send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
                ok("/b", Some("keep-alive")),
            ],
        ),
        (
            "HTTP/1.0 without keep-alive is closed",
            vec![
                send("GET /a HTTP/1.0\r\n\r\n"),
                ok("/a", Some("close")),
                closed_within(SOON),
            ],
        ),
    ]
}

/// Requests refused while they are read: answered, then closed.
fn refusal_cases() -> Vec<(&'static str, Vec<Step>)> {
    let big_header = format!("X-Big: {}\r\n", "a".repeat(20 * 1024));
    vec![
        (
            "a head over the limit is refused and the connection closed",
            vec![
                send(get("/a", &big_header)),
                refused(431, body_of(&ApiError::headers_too_large()), Duration::ZERO),
                closed_within(SOON),
            ],
        ),
        (
            "a malformed head is refused and the connection closed",
            vec![
                send(get("/a", "Content-Length: +5\r\n")),
                refused(
                    400,
                    body_of(&contract::framing::malformed("content-length")),
                    Duration::ZERO,
                ),
                closed_within(SOON),
            ],
        ),
        (
            "a body over the limit is refused and the connection closed",
            vec![
                send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 70000\r\n\r\n"),
                refused(413, body_of(&ApiError::payload_too_large()), Duration::ZERO),
                closed_within(SOON),
            ],
        ),
    ]
}

/// Heads, bodies and idle connections that run out of time.
fn timeout_cases() -> Vec<(&'static str, Vec<Step>)> {
    let margin = Duration::from_millis(50);
    vec![
        (
            "a head that stops halfway gets 408 after the head timeout",
            vec![
                send("GET /a HTTP/1.1\r\nHos"),
                refused(
                    408,
                    body_of(&ApiError::request_timeout()),
                    HEAD_TIMEOUT - margin,
                ),
                closed_within(SOON),
            ],
        ),
        (
            "a body that stops halfway gets 408 after the body timeout",
            vec![
                send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"),
                refused(
                    408,
                    body_of(&ApiError::body_timeout()),
                    BODY_TIMEOUT - margin,
                ),
                closed_within(SOON),
            ],
        ),
        (
            "an idle keep-alive connection is closed quietly after the keep-alive timeout",
            vec![
                send(get("/a", "")),
                ok("/a", None),
                Step::Closed {
                    not_before: KEEP_ALIVE - Duration::from_millis(100),
                    within: KEEP_ALIVE + SOON,
                },
            ],
        ),
    ]
}

fn body_of(error: &ApiError) -> &'static str {
    Box::leak(
        String::from_utf8(error.body_json())
            .unwrap()
            .into_boxed_str(),
    )
}

/// A client connection that reads whole answers.
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    /// Reads until `ready(buf)` says how many bytes make what it waits
    /// for, or the peer closes (`Ok(None)`), by `deadline`.
    fn read_until(
        &mut self,
        deadline: Instant,
        ready: impl Fn(&[u8]) -> Option<usize>,
    ) -> Result<Option<Vec<u8>>, String> {
        loop {
            if let Some(n) = ready(&self.buf) {
                return Ok(Some(self.buf.drain(..n).collect()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "nothing whole by the deadline; have {:?}",
                    self.text()
                ));
            }
            self.stream.set_read_timeout(Some(left)).unwrap();
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(format!("read failed: {e}")),
            }
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf).into_owned()
    }
}

/// How many bytes the answer at the start of `buf` takes, if it is whole.
fn whole_answer(buf: &[u8]) -> Option<usize> {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut answer = httparse::Response::new(&mut headers);
    let httparse::Status::Complete(head) = answer.parse(buf).ok()? else {
        return None;
    };
    let length: usize = answer
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok()?.parse().ok())?;
    (buf.len() >= head + length).then_some(head + length)
}

/// Status, `connection` header and body of a whole answer.
fn parts(bytes: &[u8]) -> (u16, Option<String>, String) {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut answer = httparse::Response::new(&mut headers);
    let Ok(httparse::Status::Complete(head)) = answer.parse(bytes) else {
        return (0, None, String::new());
    };
    let connection = answer
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("connection"))
        .map(|h| String::from_utf8_lossy(h.value).into_owned());
    let body = String::from_utf8_lossy(&bytes[head..]).into_owned();
    (answer.code.unwrap_or(0), connection, body)
}

/// Runs one case's steps on a new connection to `addr`.
fn run_case(addr: SocketAddr, steps: &[Step]) -> Result<(), String> {
    let stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    let mut client = Client {
        stream,
        buf: Vec::new(),
    };
    let mut since = Instant::now();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Send(bytes) => {
                client
                    .stream
                    .write_all(bytes)
                    .map_err(|e| format!("step {i}: write: {e}"))?;
            }
            Step::Answer {
                status,
                connection,
                body,
                not_before,
            } => {
                let deadline = Instant::now() + Duration::from_secs(5);
                let answer = client
                    .read_until(deadline, whole_answer)
                    .map_err(|e| format!("step {i}: {e}"))?
                    .ok_or(format!("step {i}: closed instead of answering {status}"))?;
                let took = since.elapsed();
                let got = parts(&answer);
                let want = (*status, connection.map(str::to_owned), (*body).to_owned());
                if got != want {
                    return Err(format!("step {i}: got {got:?}, expected {want:?}"));
                }
                if took < *not_before {
                    return Err(format!(
                        "step {i}: answered after {took:?}, before {not_before:?}"
                    ));
                }
            }
            Step::Closed { not_before, within } => {
                let closed = client.read_until(since + *within, |_| None);
                let took = since.elapsed();
                match closed {
                    Ok(None) if took >= *not_before => {}
                    Ok(None) => {
                        return Err(format!(
                            "step {i}: closed after {took:?}, before {not_before:?}"
                        ))
                    }
                    Ok(Some(_)) | Err(_) => {
                        return Err(format!(
                            "step {i}: not closed within {within:?}: {:?}",
                            client.text()
                        ))
                    }
                }
            }
        }
        since = Instant::now();
    }
    Ok(())
}

#[test]
fn the_connection_loop_keeps_its_promises_on_both_executors() {
    let mut failures = Vec::new();
    for executor in [Executor::PlatformThreads, Executor::VirtualThreads] {
        let server = Running::start(executor);
        let cases = cases();
        // Each case on its own connection, all at once: the timeouts then
        // overlap instead of adding up.
        let results: Vec<(&str, Result<(), String>)> = std::thread::scope(|scope| {
            let running: Vec<_> = cases
                .iter()
                .map(|(name, steps)| (*name, scope.spawn(|| run_case(server.addr, steps))))
                .collect();
            running
                .into_iter()
                .map(|(name, case)| (name, case.join().unwrap_or(Err("panicked".into()))))
                .collect()
        });
        for (name, result) in results {
            if let Err(e) = result {
                failures.push(format!("{executor:?}, {name}: {e}"));
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
