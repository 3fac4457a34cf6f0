//! The connection layer: the accept loop, hyper's HTTP/1.1 connections on
//! a socket whose every request the contract's rules check first
//! ([`crate::scanned_io`]), the contract's own answers where hyper would
//! answer without our error body (a request the contract refuses, a head
//! that does not arrive in time), the timeout between requests
//! ([`crate::idle_timeout`]), and the graceful drain at shutdown.
//!
//! We drive hyper ourselves instead of calling `axum::serve` because
//! `axum::serve` offers no header read timeout, and without one a client that
//! sends its head a byte a second holds a connection forever (the slow-client
//! case of the reliability issue). Every connection is a task on the runtime,
//! not a thread: 10,000 open connections cost 10,000 small tasks. The twin is
//! the blocking server's connector (crates/blocking-server/src/connector/),
//! where each request being handled holds a pool thread until it is answered.
//!
//! Memory per open connection is mostly hyper's: an 8 KiB read buffer and an
//! 8 KiB write buffer (its minimum; no builder setting goes lower), plus the
//! handler's future while a request is in flight. A 10,000-connection burst
//! on `/users/{id}` peaked near 290 MB here, and once every connection had
//! closed (no tasks left, 22 file descriptors) glibc kept about 200 MB of the
//! freed memory mapped; repeated bursts level off near 410 MB peak, 310 MB
//! after. That is the allocator holding free memory, not a leak: with jemalloc
//! preloaded and purging in the background the same burst went back to 19 MB.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use contract::head::split_target;
use contract::request_scan::Refusal;
use contract::routes::{label_of, UNMATCHED};
use contract::ApiError;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use server_metrics::metrics::RequestCounters;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::drain_signal::{self, DrainSignal};
use crate::idle_timeout::{Activity, ConnectionService};
use crate::request_limits::HYPER_MAX_HEAD_BYTES;
use crate::scanned_io::ScannedIo;

/// How long the accept loop pauses after an accept error. Under a connection
/// burst the process can run out of file descriptors (EMFILE); accepting again
/// at once would spin, and giving up would stop the server for good.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// hyper's side of one connection: HTTP/1.1 on the scanned socket.
type HyperConnection = http1::Connection<TokioIo<ScannedIo>, ConnectionService>;

/// What every connection task needs besides its socket.
struct ConnectionContext {
    /// hyper's settings.
    http: http1::Builder,
    /// How long a client may take to send a head: the first one from the
    /// connection's start, each later one from the previous answer
    /// (crate::idle_timeout).
    header_read_timeout: Duration,
    /// How long a body may take, from the end of its head
    /// (crate::scanned_io).
    body_read_timeout: Duration,
    router: Router,
    counters: &'static RequestCounters,
}

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting, lets in-flight requests finish (each answered with
/// `Connection: close`; a request whose body is still arriving is in
/// flight too), closes idle keep-alive connections, and returns when
/// all are done or `drain_timeout` has passed. At most `max_connections` are
/// open at once; past it new clients wait in the listen backlog.
#[allow(
    clippy::too_many_arguments,
    reason = "each is one setting of the connection layer, named at the one call"
)]
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    counters: &'static RequestCounters,
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    drain_timeout: Duration,
    max_connections: usize,
    mut shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
) {
    let mut http = http1::Builder::new();
    http.keep_alive(true)
        // No `header_read_timeout` (and so no timer): the time allowed
        // between requests on a keep-alive connection is kept by the
        // connection's own task (crate::idle_timeout), which is much cheaper
        // per request than hyper's.
        //
        // hyper's header-count limit stays at its default, 100, which is
        // `contract::head::MAX_HEADERS`, so no head the contract's scan
        // accepted (crate::scanned_io) is one hyper refuses. Raising it
        // (`max_headers`) would also make hyper allocate its header index
        // array on the heap for every request.
        .max_header_size(HYPER_MAX_HEAD_BYTES);
    let context = Arc::new(ConnectionContext {
        http,
        header_read_timeout,
        body_read_timeout,
        router,
        counters,
    });

    // The drain, mini-redis style: `stop` tells every connection to finish its
    // current request and close (crate::drain_signal); each connection task
    // holds a clone of `still_open`, so `all_closed.recv()` returns `None`
    // once every task is done.
    let (stop, stop_rx) = drain_signal::channel();
    let (still_open, mut all_closed) = mpsc::channel::<()>(1);
    // The connection cap, mini-redis style: a permit per open connection,
    // taken before `accept` and held by the connection's task. At the cap
    // the loop waits for one to close (contract::open_files says why).
    let permits = Arc::new(Semaphore::new(
        max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));

    loop {
        let permit = tokio::select! {
            biased;
            () = &mut shutdown => break,
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                // Nothing closes it; were it closed, no connection could
                // be counted.
                Err(_closed) => break,
            },
        };
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "accepting a connection failed; pausing");
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        tokio::spawn(serve_connection(
            stream,
            context.clone(),
            stop_rx.clone(),
            (still_open.clone(), permit),
        ));
    }

    // Closing the listener makes new connections fail at once rather than wait
    // in the backlog of a server that will never answer them.
    drop(listener);
    let open = still_open.strong_count() - 1;
    tracing::info!(
        open_connections = open,
        ?drain_timeout,
        "shutting down: draining connections"
    );
    stop.begin();
    drop(still_open);
    tokio::select! {
        _ = all_closed.recv() => tracing::info!("all connections drained"),
        () = tokio::time::sleep(drain_timeout) => {
            tracing::warn!(?drain_timeout, "drain timeout passed with connections still open; stopping anyway");
        }
    }
}

