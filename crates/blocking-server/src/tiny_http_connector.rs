//! The card's blocking server: the same handlers behind tiny_http 0.12 and a
//! pool of `recv()` threads (`--connector tiny-http`), instead of our
//! Tomcat-shaped connector (`--connector nio`, the default, `src/connector`).
//!
//! ```text
//!  tiny_http's accept thread ──new connection──▶ tiny_http's task pool:
//!      ONE reader thread PER OPEN CONNECTION, blocked in read(2) until the
//!      next request head (and a body of up to 1 KiB) has arrived
//!                                  │ a request
//!                                  ▼
//!                    tiny_http's message queue
//!                                  │
//!        recv-0 … recv-199: blocked in `Server::recv()` until a request is
//!        queued; then read its body, run the handler (blocks on Postgres /
//!        Redis / sleep / CPU), write the answer
//! ```
//!
//! What each thread does while it waits is the lesson: a `recv()` thread
//! waits for a request and then for the handler, as a handler thread of the
//! nio connector does; but every open connection also holds one of
//! tiny_http's reader threads, even an idle keep-alive one, so the thread
//! count grows with connections (the nio connector's idle connections sit in
//! one epoll poller instead). That pool only starts a thread when none is
//! idle, which is why a burst of connections can leave some unanswered (see
//! the cold-start probe, `net_tools::cold_start`, and docs/servers.md's "Why not tiny_http").
//!
//! tiny_http reads the head itself, so some requests never reach our code
//! and get tiny_http's answer, not the contract's JSON (each is asserted in
//! tests/tests/suites/tiny_http_differences.rs): a malformed request line or header
//! (400, empty body), an `Expect` other than `100-continue` (417, empty
//! body), an HTTP version above 1.1 (no answer at all: tiny_http's 505 waits
//! behind the refused request and that reader thread hangs), and no header
//! timeout at all (a head that never finishes holds its reader thread, no
//! 408). What it lets through, this layer checks as the contract says: the
//! head's size (431), the framing (`contract::framing`, 400) and the body's
//! size (413). The body deadline (`--body-read-timeout-ms`) holds only
//! partly: a body over 1 KiB sent slowly gets the contract's 408 at the
//! deadline, but tiny_http then reads the rest of it on the `recv()` thread
//! before it lets go of the request, and keeps the connection; a body of up
//! to 1 KiB is read by tiny_http before our code sees the request, with no
//! deadline at all. An HTTP/1.0 client asking for keep-alive gets
//! `Connection: keep-alive` in the answer, which tiny_http does not write
//! itself (see [`respond_keeping_http10_connection`]).
//!
//! Shutdown: `Server::unblock` once per `recv()` thread; each finishes the
//! requests already queued ahead of its unblock, then exits. tiny_http keeps
//! accepting (and its reader threads keep reading) until the `Server` is
//! dropped, which happens after the last `recv()` thread has exited; keep-alive
//! connections are not told to close. After the drain timeout `serve` returns
//! with the threads still running, as the nio connector does.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use contract::framing::{body_framing, BodyFraming};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use contract::ApiError;
use crossbeam_channel::Receiver;

use crate::http::{Handler, HeadSeen, Refused, Request};
use crate::settings::ServeConfig;

