//! Idle keep-alive connections held by bench: each connects, sends one
//! `GET /health`, reads the whole answer, then stays open and silent until
//! dropped. What a browser's or a pool's parked connections look like to a
//! server: a socket it must keep, with nothing to do.
//!
//! They are opened one at a time, each only after the one before has had
//! its answer. Not for want of speed (about 0.1 ms each on loopback) but
//! because tiny_http's pool queues a new connection instead of starting a
//! thread whenever one of its threads counts as idle, and several arriving
//! together all queue for that one thread; the rest wait behind keep-alive
//! connections that never end (the cold-start unfairness,
//! `net_tools::cold_start`). Opened in parallel, most never got an answer
//! here, and the group would measure that instead of what an idle
//! connection costs. One at a time also keeps far below any listen backlog;
//! a refused connect is still retried briefly.

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use net_tools::http_answer::read_answer;

/// How long a refused or would-block connect is retried.
const CONNECT_RETRY_FOR: Duration = Duration::from_secs(2);

const REQUEST: &[u8] = b"GET /health HTTP/1.1\r\nhost: idle\r\n\r\n";

/// The open connections, each past its one request. Dropping closes them.
#[derive(Default)]
pub struct IdleConnections {
    conns: Vec<TcpStream>,
}

impl IdleConnections {
    pub fn new() -> IdleConnections {
        IdleConnections::default()
    }

    /// How many are open (as far as bench knows: see [`Self::still_open`]).
    pub fn len(&self) -> usize {
        self.conns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// Opens connections to `addr` until `target` are open, each having
    /// made its request and read the answer, within `within`. When that
    /// fails, the connections that made it are kept and the cause is
    /// returned in one line.
    pub fn open_up_to(
        &mut self,
        addr: SocketAddr,
        target: usize,
        within: Duration,
    ) -> Result<(), String> {
        let wanted = target.saturating_sub(self.conns.len());
        if wanted == 0 {
            return Ok(());
        }
        let deadline = Instant::now() + within;
        let mut buf = Vec::new();
        for _ in 0..wanted {
            let mut conn = connect(addr, deadline).map_err(|e| format!("connecting: {e}"))?;
            conn.write_all(REQUEST)
                .map_err(|e| format!("sending the request: {e}"))?;
            buf.clear();
            if let Err(e) = read_answer(&mut conn, &mut buf, deadline) {
                return Err(match e.kind() {
                    ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                        "reading the answer: no answer in time".to_owned()
                    }
                    ErrorKind::UnexpectedEof => {
                        "reading the answer: the server closed the connection before answering"
                            .to_owned()
                    }
                    _ => format!("reading the answer: {e}"),
                });
            }
            self.conns.push(conn);
        }
        Ok(())
    }

    /// Of the connections held, how many the server has not closed or
    /// written to since their answer: a non-blocking peek on each finds
    /// nothing to read (closed shows as end of file, a late 408 as bytes).
    pub fn still_open(&self) -> usize {
        self.conns
            .iter()
            .filter(|c| {
                let mut byte = [0u8; 1];
                c.set_nonblocking(true).is_ok()
                    && matches!(c.peek(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock)
            })
            .count()
    }

    /// Closes every connection (bench's side first: the server sees end of file).
    pub fn close_all(&mut self) {
        self.conns.clear();
    }
}

/// A connect, retried for a little while when refused or told to wait
/// (a full backlog, a port not yet free), never past `deadline`.
fn connect(addr: SocketAddr, deadline: Instant) -> std::io::Result<TcpStream> {
    let retry_until = (Instant::now() + CONNECT_RETRY_FOR).min(deadline);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        match TcpStream::connect_timeout(&addr, left.min(Duration::from_secs(5))) {
            Ok(s) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionRefused
                        | ErrorKind::WouldBlock
                        | ErrorKind::AddrNotAvailable
                ) && Instant::now() < retry_until =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}