/// One connection, from accept to close. It holds `_open` until it ends:
/// the drain's count of open connections and its place under the cap.
async fn serve_connection(
    stream: TcpStream,
    context: Arc<ConnectionContext>,
    mut stop: DrainSignal,
    _open: (mpsc::Sender<()>, OwnedSemaphorePermit),
) {
    // Small JSON answers: send them now rather than wait for Nagle.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "setting TCP_NODELAY failed");
    }

    let activity = Activity::new();
    let io = ScannedIo::new(stream, context.body_read_timeout, activity.clone());
    let mut connection = context.http.serve_connection(
        TokioIo::new(io),
        ConnectionService::new(context.router.clone(), activity.clone()),
    );
    // Polled after the connection (`biased`), so a head that has arrived has
    // begun its request before the idle watch looks (crate::idle_timeout).
    let idle = activity.idle_for(context.header_read_timeout);
    tokio::pin!(idle);
    let finished = drive(&mut connection, idle, &activity, &mut stop).await;
    if let Some(Err(e)) = &finished {
        // Resets, clients that vanish: routine under load.
        tracing::debug!(error = %e, "connection ended with an error");
    }
    // hyper has let go of the socket: it finished (every answer it began is
    // written), or the idle watch fired. What is left to answer is ours.
    let mut io = connection.into_parts().io.into_inner();
    if let Some((refusal, elapsed)) = io.take_refusal() {
        answer_refusal(io.into_stream(), refusal, elapsed, context.counters).await;
    } else if finished.is_none() && io.holds_part_of_a_head() {
        // No request for the timeout, and part of a head: a client that
        // began a request and did not finish its head in time. Nothing at
        // all is an idle connection, just closed.
        let unmatched = CountedAs {
            route: UNMATCHED,
            method: "",
            elapsed: Duration::ZERO,
        };
        let error = ApiError::request_timeout();
        answer_and_close(io.into_stream(), &error, context.counters, unmatched).await;
    }
}

/// One connection's hyper connection, driven until it ends (`Some`, with
/// how) or the idle watch fires (`None`), through three phases; in each the
/// task sleeps until the socket, a timer or the drain wakes it, and the
/// worker serves other connections meanwhile.
///
/// 1. Serving: requests are read, handled and answered, until the drain
///    begins.
/// 2. The drain has begun: every answer from now on says `Connection:
///    close`. A request whose head has come but whose body is still
///    arriving is not hyper's yet (crate::scanned_io keeps it back until
///    it is whole), and hyper's graceful shutdown would close a connection
///    it thinks idle at once, dropping that request. So the task waits
///    until the body is whole and the request hyper's (or refused, or cut
///    off by its deadline); the drain timeout ([`serve`]) and a second
///    SIGTERM (crate::cli) still bound the wait.
/// 3. Closing: hyper's graceful shutdown finishes the requests in flight,
///    each answered with `Connection: close`, or closes at once if there
///    are none. A client halfway through a head is closed too, unanswered.
async fn drive(
    connection: &mut HyperConnection,
    mut idle: Pin<&mut impl Future<Output = ()>>,
    activity: &Activity,
    stop: &mut DrainSignal,
) -> Option<hyper::Result<()>> {
    // In each phase hyper is polled first (`biased`): a whole request
    // already read is begun before the drain or the idle watch looks.
    tokio::select! {
        biased;
        result = &mut *connection => return Some(result),
        () = &mut idle => return None,
        () = stop.begun() => {}
    }
    activity.close_after_answers();
    tokio::select! {
        biased;
        result = &mut *connection => return Some(result),
        () = &mut idle => return None,
        () = activity.no_body_arriving() => {}
    }
    Pin::new(&mut *connection).graceful_shutdown();
    tokio::select! {
        biased;
        result = &mut *connection => Some(result),
        () = &mut idle => None,
    }
}

