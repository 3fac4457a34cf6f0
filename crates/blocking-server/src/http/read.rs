//! Reading one request from a socket, with every wait bounded.
//!
//! On platform threads the head is read the way Tomcat's NIO connector reads
//! it: only the bytes already there (`recv` with `MSG_DONTWAIT`). If the head
//! is not complete, [`read_request`] says [`ReadOutcome::NeedMore`] and the
//! connection goes back to the poller with the bytes so far, so a client
//! that sends its head slowly waits in the poller, not on a handler thread.
//! On virtual threads the coroutine waits for it itself, parked
//! ([`HeadWait`]). Either way the head must be complete within
//! `--header-read-timeout-ms` of its first byte, else 408, and the checks
//! are the same, in the same order.
//!
//! The body, once the head is in, is read with blocking reads (as a servlet's
//! `InputStream` does on Tomcat): the thread waits in `read(2)`, each read
//! bounded by the time left before one deadline for the whole body,
//! `--body-read-timeout-ms` after the end of the head (Tomcat's
//! `connectionUploadTimeout` is the nearest; a per-read timeout such as
//! nginx's `client_body_timeout` never trips on a body dripped a byte at a
//! time). Past it the request gets 408 and the connection is closed. So a
//! slow upload does hold a handler thread (or, on virtual threads, a
//! parked coroutine), for at most that long.
//!
//! Every rule a request's bytes must follow is the contract's, shared with
//! the async server's request scanner (contract::request_scan): the head's
//! (`contract::head::parse_head`), a chunked body's
//! (`contract::chunked::ChunkedBody`), and a body cut short by the client's
//! close (`contract::framing::body_cut_short`, 400).

use std::io;
use std::time::{Duration, Instant};

use contract::chunked::{Chunk, ChunkedBody};
use contract::framing::{body_cut_short, BodyFraming};
use contract::head::{header_slots, split_target};
use contract::ApiError;

use super::{Connection, HeadSeen, Refused, Request, Socket};

/// How much one `read(2)` asks for.
const READ_CHUNK: usize = 8 * 1024;

/// The two deadlines of reading a request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadTimeouts {
    /// From the head's first byte to its end (`--header-read-timeout-ms`).
    pub(crate) head: Duration,
    /// From the head's end to the body's last byte (`--body-read-timeout-ms`).
    pub(crate) body: Duration,
}

/// What reading one request gave.
#[derive(Debug)]
pub(crate) enum ReadOutcome {
    Request(Request),
    /// The connection ended before a new request began (the client closed an
    /// idle keep-alive connection, or a read failed): close without answering.
    Closed,
    /// Answer this error, then close: the rest of the input cannot be trusted.
    Reject(Refused),
    /// The head is not complete and no more bytes are there yet: wait for
    /// them in the poller (the bytes so far stay in the connection's buffer).
    NeedMore,
}

/// Why reading stopped short of a request (the non-request outcomes).
enum Stop {
    Closed,
    Reject(ApiError),
    NeedMore,
}

impl Stop {
    /// The outcome of stopping here; `head` is the head already read, if any.
    fn outcome(self, head: Option<HeadSeen>) -> ReadOutcome {
        match self {
            Stop::Closed => ReadOutcome::Closed,
            Stop::Reject(error) => ReadOutcome::Reject(Refused { error, head }),
            Stop::NeedMore => ReadOutcome::NeedMore,
        }
    }
}

/// Why a read failed.
enum ReadFailure {
    /// The peer closed its side (the read returned no bytes).
    Ended,
    /// An I/O error (a reset).
    Gone,
    /// The deadline passed.
    TimedOut,
}

/// Where the reader of a connection waits for a request head that is not
/// all there yet.
#[derive(Debug, Clone, Copy)]
pub(crate) enum HeadWait {
    /// Not on this thread: only the bytes already there are read, and a head
    /// that is not complete is [`ReadOutcome::NeedMore`], the connection
    /// handed to the poller to wait for the rest (platform threads, as
    /// Tomcat's NIO connector does).
    InPoller,
    /// Here, the reader waiting in the read (virtual threads: a coroutine
    /// parked in may's reactor): for the first byte of a head until the
    /// keep-alive timeout, then [`ReadOutcome::Closed`] to close quietly.
    Here { keep_alive: Duration },
}

