//! One client socket of the yielding driver: may's `TcpStream`, a read
//! buffer and a write buffer, and a deadline on every call.
//!
//! What the coroutine does while it waits: a read that finds no bytes
//! registers the socket with may's reactor (epoll) and parks the
//! coroutine; the carrier runs other coroutines until the bytes come or
//! the read timeout fires, and then the coroutine resumes, maybe on
//! another carrier. The socket is crate::virtual_threads::parking's, whose
//! every wait takes the request's `Waits` (crate::executor), so the pinning
//! detector's timing counts only the time the coroutine ran, not the time
//! it waited. Outside a coroutine (a test's main thread) the same calls
//! block the thread, as std's would.
//!
//! The deadline is per call, not per read: the socket's read timeout is
//! the call timeout, and a call that needs a second read lowers it to
//! what is left (changed only when it is at least [`SLACK`] off, so a
//! call that needs one read costs no extra system call). A peer that
//! sends a byte at a time cannot stretch a call past its deadline by more
//! than `SLACK`.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use bytes::BytesMut;

use crate::executor::Waits;
use crate::virtual_threads::parking::TcpStream;

/// How far the standing read timeout may be from what is left of a call.
const SLACK: Duration = Duration::from_millis(10);

/// How much a read asks for at a time.
const READ_CHUNK: usize = 8 * 1024;

pub(crate) struct Wire {
    stream: TcpStream,
    /// Bytes received and not yet parsed.
    pub(crate) read: BytesMut,
    /// Bytes to send with the next [`Wire::flush`].
    pub(crate) write: BytesMut,
    /// The socket's read timeout now.
    standing: Duration,
}

impl Wire {
    /// Connects to `host:port` by `deadline`, with `call_timeout` as the
    /// socket's read and write timeout.
    ///
    /// A host name is resolved with the system resolver, which holds the
    /// carrier for the lookup (once per new connection; an IP address
    /// needs no lookup, as in the tests and bench).
    pub(crate) fn connect(
        waits: &Waits<'_>,
        host: &str,
        port: u16,
        deadline: Instant,
        call_timeout: Duration,
    ) -> io::Result<Wire> {
        let addrs: Vec<SocketAddr> = (host, port).to_socket_addrs()?.collect();
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{host} has no address"));
        for addr in addrs {
            let left = remaining(deadline)?;
            match TcpStream::connect_timeout(waits, &addr, left) {
                Ok(stream) => {
                    stream.set_nodelay(true)?;
                    stream.set_read_timeout(Some(call_timeout))?;
                    stream.set_write_timeout(Some(call_timeout))?;
                    return Ok(Wire {
                        stream,
                        read: BytesMut::with_capacity(READ_CHUNK),
                        write: BytesMut::with_capacity(1024),
                        standing: call_timeout,
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Sends everything in the write buffer.
    pub(crate) fn flush(&mut self, waits: &Waits<'_>) -> io::Result<()> {
        self.stream.write_all(waits, &self.write)?;
        self.write.clear();
        Ok(())
    }

    /// Reads what the peer has sent (at least one byte) into the read
    /// buffer, parking the coroutine until it comes or `deadline` passes.
    pub(crate) fn fill(&mut self, waits: &Waits<'_>, deadline: Instant) -> io::Result<()> {
        let left = remaining(deadline)?;
        if self.standing > left + SLACK || self.standing + SLACK < left {
            self.stream.set_read_timeout(Some(left))?;
            self.standing = left;
        }
        let start = self.read.len();
        self.read.resize(start + READ_CHUNK, 0);
        let got = self.stream.read(waits, &mut self.read[start..]);
        let n = match got {
            Ok(n) => n,
            Err(e) => {
                self.read.truncate(start);
                return Err(e);
            }
        };
        self.read.truncate(start + n);
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        Ok(())
    }
}

/// What is left until `deadline`, or a timeout error if nothing is.
fn remaining(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "no answer before the deadline",
        ));
    }
    Ok(left)
}