/// Serves `listener` through tiny_http with `config.handler_threads` threads
/// calling `recv()`, until `shutdown` receives a message or its sender is
/// dropped; then drains as far as tiny_http allows (see the module comment).
pub(crate) fn serve(
    listener: TcpListener,
    config: &ServeConfig,
    handler: Arc<Handler>,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    let server = tiny_http::Server::from_listener(listener, None)
        .map_err(|e| anyhow::anyhow!("starting tiny_http: {e}"))?;
    let server = Arc::new(server);

    // As in the nio connector: when the last thread drops its clone of
    // `alive`, `all_exited` disconnects.
    let (alive, all_exited) = crossbeam_channel::bounded::<()>(0);
    for i in 0..config.handler_threads {
        let (server, handler, alive) = (Arc::clone(&server), Arc::clone(&handler), alive.clone());
        let body_timeout = config.timeouts.body;
        thread::Builder::new()
            .name(format!("recv-{i}"))
            .spawn(move || {
                // `recv` fails once it pops one of the unblocks of shutdown.
                while let Ok(request) = server.recv() {
                    serve_one(request, handler.as_ref(), body_timeout);
                }
                drop(alive);
            })
            .context("spawning a recv() thread")?;
    }
    drop(alive);
    tracing::info!(
        handler_threads = config.handler_threads,
        "serving through tiny_http: {} recv() threads, one tiny_http reader thread per open connection",
        config.handler_threads
    );

    let _ = shutdown.recv();
    let deadline = std::time::Instant::now() + config.drain_timeout;
    tracing::info!("shutting down: unblocking the recv() threads, draining queued requests");
    for _ in 0..config.handler_threads {
        server.unblock();
    }
    // The recv() threads hold the other clones: the listener closes when the
    // last of them exits.
    drop(server);
    crate::connector::wait_for_drain(&all_exited, deadline, config.drain_timeout);
    Ok(())
}

/// One request on a `recv()` thread: read it into our `Request`, run the
/// handler, write the answer.
fn serve_one(mut incoming: tiny_http::Request, handler: &Handler, body_timeout: Duration) {
    // tiny_http has read the head (and a body of up to 1 KiB) by now.
    let head_at = Instant::now();
    let response = match read_request(&mut incoming, head_at, body_timeout) {
        Ok(request) => handler(Ok(&request)),
        Err(refused) => handler(Err(refused)),
    };
    let mut answer = tiny_http::Response::from_data(response.body)
        .with_status_code(response.status)
        // tiny_http switches to chunked at 32 KiB by default; `/metrics` and
        // every other answer are sent with a length, as the nio connector does.
        .with_chunked_threshold(usize::MAX);
    for (name, value) in [
        Some(("Content-Type", response.content_type)),
        response.allow.map(|allow| ("Allow", allow)),
    ]
    .into_iter()
    .flatten()
    {
        if let Ok(header) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            answer.add_header(header);
        }
    }
    let written = if keeps_http10_connection(&incoming) {
        respond_keeping_http10_connection(incoming, answer)
    } else {
        // tiny_http leaves the body out of a HEAD answer itself.
        incoming.respond(answer)
    };
    if let Err(e) = written {
        tracing::debug!(error = %e, "writing the answer failed");
    }
}

/// Whether tiny_http will keep this connection open after the answer
/// although the request is HTTP/1.0: its own rule (the first `Connection`
/// header, lower-cased, names `keep-alive` and neither `close` nor
/// `upgrade`; tiny_http 0.12's client.rs).
fn keeps_http10_connection(incoming: &tiny_http::Request) -> bool {
    if *incoming.http_version() != tiny_http::HTTPVersion(1, 0) {
        return false;
    }
    let connection = incoming
        .headers()
        .iter()
        .find(|h| h.field.equiv("Connection"))
        .map(|h| h.value.as_str().to_ascii_lowercase());
    connection.is_some_and(|value| {
        value.contains("keep-alive") && !value.contains("close") && !value.contains("upgrade")
    })
}

