//! A fault-injecting TCP proxy that sits between a server and Postgres or Redis.
//!
//! Faults are injected on a real connection, not with a fake client: the server
//! under test talks through this proxy with its real pools and drivers, and the
//! test flips the proxy between three modes:
//! - [`Mode::Pass`]: bytes flow both ways;
//! - [`Mode::Refuse`]: every open connection is cut and new ones are closed at
//!   once (the dependency is down);
//! - [`Mode::Stall`]: connections stay open but no byte moves, and new ones are
//!   accepted and never answered (the dependency hangs).
//!
//! Independently of the mode, two ways to make a dependency slow:
//! - [`FaultProxy::set_delay`] holds every chunk for a while before reading the
//!   next one: a dependency that answers slowly, one chunk at a time, so that
//!   pooled connections stay busy (pool exhaustion tests);
//! - [`FaultProxy::set_round_trip`] adds a fixed latency, half each way, to
//!   every chunk without holding back the next: a dependency on another host.
//!   Chunks in flight overlap as on a network, so a connection that pipelines
//!   many commands (one multiplexed Redis connection) is delayed, not
//!   throttled to a chunk per round trip.
//!
//! The proxy measures what it delivers ([`exchanges`]): per connection, the
//! exchanges (a client burst answered by the server: one round trip) and
//! the round trip each was delivered, from the first byte of the burst
//! arriving to the first byte of the answer leaving towards the client.
//! [`FaultProxy::stats`] reads them in the process;
//! [`FaultProxy::serve_stats`] serves them over HTTP to another
//! ([`stats_http`]). Both its sockets of a connection have TCP_NODELAY:
//! a chunk is written the moment it is due, never held back by Nagle's
//! algorithm waiting for an acknowledgement.
//!
//! Plain threads: per proxied connection a reader and a writer each way. A
//! test or a bench group opens a few dozen connections through it.

pub mod exchanges;
#[doc(hidden)]
pub mod fuzzing;
pub mod stats_http;
#[cfg(test)]
mod tests;

use exchanges::{Counters, OpenExchange};
pub use exchanges::{ProxyStats, ROUND_TRIP_BUCKETS_US};

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Pass = 0,
    Refuse = 1,
    Stall = 2,
}

impl Mode {
    fn from_u8(v: u8) -> Mode {
        match v {
            1 => Mode::Refuse,
            2 => Mode::Stall,
            _ => Mode::Pass,
        }
    }
}

struct Shared {
    target: SocketAddr,
    mode: AtomicU8,
    /// Microseconds each forwarded chunk is held before the next is read (0: none).
    delay_us: AtomicU64,
    /// Microseconds every chunk takes to reach the other side (0: none).
    one_way_us: AtomicU64,
    stopping: AtomicBool,
    /// Every socket the proxy holds, so a mode change can cut them all.
    sockets: Mutex<Vec<TcpStream>>,
    /// What it measured.
    counters: Counters,
}

impl Shared {
    fn mode(&self) -> Mode {
        Mode::from_u8(self.mode.load(Ordering::SeqCst))
    }

    fn round_trip(&self) -> Duration {
        Duration::from_micros(self.one_way_us.load(Ordering::SeqCst) * 2)
    }

    fn keep(&self, s: &TcpStream) {
        if let Ok(clone) = s.try_clone() {
            self.sockets
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(clone);
        }
    }

    fn cut_all(&self) {
        let mut sockets = self.sockets.lock().unwrap_or_else(|p| p.into_inner());
        for s in sockets.drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

/// A running proxy; stops (and cuts every connection) when dropped.
pub struct FaultProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Where [`FaultProxy::serve_stats`] answers, once asked.
    stats_addr: Mutex<Option<SocketAddr>>,
}

impl FaultProxy {
    /// Listens on a free 127.0.0.1 port and forwards to `target`.
    pub fn start(target: SocketAddr) -> std::io::Result<FaultProxy> {
        FaultProxy::listen(TcpListener::bind("127.0.0.1:0")?, target)
    }

