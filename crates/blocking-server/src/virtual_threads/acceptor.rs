//! The virtual threads' connection layer: an acceptor coroutine, a
//! coroutine per connection (connection.rs), the connection cap, and the
//! drain. The twin of crate::connector for platform threads, without the
//! poller and the queue: each connection's coroutine waits on its own
//! socket.

use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use crossbeam_channel::Receiver;
use server_support::open_files::{connection_cap, ConnectionCap};

use crate::accept_policy::{ready_accepted, AcceptErrors};
use crate::connector::await_stop;
use crate::http::Handler;
use crate::settings::ServeConfig;

use super::{connection, spawn};

/// What the acceptor and every connection coroutine read.
struct Shared {
    config: ServeConfig,
    /// Set when the drain begins.
    shutting_down: AtomicBool,
    /// The open connections, so that a drain can close the idle ones.
    open: Mutex<HashMap<u64, OpenConnection>>,
    next_id: AtomicU64,
}

/// An open connection as the drain sees it.
struct OpenConnection {
    /// A second handle on the socket: shutting its reading side down wakes
    /// a coroutine parked on the next head.
    stream: may::net::TcpStream,
    /// Whether a request is being read or served on it now.
    busy: Arc<AtomicBool>,
}

impl Shared {
    fn shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<u64, OpenConnection>> {
        // Held only for a map update, never across a park.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// File descriptors an open connection holds: its socket, and the second
/// handle the drain keeps ([`OpenConnection::stream`]).
const FDS_PER_CONNECTION: u64 = 2;

/// Serves `listener` on virtual threads until `shutdown` receives a message
/// (or its sender is dropped); then drains as the platform-thread connector
/// does: no new connections, idle ones closed, requests in progress
/// answered (with `connection: close`) until the drain timeout.
pub(crate) fn serve_connections(
    listener: std::net::TcpListener,
    config: &ServeConfig,
    handler: Arc<Handler>,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    let listener = spawn::adopt_listener(listener).context("handing the listener to may")?;
    let shared = Arc::new(Shared {
        config: config.clone(),
        shutting_down: AtomicBool::new(false),
        open: Mutex::new(HashMap::new()),
        next_id: AtomicU64::new(0),
    });
    // The connection cap: a permit per open connection. At the cap the
    // acceptor parks until one closes, and new clients wait in the backlog.
    let ConnectionCap {
        connections: cap,
        open_files,
    } = connection_cap(
        config.max_connections,
        config.reserved_fds,
        FDS_PER_CONNECTION,
    );
    if cap < config.max_connections {
        tracing::warn!(
            open_files,
            max_connections = config.max_connections,
            cap,
            "the open-file limit caps the connections: each holds {FDS_PER_CONNECTION} descriptors, and {} are kept for the pools and the rest",
            config.reserved_fds
        );
    }
    let permits = Arc::new(may::sync::Semphore::new(cap));
    let acceptor = {
        let (shared, permits) = (Arc::clone(&shared), Arc::clone(&permits));
        spawn::go("acceptor", move || {
            accept(&listener, &shared, &handler, &permits)
        })
        .context("starting the acceptor coroutine")?
    };
    tracing::info!(
        carriers = config.carriers,
        coroutine_stack_kib = config.coroutine_stack_kib,
        max_connections = cap,
        "serving on virtual threads: a coroutine per connection on {} carrier threads",
        config.carriers
    );

    let deadline = await_stop(shutdown, &shared.shutting_down, config.drain_timeout);
    wake_acceptor(addr);
    if acceptor.join().is_err() {
        tracing::error!("the acceptor coroutine panicked");
    }
    close_idle(&shared);
    drain(&shared, deadline, config.drain_timeout);
    Ok(())
}

/// The acceptor: one coroutine, parked in `accept` until a client comes,
/// with the accept policy both acceptors share (crate::accept_policy).
fn accept(
    listener: &may::net::TcpListener,
    shared: &Arc<Shared>,
    handler: &Arc<Handler>,
    permits: &Arc<may::sync::Semphore>,
) {
    let mut errors = AcceptErrors::default();
    loop {
        permits.wait();
        let accepted = listener.accept();
        if shared.shutting_down() {
            permits.post();
            return; // dropping the listener refuses new connections
        }
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                permits.post();
                if let Some(pause) = errors.failed(&e) {
                    #[allow(
                        clippy::disallowed_methods,
                        reason = "the acceptor's back-off, in no request"
                    )]
                    may::coroutine::sleep(pause);
                }
                continue;
            }
        };
        errors.accepted();
        ready_accepted(&stream, shared.config.timeouts.head);
        if let Err(e) = start_connection(stream, shared, handler, permits) {
            permits.post();
            tracing::warn!(error = %e, "could not start a connection coroutine");
        }
    }
}

