//! A TCP proxy in front of Postgres or Redis that a test can cut (every open
//! connection is closed and new ones are closed on arrival: the dependency is
//! down) or stall (connections stay open, new ones are accepted, but no byte
//! moves: the dependency hangs), until it is restored.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub struct Proxy {
    pub addr: SocketAddr,
    down: Arc<AtomicBool>,
    stalled: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    pub fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let down = Arc::new(AtomicBool::new(false));
        let stalled = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (down2, stalled2, open2) = (Arc::clone(&down), Arc::clone(&stalled), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if down2.load(Ordering::SeqCst) {
                    continue; // dropped: closed at once
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let mut tracked = open2.lock().unwrap_or_else(|p| p.into_inner());
                for stream in [&client, &server] {
                    if let Ok(clone) = stream.try_clone() {
                        tracked.push(clone);
                    }
                }
                drop(tracked);
                pump(&client, &server, &stalled2);
                pump(&server, &client, &stalled2);
            }
        });
        Proxy {
            addr,
            down,
            stalled,
            open,
        }
    }

    /// The dependency goes away: open connections are cut, new ones refused.
    pub fn cut(&self) {
        self.down.store(true, Ordering::SeqCst);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        for stream in open.drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// The dependency hangs: bytes are read but not passed on.
    pub fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }

    pub fn restore(&self) {
        self.down.store(false, Ordering::SeqCst);
        self.stalled.store(false, Ordering::SeqCst);
    }
}

fn pump(from: &TcpStream, to: &TcpStream, stalled: &Arc<AtomicBool>) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    let stalled = Arc::clone(stalled);
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    while stalled.load(Ordering::SeqCst) {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

/// The `host:port` of a `scheme://user@host:port/...` URL, resolved.
pub fn url_addr(url: &str) -> SocketAddr {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let host_port = rest.rsplit_once('@').map(|(_, h)| h).unwrap_or(rest);
    let host_port = host_port.split(['/', '?']).next().unwrap_or(host_port);
    use std::net::ToSocketAddrs;
    host_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .unwrap_or_else(|| panic!("no address in {url:?}"))
}

/// `url` with its `host:port` replaced by `addr`.
pub fn url_with_addr(url: &str, addr: SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (userinfo, host_and_more) = match rest.rsplit_once('@') {
        Some((u, h)) => (format!("{u}@"), h),
        None => (String::new(), rest),
    };
    let tail_at = host_and_more
        .find(['/', '?'])
        .unwrap_or(host_and_more.len());
    format!("{scheme}://{userinfo}{addr}{}", &host_and_more[tail_at..])
}
