//! The connection layer, in the shape of Tomcat's NIO connector: one acceptor
//! thread, one poller thread, and a fixed pool of handler threads.
//!
//! ```text
//!  acceptor ──new connection──▶ poller (epoll: idle connections)
//!                                  │ readable
//!                                  ▼
//!                       queue (crossbeam channel)
//!                                  │
//!                 handler-0 … handler-199: read ONE request, run the
//!                 handler (blocks on Postgres / Redis / sleep / CPU),
//!                 write the answer, then give the connection back to the
//!                 poller (keep-alive) or close it
//! ```
//!
//! Why our own layer and not tiny_http: tiny_http 0.12 gives every
//! open connection its own reader thread from an internal pool, so the thread
//! count grows with connections, and that pool (`TaskPool::spawn`) only
//! starts a new thread when no thread is idle. A burst of connections all see
//! the same few idle threads, so only those few connections are served and the
//! rest wait until one closes: a load tool's 64 keep-alive connections opened
//! back to back leave some of them with no answer for the whole run
//! (the cold-start probe, `net_tools::cold_start`, measures it). That pool is internal to
//! tiny_http and cannot be fixed from outside, so the connection layer is ours.
//!
//! As in Tomcat's NIO connector, a request head is read only from bytes that
//! are already there: a head that arrives slowly waits in the poller, and a
//! handler thread is taken once the head is complete (see `http::read`). Measured
//! with `examples/slow_clients.rs` against the release build, 1,000 clients
//! sending their head a byte a second left `/health` at p50 0.36 ms, max 3.6
//! ms, and each got 408 after the 10 s header timeout; when heads were read
//! with blocking reads, the same load held every handler thread and `/health`
//! waited 15 s. A slow *body* still holds a thread (blocking reads, as a
//! servlet's `InputStream` does), up to the body deadline
//! (`--body-read-timeout-ms` after the head), then 408.
//!
//! What stays the same is the lesson: it is thread-per-request. A handler
//! thread that blocks in a handler serves nobody else until it returns; with
//! 200 threads, the 201st concurrent request waits in the queue. Idle
//! keep-alive connections cost no thread (they sit in the poller), so the
//! thread count is fixed: `--handler-threads` + acceptor + poller (+ the
//! database and cache pools' helper threads), however many connections are open.

mod acceptor;
pub(crate) mod busy_threads;
mod limit_latch;
mod poller;
mod worker;

use std::net::{TcpListener, TcpStream};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use server_support::open_files::connection_cap;

use crate::http::{Connection, Handler};
use crate::settings::ServeConfig;
use busy_threads::BusyThreads;
use limit_latch::{Counted, LimitLatch};
use poller::Poller;

/// A client connection of this connector: a std socket, whose reads block,
/// and its place under the connection cap, given back when it is dropped.
struct Conn {
    connection: Connection<TcpStream>,
    _counted: Counted,
}

impl Deref for Conn {
    type Target = Connection<TcpStream>;

    fn deref(&self) -> &Self::Target {
        &self.connection
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.connection
    }
}

/// What every connector thread reads.
struct Shared {
    config: ServeConfig,
    /// Set when the drain begins.
    shutting_down: AtomicBool,
    busy: Arc<BusyThreads>,
}

impl Shared {
    fn shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }
}

