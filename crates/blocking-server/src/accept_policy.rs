//! What an acceptor does when `accept(2)` fails, and with a connection it
//! accepted: one policy for both acceptors, the connector's thread
//! (crate::connector's acceptor.rs) and the virtual threads' coroutine
//! (crate::virtual_threads' acceptor.rs), which differ only in how they
//! wait out a back-off (a thread sleeps, a coroutine parks).
//!
//! A failure that concerns one connection only is skipped at once: the
//! client reset it before we took it (`ECONNABORTED`), or a signal
//! interrupted the call. Any other failure is the process's or the
//! machine's: out of file descriptors (`EMFILE`, `ENFILE`, the usual cause
//! under a burst of connections), out of buffers or memory. Calling
//! `accept` again at once would fail again and spin a core, so the acceptor
//! backs off, as Tomcat's `Acceptor` does: 20 ms after the first failure,
//! twice as long after each next one up to 320 ms, and from 20 ms again once
//! a connection is accepted. Meanwhile new clients wait in the listen
//! backlog, and a connection that closes gives its descriptor back.

use std::io;
use std::time::Duration;

use crate::http::Socket;

/// The first back-off after a failure that is not one connection's.
const FIRST_BACK_OFF: Duration = Duration::from_millis(20);
/// The longest back-off.
const MAX_BACK_OFF: Duration = Duration::from_millis(320);

/// One acceptor's state of the policy: the back-off it is in.
#[derive(Debug, Default)]
pub(crate) struct AcceptErrors {
    /// The last back-off, zero when the last accept succeeded.
    back_off: Duration,
}

impl AcceptErrors {
    /// A connection was accepted: the next failure backs off from the start.
    pub(crate) fn accepted(&mut self) {
        self.back_off = Duration::ZERO;
    }

    /// What to do after `accept` failed with `error`: `None`, accept again
    /// at once; `Some(pause)`, wait that long first (a warning is logged).
    pub(crate) fn failed(&mut self, error: &io::Error) -> Option<Duration> {
        if matches!(
            error.kind(),
            io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
        ) {
            return None;
        }
        self.back_off = (self.back_off * 2).clamp(FIRST_BACK_OFF, MAX_BACK_OFF);
        tracing::warn!(error = %error, back_off = ?self.back_off, "accept failed; backing off");
        Some(self.back_off)
    }
}

/// Readies an accepted connection: answers are small and written in one
/// piece, so Nagle's algorithm must not hold them back waiting for an ACK;
/// and a client that stops reading cannot hold a write (and the thread or
/// coroutine in it) for longer than `write_timeout` (the header timeout).
pub(crate) fn ready_accepted<S: Socket>(stream: &S, write_timeout: Duration) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(write_timeout));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: io::ErrorKind) -> io::Error {
        io::Error::from(kind)
    }

    #[test]
    fn one_connections_failure_is_skipped_at_once() {
        let mut errors = AcceptErrors::default();
        for kind in [io::ErrorKind::Interrupted, io::ErrorKind::ConnectionAborted] {
            assert_eq!(errors.failed(&error(kind)), None, "{kind:?}");
        }
    }

    #[test]
    fn running_out_of_descriptors_backs_off_doubling_to_a_cap_and_afresh_after_an_accept() {
        let emfile = io::Error::from_raw_os_error(rustix::io::Errno::MFILE.raw_os_error());
        let mut errors = AcceptErrors::default();
        let ms = Duration::from_millis;
        let pauses: Vec<_> = (0..6).map(|_| errors.failed(&emfile)).collect();
        assert_eq!(
            pauses,
            [20, 40, 80, 160, 320, 320].map(|p| Some(ms(p))),
            "{pauses:?}"
        );
        errors.accepted();
        assert_eq!(errors.failed(&emfile), Some(ms(20)));
    }
}