/// Registers `stream` and starts its coroutine; the coroutine gives its
/// permit back and unregisters when it ends, however it ends.
fn start_connection(
    stream: may::net::TcpStream,
    shared: &Arc<Shared>,
    handler: &Arc<Handler>,
    permits: &Arc<may::sync::Semphore>,
) -> std::io::Result<()> {
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let busy = Arc::new(AtomicBool::new(false));
    shared.open().insert(
        id,
        OpenConnection {
            stream: stream.try_clone()?,
            busy: Arc::clone(&busy),
        },
    );
    struct Release {
        id: u64,
        shared: Arc<Shared>,
        permits: Arc<may::sync::Semphore>,
    }
    impl Drop for Release {
        fn drop(&mut self) {
            self.shared.open().remove(&self.id);
            self.permits.post();
        }
    }
    let release = Release {
        id,
        shared: Arc::clone(shared),
        permits: Arc::clone(permits),
    };
    let handler = Arc::clone(handler);
    let started = spawn::go("connection", move || {
        let release = release;
        let shared = &release.shared;
        connection::serve(
            stream,
            &shared.config,
            &shared.shutting_down,
            &busy,
            handler.as_ref(),
        );
    });
    started.map(drop)
}

/// Wakes the acceptor out of `accept` with a connection of our own, which
/// it then drops (it sees the shutdown flag first).
fn wake_acceptor(addr: SocketAddr) {
    let target = match addr {
        SocketAddr::V4(a) if a.ip().is_unspecified() => {
            SocketAddr::from(([127, 0, 0, 1], a.port()))
        }
        SocketAddr::V6(a) if a.ip().is_unspecified() => {
            SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, a.port()))
        }
        other => other,
    };
    if let Err(e) = std::net::TcpStream::connect_timeout(&target, Duration::from_secs(1)) {
        tracing::warn!(error = %e, "waking the acceptor failed");
    }
}

/// Closes every connection waiting for its next request: its coroutine,
/// parked in a read, sees the end of the stream and ends.
fn close_idle(shared: &Shared) {
    for connection in shared.open().values() {
        if !connection.busy.load(Ordering::SeqCst) {
            let _ = connection.stream.shutdown(Shutdown::Read);
        }
    }
}

/// Waits until every connection has ended or `deadline` passes, and logs which.
fn drain(shared: &Shared, deadline: Instant, drain_timeout: Duration) {
    loop {
        let left = shared.open().len();
        if left == 0 {
            tracing::info!("drained: every request queued or in progress was answered");
            return;
        }
        if Instant::now() >= deadline {
            tracing::warn!(
                ?drain_timeout,
                connections = left,
                "drain timeout: returning with requests still running"
            );
            return;
        }
        // A connection that finished its request while this ran closes on
        // its own (it answers with `connection: close`); one that became
        // idle in between is closed here.
        close_idle(shared);
        #[allow(
            clippy::disallowed_methods,
            reason = "the drain polls from the caller's thread, in no request"
        )]
        std::thread::sleep(Duration::from_millis(10));
    }
}