    /// Forwards what `listener` accepts to `target`.
    pub fn listen(listener: TcpListener, target: SocketAddr) -> std::io::Result<FaultProxy> {
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            target,
            mode: AtomicU8::new(Mode::Pass as u8),
            delay_us: AtomicU64::new(0),
            one_way_us: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            sockets: Mutex::new(Vec::new()),
            counters: Counters::new(),
        });
        let accept_shared = Arc::clone(&shared);
        thread::Builder::new()
            .name("fault-proxy-accept".into())
            .spawn(move || accept_loop(listener, accept_shared))?;
        Ok(FaultProxy {
            addr,
            shared,
            stats_addr: Mutex::new(None),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn mode(&self) -> Mode {
        self.shared.mode()
    }

    /// Switches mode. Leaving `Pass` cuts (Refuse) or freezes (Stall) the open
    /// connections; leaving `Stall` or `Refuse` closes whatever was held, so the
    /// client's pool starts over with fresh connections.
    pub fn set_mode(&self, mode: Mode) {
        let old = Mode::from_u8(self.shared.mode.swap(mode as u8, Ordering::SeqCst));
        if old == mode {
            return;
        }
        if mode == Mode::Refuse || old == Mode::Stall {
            self.shared.cut_all();
        }
    }
}

impl FaultProxy {
    /// Holds every chunk read from either side for `delay` before forwarding
    /// it and reading the next (in `Pass` mode), so each query takes at least
    /// two delays and a connection moves one chunk per delay.
    /// `Duration::ZERO` turns it off.
    pub fn set_delay(&self, delay: Duration) {
        self.shared.delay_us.store(micros(delay), Ordering::SeqCst);
    }

    /// Adds `round_trip`, half each way, to every chunk on every connection
    /// (in `Pass` mode), as a network between the server and its dependency
    /// would: a query and its answer take one round trip more, whatever else
    /// is in flight. `Duration::ZERO` turns it off.
    pub fn set_round_trip(&self, round_trip: Duration) {
        self.shared
            .one_way_us
            .store(micros(round_trip) / 2, Ordering::SeqCst);
    }

    /// The latency set by [`FaultProxy::set_round_trip`].
    pub fn round_trip(&self) -> Duration {
        self.shared.round_trip()
    }

    /// What the proxy has measured since it started: connections,
    /// exchanges and their delivered round trips (see [`exchanges`]).
    pub fn stats(&self) -> ProxyStats {
        self.shared.counters.read()
    }

    /// Serves [`FaultProxy::stats`] over HTTP on a free 127.0.0.1 port, in
    /// the Prometheus text format ([`stats_http`]), until the proxy is
    /// dropped; returns that address (the same one if asked again).
    pub fn serve_stats(&self) -> std::io::Result<SocketAddr> {
        let mut served = self.stats_addr.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(addr) = *served {
            return Ok(addr);
        }
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::clone(&self.shared);
        thread::Builder::new()
            .name("fault-proxy-stats".into())
            .spawn(move || stats_http::serve(listener, shared))?;
        *served = Some(addr);
        Ok(addr)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.cut_all();
        // Wake the accept loops so they see `stopping`.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(stats) = *self.stats_addr.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = TcpStream::connect_timeout(&stats, Duration::from_millis(200));
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for incoming in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = incoming else { continue };
        match shared.mode() {
            Mode::Refuse => {
                let _ = client.shutdown(Shutdown::Both);
            }
            // Accepted, kept open, never answered.
            Mode::Stall => shared.keep(&client),
            Mode::Pass => {
                let upstream =
                    match TcpStream::connect_timeout(&shared.target, Duration::from_secs(2)) {
                        Ok(u) => u,
                        Err(_) => {
                            let _ = client.shutdown(Shutdown::Both);
                            continue;
                        }
                    };
                pass(client, upstream, &shared);
            }
        }
    }
}

/// Starts forwarding between `client` and `upstream`, both with
/// TCP_NODELAY, the client's bursts and the server's answers timed as
/// exchanges.
fn pass(client: TcpStream, upstream: TcpStream, shared: &Arc<Shared>) {
    for socket in [&client, &upstream] {
        // Small chunks leave when due: Nagle's algorithm would hold one
        // back until the previous one's acknowledgement came.
        let _ = socket.set_nodelay(true);
        shared.keep(socket);
    }
    shared.counters.connection_opened();
    let exchange = Arc::new(OpenExchange::default());
    let (Ok(client_reader), Ok(upstream_writer)) = (client.try_clone(), upstream.try_clone())
    else {
        shared.cut_all();
        return;
    };
    start_pipe(
        client_reader,
        upstream_writer,
        Leg::ClientToServer(Arc::clone(&exchange)),
        shared,
    );
    start_pipe(upstream, client, Leg::ServerToClient(exchange), shared);
}

/// Which way a pipe carries bytes, and the connection's open exchange,
/// which the client's chunks open (as they arrive) and the server's answer
/// closes (as it leaves).
enum Leg {
    ClientToServer(Arc<OpenExchange>),
    ServerToClient(Arc<OpenExchange>),
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// One direction of a connection: a reader thread that takes chunks off
/// `from` and a writer thread that puts each on `to` once its latency has
/// passed. A failed start leaves the direction closed.
fn start_pipe(from: TcpStream, to: TcpStream, leg: Leg, shared: &Arc<Shared>) {
    let (chunks, due) = channel();
    let reader_shared = Arc::clone(shared);
    let writer_shared = Arc::clone(shared);
    let opens = match &leg {
        Leg::ClientToServer(exchange) => Some(Arc::clone(exchange)),
        Leg::ServerToClient(_) => None,
    };
    let reader = thread::Builder::new()
        .name("fault-proxy-read".into())
        .spawn(move || read_side(from, chunks, opens, reader_shared));
    let writer = thread::Builder::new()
        .name("fault-proxy-write".into())
        .spawn(move || write_side(to, due, leg, writer_shared));
    if reader.is_err() || writer.is_err() {
        shared.cut_all();
    }
}

/// A chunk on its way through a pipe: when it may be written, its bytes,
/// and its mark for the exchanges (client to server: whether it opened one;
/// server to client: when it was read).
type Chunk = (Instant, Vec<u8>, u64);

/// Reads `from` while the mode is `Pass` (holding while `Stall`), stamping
/// each chunk with the instant it may be written. On the client's side,
/// each chunk's arrival may open an exchange.
fn read_side(
    mut from: TcpStream,
    chunks: Sender<Chunk>,
    opens: Option<Arc<OpenExchange>>,
    shared: Arc<Shared>,
) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(50)));
    let mut buf = [0u8; 16 * 1024];
    loop {
        if shared.stopping.load(Ordering::SeqCst) || shared.mode() == Mode::Refuse {
            break;
        }
        if shared.mode() == Mode::Stall {
            thread::sleep(Duration::from_millis(20));
            continue;
        }
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let mark = match &opens {
                    Some(exchange) => u64::from(exchange.client_sent(&shared.counters, n)),
                    None => OpenExchange::now(&shared.counters),
                };
                let delay = shared.delay_us.load(Ordering::SeqCst);
                if delay > 0 {
                    thread::sleep(Duration::from_micros(delay));
                }
                while shared.mode() == Mode::Stall && !shared.stopping.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(20));
                }
                let one_way = Duration::from_micros(shared.one_way_us.load(Ordering::SeqCst));
                if shared.mode() != Mode::Pass
                    || chunks
                        .send((Instant::now() + one_way, buf[..n].to_vec(), mark))
                        .is_err()
                {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => continue,
            Err(_) => break,
        }
    }
    let _ = from.shutdown(Shutdown::Both);
}

