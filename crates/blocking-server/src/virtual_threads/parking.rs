//! may's waits, for the code outside this module that parks a coroutine
//! (the yielding driver, crate::yielding): a TCP stream and a semaphore
//! whose every wait takes the request's `Waits` (crate::executor) and goes
//! through `Waits::parked`, so that the pinning detector ends a run at each
//! park. The type is the rule: outside crate::virtual_threads nothing names
//! may, so these are the only waits there that park, and none of them can
//! be made without a `Waits`.
//!
//! Outside a coroutine (a test's main thread) each wait blocks the thread,
//! as std's would.

use std::io::{self, Read as _, Write as _};
use std::net::SocketAddr;
use std::time::Duration;

use crate::executor::Waits;

/// may's `TcpStream`: a read or a write that must wait parks the coroutine
/// in may's reactor (epoll), and its carrier runs others until the socket
/// is ready or the timeout fires.
pub(crate) struct TcpStream(may::net::TcpStream);

impl TcpStream {
    /// Connects to `addr` within `timeout`, parked while the handshake is
    /// under way.
    pub(crate) fn connect_timeout(
        waits: &Waits<'_>,
        addr: &SocketAddr,
        timeout: Duration,
    ) -> io::Result<TcpStream> {
        waits
            .parked(|| may::net::TcpStream::connect_timeout(addr, timeout))
            .map(TcpStream)
    }

    /// Reads what is there, at least one byte, parked until some comes, the
    /// peer closes (`Ok(0)`) or the read timeout fires.
    pub(crate) fn read(&mut self, waits: &Waits<'_>, buf: &mut [u8]) -> io::Result<usize> {
        waits.parked(|| self.0.read(buf))
    }

    /// Writes all of `buf`, parked while the socket's send buffer is full.
    pub(crate) fn write_all(&mut self, waits: &Waits<'_>, buf: &[u8]) -> io::Result<()> {
        waits.parked(|| self.0.write_all(buf))
    }

    pub(crate) fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.0.set_nodelay(nodelay)
    }

    /// How long a read may park before it fails with a timeout.
    pub(crate) fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.0.set_read_timeout(timeout)
    }

    /// How long a write may park before it fails with a timeout.
    pub(crate) fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.0.set_write_timeout(timeout)
    }
}

/// may's semaphore: a wait for a permit parks the coroutine until one is
/// posted or the timeout passes.
pub(crate) struct Semaphore(may::sync::Semphore);

impl Semaphore {
    pub(crate) fn new(permits: usize) -> Semaphore {
        Semaphore(may::sync::Semphore::new(permits))
    }

    /// Takes a permit if one is free now, without waiting.
    pub(crate) fn try_wait(&self) -> bool {
        self.0.try_wait()
    }

    /// Takes a permit, parked until one is posted; `false` if none came
    /// within `timeout`.
    pub(crate) fn wait_timeout(&self, waits: &Waits<'_>, timeout: Duration) -> bool {
        waits.parked(|| self.0.wait_timeout(timeout))
    }

    /// Gives a permit back, waking one waiter.
    pub(crate) fn post(&self) {
        self.0.post();
    }
}