/// The contract's answer to a request crate::scanned_io refused, counted
/// as the blocking server counts it (crates/blocking-server/src/handlers.rs,
/// `refuse`): under its route when its head was whole (its body was refused),
/// else as unmatched with no time taken; a body past its deadline is counted
/// apart too.
async fn answer_refusal(
    stream: TcpStream,
    refusal: Refusal,
    elapsed: Duration,
    counters: &RequestCounters,
) {
    let error = &refusal.error;
    tracing::debug!(%error, "request refused");
    let counted = match &refusal.head {
        Some(head) => CountedAs {
            route: label_of(split_target(&head.target).0).unwrap_or(UNMATCHED),
            method: head.method.as_str(),
            elapsed,
        },
        None => CountedAs {
            route: UNMATCHED,
            method: "",
            elapsed: Duration::ZERO,
        },
    };
    if refusal.head.is_some() && error.kind == contract::error::ErrorKind::RequestTimeout {
        counters.body_timed_out();
    }
    answer_and_close(stream, error, counters, counted).await;
}

/// What an answer of the connection layer is counted under in
/// `http_server_requests_seconds`.
struct CountedAs<'a> {
    route: &'static str,
    method: &'a str,
    /// From the end of the request's head; zero for a refused head.
    elapsed: Duration,
}

/// The contract's error answer from the connection layer itself, where no
/// request reached the router: a refused request (crate::scanned_io), or
/// 408 for a head that did not arrive in time; counted as `counted` says once it is
/// written (before the lingering close, as the blocking server counts its
/// refusals before it writes them). Then the connection is closed, the way
/// the blocking server closes it (crates/blocking-server/src/http/write.rs,
/// `linger_close`): stop writing, read and drop what the client is still
/// sending for a short while, then close, so the kernel does not answer the
/// unread input with a reset that could overtake our answer.
async fn answer_and_close(
    mut stream: TcpStream,
    error: &ApiError,
    counters: &RequestCounters,
    counted: CountedAs<'_>,
) {
    const WRITE_FOR: Duration = Duration::from_secs(1);
    const LINGER_FOR: Duration = Duration::from_secs(2);
    const LINGER_MAX_BYTES: usize = 1024 * 1024;

    counters.started();
    let status = axum::http::StatusCode::from_u16(error.status())
        .unwrap_or(axum::http::StatusCode::BAD_REQUEST);
    let body = error.body_json();
    let mut answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    // Bounded: a client too slow to send its head may be too slow to read too.
    let write = async {
        stream.write_all(&answer).await?;
        stream.shutdown().await
    };
    let written = tokio::time::timeout(WRITE_FOR, write).await;
    counters.finished(
        counted.route,
        counted.method,
        error.status(),
        counted.elapsed,
    );
    match written {
        Ok(Ok(())) => {
            let linger = async {
                let mut scratch = [0u8; 8192];
                let mut drained = 0;
                while drained < LINGER_MAX_BYTES {
                    match stream.read(&mut scratch).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => drained += n,
                    }
                }
            };
            let _ = tokio::time::timeout(LINGER_FOR, linger).await;
        }
        Ok(Err(e)) => {
            tracing::debug!(error = %e, status = status.as_u16(), "sending an error answer failed")
        }
        Err(_) => tracing::debug!(
            status = status.as_u16(),
            "sending an error answer timed out"
        ),
    }
}