/// Writes each chunk to `to` at its instant, in order; ends when the reader
/// does (its sender dropped) or a write fails, and closes both ways. On
/// the way to the server, the chunk that opened an exchange is stamped as
/// it leaves; on the way back, each chunk leaving may close the exchange.
fn write_side(mut to: TcpStream, due: Receiver<Chunk>, leg: Leg, shared: Arc<Shared>) {
    for (at, chunk, mark) in due {
        let wait = at.saturating_duration_since(Instant::now());
        if !wait.is_zero() {
            thread::sleep(wait);
        }
        while shared.mode() == Mode::Stall && !shared.stopping.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
        if shared.mode() != Mode::Pass {
            break;
        }
        match &leg {
            Leg::ClientToServer(exchange) if mark == 1 => exchange.forwarded(&shared.counters),
            Leg::ClientToServer(_) => {}
            Leg::ServerToClient(exchange) => {
                exchange.server_answers(&shared.counters, mark, chunk.len());
            }
        }
        if to.write_all(&chunk).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
}

/// `url` with its `host:port` replaced by `addr`, e.g. to route a server's
/// `DATABASE_URL` through a proxy.
pub fn url_with_addr(url: &str, addr: SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let userinfo = authority
        .rsplit_once('@')
        .map(|(u, _)| format!("{u}@"))
        .unwrap_or_default();
    format!("{scheme}://{userinfo}{addr}{path}")
}

/// The `host:port` of a URL, resolved.
pub fn url_addr(url: &str) -> std::io::Result<SocketAddr> {
    use std::net::ToSocketAddrs;
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let host_port = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    let with_port = if host_port.contains(':') {
        host_port.to_owned()
    } else if url.starts_with("redis") {
        format!("{host_port}:6379")
    } else {
        format!("{host_port}:5432")
    };
    with_port.to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(ErrorKind::NotFound, format!("no address for {with_port}"))
    })
}
