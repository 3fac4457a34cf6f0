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
//! bench's cold-start probe, `bench::cold_start`, and the README's "Why not tiny_http").
//!
//! tiny_http reads the head itself, so some requests never reach our code
//! and get tiny_http's answer, not the contract's JSON (each is asserted in
//! tests/tests/tiny_http_differences.rs): a malformed request line or header
//! (400, empty body), an `Expect` other than `100-continue` (417, empty
//! body), an HTTP version above 1.1 (505, a text body), and no header
//! timeout at all (a head that never finishes holds its reader thread, no
//! 408). What it lets through, this layer checks as the contract says: the
//! head's size (431), the framing (`contract::framing`, 400) and the body's
//! size (413).
//!
//! Shutdown: `Server::unblock` once per `recv()` thread; each finishes the
//! requests already queued ahead of its unblock, then exits. tiny_http keeps
//! accepting (and its reader threads keep reading) until the `Server` is
//! dropped, which happens after the last `recv()` thread has exited; keep-alive
//! connections are not told to close. After the drain timeout `serve` returns
//! with the threads still running, as the nio connector does.

use std::io::Read;
use std::net::TcpListener;
use std::sync::Arc;
use std::thread;

use anyhow::Context as _;
use contract::framing::{body_framing, BodyFraming};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use contract::ApiError;
use crossbeam_channel::Receiver;

use crate::connector::{ConnectorConfig, Handler};
use crate::http::Request;

/// Serves `listener` through tiny_http with `config.handler_threads` threads
/// calling `recv()`, until `shutdown` receives a message or its sender is
/// dropped; then drains as far as tiny_http allows (see the module comment).
pub(crate) fn serve(
    listener: TcpListener,
    config: ConnectorConfig,
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
        thread::Builder::new()
            .name(format!("recv-{i}"))
            .spawn(move || {
                // `recv` fails once it pops one of the unblocks of shutdown.
                while let Ok(request) = server.recv() {
                    serve_one(request, handler.as_ref());
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
fn serve_one(mut incoming: tiny_http::Request, handler: &Handler) {
    let response = match read_request(&mut incoming) {
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
    // tiny_http leaves the body out of a HEAD answer itself.
    if let Err(e) = incoming.respond(answer) {
        tracing::debug!(error = %e, "writing the answer failed");
    }
}

/// Our `Request` from tiny_http's, with the contract's checks tiny_http does
/// not make: head size, framing, body size.
fn read_request(incoming: &mut tiny_http::Request) -> Result<Request, ApiError> {
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
        return Err(ApiError::headers_too_large());
    }
    let http10 = *incoming.http_version() == tiny_http::HTTPVersion(1, 0);
    let framing = body_framing(headers.iter().map(|(n, v)| (*n, v.as_bytes())), http10)?;
    let content_type = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| (*v).to_owned());
    if let BodyFraming::Length(n) = framing {
        if n > MAX_BODY_BYTES {
            return Err(ApiError::payload_too_large());
        }
    }
    // tiny_http decodes a chunked body itself; the limit holds either way.
    let mut body = Vec::new();
    if framing != BodyFraming::None {
        incoming
            .as_reader()
            .take(MAX_BODY_BYTES as u64 + 1)
            .read_to_end(&mut body)
            .map_err(|_| contract::framing::malformed("body"))?;
        if body.len() > MAX_BODY_BYTES {
            return Err(ApiError::payload_too_large());
        }
    }
    let (path, query) = match incoming.url().split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (incoming.url().to_owned(), None),
    };
    Ok(Request {
        method: incoming.method().as_str().to_owned(),
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
    })
}