/// Reads the next request from `conn`. `conn.buf` holds bytes already read
/// from this connection and not yet used (a pipelined request, or the start
/// of a head); on return it holds the bytes after this request. Where a
/// head that is not all there is waited for is `wait`'s; from its first
/// byte it must be complete within `timeouts.head`, else 408 (a head that
/// waited in the poller is checked when it comes back). Once the head is in,
/// `at_head` is called (the request is in progress from there: a drain lets
/// it finish) and the body is read, whatever `wait` says, with reads that
/// wait, by `timeouts.body`.
pub(crate) fn read_request<S: Socket>(
    conn: &mut Connection<S>,
    timeouts: ReadTimeouts,
    wait: HeadWait,
    at_head: impl FnOnce(),
) -> ReadOutcome {
    // Until when an idle keep-alive connection waits for a new head (set
    // once, the first time this reader waits).
    let mut idle_until = None;
    let head = loop {
        if conn.head_deadline.is_some_and(|d| Instant::now() >= d) {
            return ReadOutcome::Reject(Refused::in_head(ApiError::request_timeout()));
        }
        if !conn.buf.is_empty() {
            match parse_head(&conn.buf) {
                Ok(Some((head, head_len))) => {
                    conn.buf.drain(..head_len);
                    break head;
                }
                Ok(None) => {
                    conn.head_deadline
                        .get_or_insert_with(|| Instant::now() + timeouts.head);
                }
                Err(stop) => return stop.outcome(None),
            }
        }
        let more = match wait {
            HeadWait::InPoller => recv_now(&conn.stream, &mut conn.buf),
            HeadWait::Here { keep_alive } => {
                let idle = *idle_until.get_or_insert_with(|| Instant::now() + keep_alive);
                let until = conn.head_deadline.unwrap_or(idle);
                read_more(&mut conn.stream, &mut conn.buf, until).map_err(|failure| {
                    match failure {
                        ReadFailure::Ended | ReadFailure::Gone => Stop::Closed,
                        // A head begun and not finished in time.
                        ReadFailure::TimedOut if conn.head_deadline.is_some() => {
                            Stop::Reject(ApiError::request_timeout())
                        }
                        // An idle keep-alive connection past its timeout:
                        // closed quietly.
                        ReadFailure::TimedOut => Stop::Closed,
                    }
                })
            }
        };
        if let Err(stop) = more {
            return stop.outcome(None);
        }
    };
    conn.head_deadline = None;
    at_head();
    finish_request(&mut conn.stream, &mut conn.buf, head, timeouts)
}

/// The rest of a request once its head is in: the body, by its deadline.
fn finish_request<S: Socket>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    head: Head,
    timeouts: ReadTimeouts,
) -> ReadOutcome {
    let head_at = Instant::now();
    let body = match read_body(stream, buf, &head, head_at + timeouts.body) {
        Ok(body) => body,
        Err(stop) => {
            let seen = HeadSeen {
                method: head.method,
                path: head.path,
                at: head_at,
            };
            return stop.outcome(Some(seen));
        }
    };
    ReadOutcome::Request(Request {
        method: head.method,
        path: head.path,
        query: head.query,
        content_type: head.content_type,
        body,
        keep_alive: head.keep_alive,
        http10: head.http10,
        // Known to the connector, which sets it.
        queue_wait: None,
        head_at,
    })
}

/// The parts of a request head we use, owned (the parse borrows `buf`).
struct Head {
    method: String,
    path: String,
    query: Option<String>,
    content_type: Option<String>,
    keep_alive: bool,
    http10: bool,
    framing: BodyFraming,
    expect_continue: bool,
}

/// Appends the bytes already in the socket to `buf`, without waiting:
/// `Stop::NeedMore` when there are none yet (the poller waits for them),
/// `Stop::Closed` when the peer closed or the read failed. Before a byte of
/// a new request a close is the quiet end of a keep-alive connection; in
/// mid-head, nobody is left to read an answer either.
fn recv_now<S: Socket>(stream: &S, buf: &mut Vec<u8>) -> Result<(), Stop> {
    loop {
        let filled = buf.len();
        buf.resize(filled + READ_CHUNK, 0);
        let received = rustix::net::recv(
            stream.fd(),
            &mut buf[filled..],
            rustix::net::RecvFlags::DONTWAIT,
        );
        match received {
            Ok((_, n)) if n > 0 => {
                buf.truncate(filled + n);
                return Ok(());
            }
            Ok(_) => {
                buf.truncate(filled);
                return Err(Stop::Closed);
            }
            Err(rustix::io::Errno::AGAIN) => {
                buf.truncate(filled);
                return Err(Stop::NeedMore);
            }
            Err(rustix::io::Errno::INTR) => buf.truncate(filled),
            Err(_) => {
                buf.truncate(filled);
                return Err(Stop::Closed);
            }
        }
    }
}