/// Writes tiny_http's own answer plus the `Connection: keep-alive` line an
/// HTTP/1.0 client needs to know the connection stays open: tiny_http keeps
/// such a connection open but drops any `Connection` header it is given, so
/// a client waiting for the close that HTTP/1.0 implies (ApacheBench's
/// `ab -k`) would wait for its own timeout. The answer is tiny_http's bytes
/// (`Response::raw_print`), the header inserted after the status line, and
/// sent through the request's writer, which tiny_http hands out for this.
fn respond_keeping_http10_connection(
    incoming: tiny_http::Request,
    answer: tiny_http::Response<std::io::Cursor<Vec<u8>>>,
) -> std::io::Result<()> {
    let head_only = *incoming.method() == tiny_http::Method::Head;
    let mut bytes = Vec::new();
    answer.raw_print(
        &mut bytes,
        tiny_http::HTTPVersion(1, 0),
        incoming.headers(),
        head_only,
        None,
    )?;
    let status_line_end = bytes
        .windows(2)
        .position(|pair| pair == b"\r\n")
        .map_or(bytes.len(), |at| at + 2);
    bytes.splice(
        status_line_end..status_line_end,
        b"Connection: keep-alive\r\n".iter().copied(),
    );
    let mut writer = incoming.into_writer();
    writer.write_all(&bytes)?;
    writer.flush()
}

/// Our `Request` from tiny_http's, with the contract's checks tiny_http does
/// not make: head size, framing, body size, and the body deadline.
fn read_request(
    incoming: &mut tiny_http::Request,
    head_at: Instant,
    body_timeout: Duration,
) -> Result<Request, Refused> {
    let headers: Vec<(&str, &str)> = incoming
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str(), h.value.as_str()))
        .collect();
    // tiny_http reads a head of any size; the contract's limit is checked
    // after the fact (request line + each `name: value\r\n` + the blank line).
    let head_bytes = incoming.method().as_str().len()
        + incoming.url().len()
        + "  HTTP/1.1\r\n\r\n".len()
        + headers
            .iter()
            .map(|(n, v)| n.len() + v.len() + 4)
            .sum::<usize>();
    if head_bytes > MAX_HEADER_BYTES {
        return Err(Refused::in_head(ApiError::headers_too_large()));
    }
    let http10 = *incoming.http_version() == tiny_http::HTTPVersion(1, 0);
    let framing = body_framing(headers.iter().map(|(n, v)| (*n, v.as_bytes())), http10)
        .map_err(Refused::in_head)?;
    let content_type = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| (*v).to_owned());
    if let BodyFraming::Length(n) = framing {
        if n > MAX_BODY_BYTES {
            return Err(Refused::in_head(ApiError::payload_too_large()));
        }
    }
    let method = incoming.method().as_str().to_owned();
    // Origin-form or absolute-form, split as the nio connector splits it.
    let (path, query) = contract::head::split_target(incoming.url());
    let (path, query) = (path.to_owned(), query.map(str::to_owned));
    let mut body = Vec::new();
    if framing != BodyFraming::None {
        let deadline = head_at + body_timeout;
        if let Err(error) = read_body(incoming.as_reader(), &mut body, deadline) {
            let head = HeadSeen {
                method,
                path,
                at: head_at,
            };
            return Err(Refused {
                error,
                head: Some(head),
            });
        }
    }
    Ok(Request {
        method,
        path,
        query,
        content_type,
        body,
        // tiny_http decides persistence itself from the request's headers.
        keep_alive: true,
        http10,
        // tiny_http queues requests inside itself and does not say for how
        // long: no figure (not a zero) in /metrics.
        queue_wait: None,
        head_at,
    })
}

/// Reads the body into `body` (tiny_http decodes a chunked one itself; the
/// size limit holds either way), checking the deadline after every read.
/// That bounds a body dripped byte by byte; it cannot bound a read that
/// gets nothing at all, since tiny_http keeps the socket to itself, and a
/// body of up to 1 KiB was read by tiny_http before this runs
/// (tests/tests/suites/tiny_http_differences.rs asserts both).
fn read_body(reader: &mut dyn Read, body: &mut Vec<u8>, deadline: Instant) -> Result<(), ApiError> {
    let mut chunk = [0u8; 8 * 1024];
    loop {
        if Instant::now() >= deadline {
            return Err(ApiError::body_timeout());
        }
        match reader.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                body.extend_from_slice(&chunk[..n]);
                if body.len() > MAX_BODY_BYTES {
                    return Err(ApiError::payload_too_large());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(contract::framing::malformed("body")),
        }
    }
}
