//! `--threads virtual`: the blocking server's own handlers on stackful
//! coroutines, the analog of Java 21's virtual threads (Spring Boot's
//! `spring.threads.virtual.enabled=true` runs the same MVC controllers on
//! them).
//!
//! A coroutine per connection runs on one of `--carriers` threads (may's
//! workers; Loom calls them carriers). A coroutine that waits on one of may's
//! sockets or timers parks, and its carrier runs another; a call that is
//! not coroutine-aware (the pinning driver's sync clients, a CPU loop) holds
//! the carrier until it returns, as a JDBC driver inside `synchronized`
//! pins its carrier on JDK 21.

mod connection;
pub(crate) mod pinning;
pub(crate) mod spawn;

use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use crossbeam_channel::Receiver;

use crate::connector::Handler;

/// may's configuration is process-wide and taken when its scheduler first
/// starts; later calls change nothing. The first virtual-thread server of a
/// process sets it (the binary runs one server, so its flags always apply;
/// an in-process test server shares the first one's carriers). Workers are
/// not pinned to cores: Loom's carriers are not, nor are tokio's workers,
/// and on a machine the load generator shares, a pinned carrier would
/// compete with it on one core instead of moving.
pub(crate) fn configure(carriers: usize, stack_kib: u32, report_stack_use: bool) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // may counts the stack in words.
        let words = stack_kib as usize * 1024 / std::mem::size_of::<usize>();
        // An odd size makes may print each coroutine's use as it ends.
        let words = if report_stack_use { words | 1 } else { words };
        may::config()
            .set_workers(carriers)
            .set_stack_size(words)
            .set_worker_pin(false);
    });
}

/// The knobs of the virtual-thread connector.
#[derive(Debug, Clone)]
pub(crate) struct VirtualConfig {
    pub(crate) carriers: usize,
    pub(crate) stack_kib: u32,
    pub(crate) report_stack_use: bool,
    pub(crate) max_connections: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) keep_alive_timeout: Duration,
    pub(crate) drain_timeout: Duration,
}

/// What the acceptor and every connection coroutine read.
struct Shared {
    config: VirtualConfig,
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
        // Held only for a map update, never across a yield.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Serves `listener` on virtual threads until `shutdown` receives a message
/// (or its sender is dropped); then drains as the platform-thread connector
/// does: no new connections, idle ones closed, requests in progress
/// answered (with `connection: close`) until the drain timeout.
pub(crate) fn serve(
    listener: std::net::TcpListener,
    config: VirtualConfig,
    handler: Arc<Handler>,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    configure(config.carriers, config.stack_kib, config.report_stack_use);
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
    let permits = Arc::new(may::sync::Semphore::new(config.max_connections));
    let acceptor = {
        let (shared, permits) = (Arc::clone(&shared), Arc::clone(&permits));
        spawn::go("acceptor", move || {
            accept(&listener, &shared, &handler, &permits)
        })
        .context("starting the acceptor coroutine")?
    };
    tracing::info!(
        carriers = config.carriers,
        coroutine_stack_kib = config.stack_kib,
        max_connections = config.max_connections,
        "serving on virtual threads: a coroutine per connection on {} carrier threads",
        config.carriers
    );

    let _ = shutdown.recv();
    let deadline = Instant::now() + config.drain_timeout;
    tracing::info!("shutting down: no new connections, draining requests in progress");
    shared.shutting_down.store(true, Ordering::SeqCst);
    wake_acceptor(addr);
    if acceptor.join().is_err() {
        tracing::error!("the acceptor coroutine panicked");
    }
    close_idle(&shared);
    drain(&shared, deadline, config.drain_timeout);
    Ok(())
}

/// The acceptor: one coroutine, parked in `accept` until a client comes.
fn accept(
    listener: &may::net::TcpListener,
    shared: &Arc<Shared>,
    handler: &Arc<Handler>,
    permits: &Arc<may::sync::Semphore>,
) {
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
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::Interrupted | std::io::ErrorKind::ConnectionAborted
                ) {
                    // Out of file descriptors under a burst: back off a little.
                    tracing::warn!(error = %e, "accept failed");
                    may::coroutine::sleep(Duration::from_millis(20));
                }
                continue;
            }
        };
        // As on platform threads: answers go out whole, and a client that
        // stops reading cannot hold a write past the header timeout.
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(shared.config.header_read_timeout));
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
        connection::serve(stream, &release.shared, &busy, handler.as_ref());
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
        std::thread::sleep(Duration::from_millis(10));
    }
}