/// Serves `listener` until `shutdown` receives a message (or its sender is
/// dropped), counting busy handler threads in `busy`; then drains: stops accepting, closes idle connections, lets
/// requests in progress finish (answered with `connection: close`), and
/// returns when they have, or after the drain timeout.
pub(crate) fn serve(
    listener: TcpListener,
    config: &ServeConfig,
    handler: Arc<Handler>,
    busy: Arc<BusyThreads>,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    let shared = Arc::new(Shared {
        config: config.clone(),
        shutting_down: AtomicBool::new(false),
        busy,
    });
    let poller =
        Arc::new(Poller::new(config.keep_alive_timeout).context("creating the epoll poller")?);
    let (queue_tx, queue_rx) = crossbeam_channel::unbounded::<Conn>();

    // Each handler thread holds a clone of `alive`; when the last one exits the
    // channel disconnects, which is how the drain below learns they are done.
    let (alive, all_exited) = crossbeam_channel::bounded::<()>(0);
    for i in 0..config.handler_threads {
        let (queue, poller, shared, handler, alive) = (
            queue_rx.clone(),
            Arc::clone(&poller),
            Arc::clone(&shared),
            Arc::clone(&handler),
            alive.clone(),
        );
        thread::Builder::new()
            .name(format!("handler-{i}"))
            .spawn(move || {
                worker::run(&queue, &poller, &shared, handler.as_ref());
                drop(alive);
            })
            .context("spawning a handler thread")?;
    }
    drop((alive, queue_rx));

    let poller_thread = {
        let (poller, shared) = (Arc::clone(&poller), Arc::clone(&shared));
        thread::Builder::new()
            .name("poller".into())
            .spawn(move || poller.run(&queue_tx, &shared))
            .context("spawning the poller thread")?
    };
    // The connection cap: what the open-file limit leaves beside the
    // pools, a descriptor per connection (crate::connector::limit_latch).
    let cap = connection_cap(usize::MAX, config.reserved_fds, 1);
    let latch = LimitLatch::new(cap.connections);
    let wake_acceptor = listener.try_clone().context("cloning the listener")?;
    let acceptor_thread = {
        let (poller, shared) = (Arc::clone(&poller), Arc::clone(&shared));
        thread::Builder::new()
            .name("acceptor".into())
            .spawn(move || acceptor::run(listener, &poller, &shared, &latch))
            .context("spawning the acceptor thread")?
    };
    tracing::info!(
        handler_threads = config.handler_threads,
        max_connections = cap.connections,
        open_files = cap.open_files,
        reserved_fds = config.reserved_fds,
        "serving: 1 acceptor, 1 poller, {} handler threads",
        config.handler_threads
    );

    let deadline = await_stop(shutdown, &shared.shutting_down, config.drain_timeout);
    acceptor::wake(&wake_acceptor);
    if acceptor_thread.join().is_err() {
        tracing::error!("the acceptor thread panicked");
    }
    // The last handle on the listening socket: closing it makes new
    // connections be refused.
    drop(wake_acceptor);
    if poller_thread.join().is_err() {
        tracing::error!("the poller thread panicked");
    }
    // The poller held the queue's only sender: handler threads now finish the
    // requests queued or in progress and exit when the queue is empty.
    wait_for_drain(&all_exited, deadline, config.drain_timeout);
    Ok(())
}

/// Waits for the signal to stop (a message, or a dropped sender), then
/// turns new connections away (`shutting_down`): the drain's deadline,
/// `drain_timeout` from now. The nio connector and the virtual threads'
/// acceptor begin their shutdown with this.
pub(crate) fn await_stop(
    shutdown: &Receiver<()>,
    shutting_down: &AtomicBool,
    drain_timeout: Duration,
) -> Instant {
    let _ = shutdown.recv();
    let deadline = Instant::now() + drain_timeout;
    tracing::info!("shutting down: no new connections, draining requests in progress");
    shutting_down.store(true, Ordering::SeqCst);
    deadline
}

/// Waits until every handler thread has exited (each holds a clone of the
/// sender behind `all_exited`) or `deadline` passes, and logs which. Both
/// connectors end with this.
pub(crate) fn wait_for_drain(
    all_exited: &Receiver<()>,
    deadline: Instant,
    drain_timeout: Duration,
) {
    match all_exited.recv_deadline(deadline) {
        Err(RecvTimeoutError::Disconnected) | Ok(()) => {
            tracing::info!("drained: every request queued or in progress was answered");
        }
        Err(RecvTimeoutError::Timeout) => {
            tracing::warn!(
                ?drain_timeout,
                "drain timeout: returning with requests still running"
            );
        }
    }
}