/// Parses the head if it is complete: `Ok(None)` asks for more bytes. The
/// checks are the contract's (`contract::head::parse_head`, shared with the
/// async server's request scanner); what is left here is taking out what the
/// handler needs.
fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, Stop> {
    let mut slots = header_slots();
    let Some(parsed) = contract::head::parse_head(buf, &mut slots).map_err(refused)? else {
        return Ok(None);
    };
    // Origin-form or absolute-form (`GET http://host/health`), routed alike.
    let (path, query) = split_target(parsed.target);
    let (path, query) = (path.to_owned(), query.map(str::to_owned));

    let mut close = false;
    let mut keep_alive_token = false;
    let mut expect_continue = false;
    let mut content_type = None;
    for (name, value) in parsed.fields() {
        if name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                close |= token.eq_ignore_ascii_case("close");
                keep_alive_token |= token.eq_ignore_ascii_case("keep-alive");
            }
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue = value.trim().eq_ignore_ascii_case("100-continue");
        } else if name.eq_ignore_ascii_case("content-type") {
            content_type = Some(value.to_owned());
        }
    }

    let head = Head {
        method: parsed.method.to_owned(),
        path,
        query,
        content_type,
        keep_alive: if parsed.http10 {
            keep_alive_token
        } else {
            !close
        },
        http10: parsed.http10,
        framing: parsed.framing,
        expect_continue,
    };
    Ok(Some((head, parsed.len)))
}

/// Reads the body the head announced, all of it by `deadline`.
fn read_body<S: Socket>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    head: &Head,
    deadline: Instant,
) -> Result<Vec<u8>, Stop> {
    let needs_bytes = match head.framing {
        BodyFraming::None => return Ok(Vec::new()),
        BodyFraming::Length(n) => buf.len() < n,
        BodyFraming::Chunked => true,
    };
    if head.expect_continue && needs_bytes && buf.is_empty() {
        // curl waits for this before sending a body larger than 1 KiB.
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let failed = |failure| match failure {
        ReadFailure::TimedOut => Stop::Reject(ApiError::body_timeout()),
        // The client closed its side before the whole body: refused, and
        // answered, since a half-closed client can still read.
        ReadFailure::Ended => refused(body_cut_short()),
        ReadFailure::Gone => Stop::Closed,
    };
    match head.framing {
        BodyFraming::None => Ok(Vec::new()),
        BodyFraming::Length(n) => {
            while buf.len() < n {
                read_more(stream, buf, deadline).map_err(failed)?;
            }
            Ok(buf.drain(..n).collect())
        }
        BodyFraming::Chunked => read_chunked(stream, buf, deadline).map_err(|e| match e {
            ChunkedError::Read(failure) => failed(failure),
            ChunkedError::Reject(stop) => stop,
        }),
    }
}

enum ChunkedError {
    Read(ReadFailure),
    Reject(Stop),
}

impl From<ReadFailure> for ChunkedError {
    fn from(f: ReadFailure) -> Self {
        ChunkedError::Read(f)
    }
}

/// Decodes a chunked body by the contract's rules
/// (`contract::chunked::ChunkedBody`), refusing it as soon as a rule is
/// broken: a chunk over the body limit is refused at its size line.
fn read_chunked<S: Socket>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> Result<Vec<u8>, ChunkedError> {
    let mut chunked = ChunkedBody::new();
    let mut body = Vec::new();
    let mut pos = 0;
    loop {
        let step = chunked
            .next(buf, pos)
            .map_err(|error| ChunkedError::Reject(refused(error)))?;
        match step {
            Chunk::Data { start, end } => {
                body.extend_from_slice(&buf[start..end]);
                pos = end;
            }
            Chunk::Framing { end } => pos = end,
            Chunk::NeedMore => read_more(stream, buf, deadline)?,
            Chunk::End { end } => {
                buf.drain(..end);
                return Ok(body);
            }
        }
    }
}

/// Blocks until some bytes arrive (appended to `buf`), the peer closes, or
/// the deadline passes.
fn read_more<S: Socket>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> Result<(), ReadFailure> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(ReadFailure::TimedOut);
    }
    stream
        .set_read_timeout(Some(left))
        .map_err(|_| ReadFailure::Gone)?;
    let filled = buf.len();
    buf.resize(filled + READ_CHUNK, 0);
    let result = stream.read(&mut buf[filled..]);
    match result {
        Ok(0) => {
            buf.truncate(filled);
            Err(ReadFailure::Ended)
        }
        Ok(n) => {
            buf.truncate(filled + n);
            Ok(())
        }
        Err(e) => {
            buf.truncate(filled);
            match e.kind() {
                // SO_RCVTIMEO expiring shows up as EAGAIN on Linux.
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Err(ReadFailure::TimedOut),
                io::ErrorKind::Interrupted => Ok(()),
                _ => Err(ReadFailure::Gone),
            }
        }
    }
}

fn refused(error: ApiError) -> Stop {
    tracing::debug!(%error, "request refused");
    Stop::Reject(error)
}
