//! The connection layer: the accept loop, hyper's HTTP/1.1 connections, the
//! 408 for a request head that does not arrive in time, and the graceful
//! drain at shutdown.
//!
//! We drive hyper ourselves instead of calling `axum::serve` because
//! `axum::serve` offers no header read timeout, and without one a client that
//! sends its head a byte a second holds a connection forever (the slow-client
//! case of the reliability issue). Every connection is a task on the runtime,
//! not a thread: 10,000 open connections cost 10,000 small tasks. The twin is
//! the blocking server's connector (crates/blocking-server/src/connector/),
//! where each request being handled holds a pool thread until it is answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use contract::metrics::RequestCounters;
use contract::routes::UNMATCHED;
use contract::ApiError;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use crate::request_limits::HYPER_MAX_HEAD_BYTES;

/// How long the accept loop pauses after an accept error. Under a connection
/// burst the process can run out of file descriptors (EMFILE); accepting again
/// at once would spin, and giving up would stop the server for good.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// What every connection task needs besides its socket.
struct ConnectionContext {
    http: http1::Builder,
    router: Router,
    counters: Arc<RequestCounters>,
}

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting, lets in-flight requests finish (each answered with
/// `Connection: close`), closes idle keep-alive connections, and returns when
/// all are done or `drain_timeout` has passed.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    counters: Arc<RequestCounters>,
    header_read_timeout: Duration,
    drain_timeout: Duration,
    mut shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .keep_alive(true)
        // Starts when hyper begins waiting for a request head — also between
        // requests on a keep-alive connection, so it is the idle timeout too
        // (Tomcat's keepAliveTimeout also defaults to its connection timeout).
        // An idle connection is closed quietly; a half-sent head gets a 408,
        // see `answer_head_timeout`.
        .header_read_timeout(header_read_timeout)
        .max_header_size(HYPER_MAX_HEAD_BYTES);
    let context = Arc::new(ConnectionContext {
        http,
        router,
        counters,
    });

    // The drain, mini-redis style: `stop` tells every connection to finish its
    // current request and close; each connection task holds a clone of
    // `still_open`, so `all_closed.recv()` returns `None` once every task is done.
    let (stop, stop_rx) = watch::channel(false);
    let (still_open, mut all_closed) = mpsc::channel::<()>(1);

    loop {
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
            still_open.clone(),
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
    let _ = stop.send(true);
    drop(still_open);
    tokio::select! {
        _ = all_closed.recv() => tracing::info!("all connections drained"),
        () = tokio::time::sleep(drain_timeout) => {
            tracing::warn!(?drain_timeout, "drain timeout passed with connections still open; stopping anyway");
        }
    }
}

/// One connection, from accept to close.
async fn serve_connection(
    stream: TcpStream,
    context: Arc<ConnectionContext>,
    mut stop: watch::Receiver<bool>,
    _still_open: mpsc::Sender<()>,
) {
    // Small JSON answers: send them now rather than wait for Nagle.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "setting TCP_NODELAY failed");
    }
    let mut connection = context.http.serve_connection(
        TokioIo::new(stream),
        TowerToHyperService::new(context.router.clone()),
    );
    let stop_requested = async {
        // Only the moment matters; the guard `wait_for` returns is dropped here.
        let _ = stop.wait_for(|stop| *stop).await;
    };
    let result = tokio::select! {
        result = &mut connection => result,
        () = stop_requested => {
            // Finish the request in progress (answered with `Connection:
            // close`), or close at once if the connection is idle.
            Pin::new(&mut connection).graceful_shutdown();
            (&mut connection).await
        }
    };
    match result {
        Ok(()) => {}
        // The header read timeout fired. hyper hands the socket back with
        // what it had read of the next head: nothing means an idle keep-alive
        // connection, which is just closed; something means a client that
        // started a request and did not finish its head in time.
        Err(e) if e.is_timeout() => {
            let parts = connection.into_parts();
            if !parts.read_buf.is_empty() {
                answer_head_timeout(parts.io.into_inner(), &context.counters).await;
            }
        }
        // Resets, clients that vanish, malformed heads (hyper has answered
        // those with a bare 400 or 431 itself): routine under load.
        Err(e) => tracing::debug!(error = %e, "connection ended with an error"),
    }
}

/// The contract's 408 for a client that did not finish its request head in
/// time, as the blocking server answers it; then the connection is closed.
/// hyper stops at the timeout without answering, but hands the socket back.
async fn answer_head_timeout(mut stream: TcpStream, counters: &RequestCounters) {
    counters.started();
    let error = ApiError::request_timeout();
    let body = error.body_json();
    let mut answer = format!(
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    // Bounded: a client too slow to send its head may be too slow to read too.
    let write = async {
        stream.write_all(&answer).await?;
        stream.shutdown().await
    };
    if let Err(e) = tokio::time::timeout(Duration::from_secs(1), write)
        .await
        .unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))
    {
        tracing::debug!(error = %e, "sending 408 to a slow client failed");
    }
    counters.finished(UNMATCHED, error.status());
}
