//! The connection layer: the accept loop, hyper's HTTP/1.1 connections, and
//! the graceful drain at shutdown.
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
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use crate::head_limit::HYPER_MAX_HEAD_BYTES;

/// How long the accept loop pauses after an accept error. Under a connection
/// burst the process can run out of file descriptors (EMFILE); accepting again
/// at once would spin, and giving up would stop the server for good.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting, lets in-flight requests finish (each answered with
/// `Connection: close`), closes idle keep-alive connections, and returns when
/// all are done or `drain_timeout` has passed.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
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
        // On expiry hyper closes the connection without an answer.
        .header_read_timeout(header_read_timeout)
        .max_header_size(HYPER_MAX_HEAD_BYTES);
    let graceful = GracefulShutdown::new();

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
        // Small JSON answers: send them now rather than wait for Nagle.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "setting TCP_NODELAY failed");
        }
        let connection = http.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(router.clone()),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                // Resets, header timeouts, clients that vanish: routine under load.
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }

    // Closing the listener makes new connections fail at once rather than wait
    // in the backlog of a server that will never answer them.
    drop(listener);
    let open = graceful.count();
    tracing::info!(
        open_connections = open,
        ?drain_timeout,
        "shutting down: draining connections"
    );
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections drained"),
        () = tokio::time::sleep(drain_timeout) => {
            tracing::warn!(?drain_timeout, "drain timeout passed with connections still open; stopping anyway");
        }
    }
}
