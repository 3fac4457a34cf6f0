//! One connection on virtual threads: a coroutine that runs the connection
//! loop (crate::http::connection_loop, the same loop a handler thread runs)
//! from accept to close, and what the loop needs of may's socket.
//!
//! The twin of a handler thread (crate::connector's worker.rs), without the
//! poller and the queue: a coroutine per connection waits on its own socket.
//! While it waits for the next head (an idle keep-alive connection) or for
//! Postgres through the yielding driver, it is parked and costs its stack,
//! not a thread; its carrier runs other coroutines. While it runs a handler
//! that blocks (the pinning driver, `/cpu`), it holds its carrier, and the
//! coroutines queued on that carrier wait.

use std::io;
use std::net::Shutdown;
use std::os::fd::{AsFd as _, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::http::connection_loop::{self, LoopConfig, Phase};
use crate::http::read::HeadWait;
use crate::http::{Connection, Handler, Socket};
use crate::settings::ServeConfig;

/// Serves `stream` until the client closes, a request is refused, the
/// connection idles past the keep-alive timeout, or the server drains
/// (`draining`, set by the acceptor's drain). `busy` says whether a request
/// is in progress (a drain closes the connection only when not).
pub(super) fn serve(
    stream: may::net::TcpStream,
    config: &ServeConfig,
    draining: &AtomicBool,
    busy: &AtomicBool,
    handler: &Handler,
) {
    let config = LoopConfig {
        timeouts: config.timeouts,
        // The coroutine waits for the next head itself, parked.
        head_wait: HeadWait::Here {
            keep_alive: config.keep_alive_timeout,
        },
        draining,
        handler,
    };
    let mut connection = Connection::new(stream);
    // It never ends with `HeadPending`: there is no poller to hand it to.
    connection_loop::serve(&mut connection, &config, |phase| {
        busy.store(phase == Phase::InRequest, Ordering::SeqCst);
    });
}

/// How much later than its deadline a coroutine's read may end (see the
/// `Socket` impl below).
const TIMEOUT_SLACK: Duration = Duration::from_millis(5);

/// `timeout` rounded up to a whole number of [`TIMEOUT_SLACK`]s: the
/// timeouts of a keep-alive connection's successive reads, a few
/// microseconds apart, round to the same value, so the socket keeps the
/// one it has.
fn rounded_up(timeout: Duration) -> Duration {
    let slack = TIMEOUT_SLACK.as_nanos();
    let steps = timeout.as_nanos().div_ceil(slack);
    Duration::from_nanos(u64::try_from(steps * slack).unwrap_or(u64::MAX))
}

impl Socket for may::net::TcpStream {
    fn fd(&self) -> BorrowedFd<'_> {
        self.inner().as_fd()
    }

    /// may keeps the timeout itself (its sockets are non-blocking and each
    /// read arms a timer) but also sets `SO_RCVTIMEO`, one system call per
    /// call. The timeout is rounded up to a multiple of [`TIMEOUT_SLACK`]
    /// and set only when that differs from the one the socket has: a read
    /// ends at most that much after its deadline, never before it, and a
    /// keep-alive connection's next request usually needs no call at all.
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let wanted = timeout.map(rounded_up);
        if may::net::TcpStream::read_timeout(self)? == wanted {
            return Ok(());
        }
        may::net::TcpStream::set_read_timeout(self, wanted)
    }

    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        may::net::TcpStream::set_write_timeout(self, timeout)
    }

    fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        may::net::TcpStream::set_nodelay(self, nodelay)
    }

    fn shutdown(&mut self, how: Shutdown) -> io::Result<()> {
        may::net::TcpStream::shutdown(self, how)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_timeouts_round_up_to_the_slack_so_a_keep_alive_loop_keeps_its_own() {
        let ms = Duration::from_millis;
        assert_eq!(rounded_up(Duration::from_nanos(1)), ms(5));
        assert_eq!(rounded_up(ms(5)), ms(5));
        assert_eq!(rounded_up(ms(5) + Duration::from_nanos(1)), ms(10));
        // Two reads' timeouts microseconds apart: the same socket option.
        let keep_alive = Duration::from_secs(20);
        let first = keep_alive - Duration::from_micros(3);
        let next = keep_alive - Duration::from_micros(41);
        assert_eq!(rounded_up(first), rounded_up(next));
        assert_eq!(rounded_up(first), keep_alive);
    }
}
