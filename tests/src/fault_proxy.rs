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
//!
//! Independently of the mode, [`FaultProxy::set_delay`] holds every chunk of
//! bytes for a while before forwarding it: a slow dependency rather than a
//! dead one, to keep pooled connections busy (pool exhaustion tests).
//!
//! Plain threads, two per proxied connection: simple to read, and a test opens
//! only a handful of connections.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

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
    /// Milliseconds each forwarded chunk is held (0: none).
    delay_ms: AtomicU64,
    stopping: AtomicBool,
    /// Every socket the proxy holds, so a mode change can cut them all.
    sockets: Mutex<Vec<TcpStream>>,
}

impl Shared {
    fn mode(&self) -> Mode {
        Mode::from_u8(self.mode.load(Ordering::SeqCst))
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
}

impl FaultProxy {
    /// Listens on a free 127.0.0.1 port and forwards to `target`.
    pub fn start(target: SocketAddr) -> std::io::Result<FaultProxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            target,
            mode: AtomicU8::new(Mode::Pass as u8),
            delay_ms: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            sockets: Mutex::new(Vec::new()),
        });
        let accept_shared = Arc::clone(&shared);
        thread::Builder::new()
            .name("fault-proxy-accept".into())
            .spawn(move || accept_loop(listener, accept_shared))?;
        Ok(FaultProxy { addr, shared })
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
    /// it (in `Pass` mode), so each query takes at least two delays.
    /// `Duration::ZERO` turns it off.
    pub fn set_delay(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.shared.delay_ms.store(ms, Ordering::SeqCst);
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.cut_all();
        // Wake the accept loop so it sees `stopping`.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
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
                shared.keep(&client);
                shared.keep(&upstream);
                for (from, to) in [
                    (client.try_clone(), upstream.try_clone()),
                    (Ok(upstream), Ok(client)),
                ] {
                    if let (Ok(from), Ok(to)) = (from, to) {
                        let shared = Arc::clone(&shared);
                        let _ = thread::Builder::new()
                            .name("fault-proxy-pipe".into())
                            .spawn(move || pipe(from, to, shared));
                    }
                }
            }
        }
    }
}

/// Copies `from` to `to` while the mode is `Pass`; holds bytes while `Stall`.
fn pipe(mut from: TcpStream, mut to: TcpStream, shared: Arc<Shared>) {
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
                let delay = shared.delay_ms.load(Ordering::SeqCst);
                if delay > 0 {
                    thread::sleep(Duration::from_millis(delay));
                }
                while shared.mode() == Mode::Stall && !shared.stopping.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(20));
                }
                if shared.mode() != Mode::Pass || to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => continue,
            Err(_) => break,
        }
    }
    let _ = from.shutdown(Shutdown::Both);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_rewritten_around_the_authority() {
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        assert_eq!(
            url_with_addr("postgres://postgres@127.0.0.1:5432/t_1", addr),
            "postgres://postgres@127.0.0.1:4000/t_1"
        );
        assert_eq!(
            url_with_addr("redis://127.0.0.1:6379", addr),
            "redis://127.0.0.1:4000"
        );
        assert_eq!(
            url_addr("postgres://u:p@127.0.0.1:5433/x").unwrap().port(),
            5433
        );
        assert_eq!(url_addr("redis://127.0.0.1").unwrap().port(), 6379);
    }

    #[test]
    fn proxy_passes_refuses_and_stalls() {
        // An upstream that echoes.
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let up_addr = upstream.local_addr().unwrap();
        thread::spawn(move || {
            for s in upstream.incoming().flatten() {
                thread::spawn(move || {
                    let mut s = s;
                    let mut buf = [0u8; 64];
                    while let Ok(n) = s.read(&mut buf) {
                        if n == 0 || s.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                });
            }
        });
        let proxy = FaultProxy::start(up_addr).unwrap();
        let roundtrip = |timeout_ms: u64| -> std::io::Result<Vec<u8>> {
            let mut c = TcpStream::connect(proxy.addr())?;
            c.set_read_timeout(Some(Duration::from_millis(timeout_ms)))?;
            c.write_all(b"ping")?;
            let mut buf = [0u8; 4];
            c.read_exact(&mut buf)?;
            Ok(buf.to_vec())
        };
        assert_eq!(roundtrip(2000).unwrap(), b"ping");
        proxy.set_mode(Mode::Refuse);
        assert!(roundtrip(2000).is_err());
        proxy.set_mode(Mode::Stall);
        let err = roundtrip(300).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
            "{err}"
        );
        proxy.set_mode(Mode::Pass);
        assert_eq!(roundtrip(2000).unwrap(), b"ping");
    }
}
