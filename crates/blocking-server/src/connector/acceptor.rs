//! The acceptor thread: `accept(2)` in a loop, like Tomcat's `Acceptor`.
//!
//! A new connection goes to the poller, not straight to a handler thread: a
//! handler thread is taken only once the client has sent bytes, so clients
//! that connect and wait (a load tool opening its connections first) cost a
//! file descriptor each, not a thread.

use std::io;
use std::net::TcpListener;
use std::time::Duration;

use super::poller::Poller;
use super::{Connection, Shared};

pub(super) fn run(listener: TcpListener, poller: &Poller, shared: &Shared) {
    loop {
        let accepted = listener.accept();
        if shared.shutting_down() {
            // Woken by `wake`, or a connection that raced with shutdown:
            // dropping it and the listener refuses it.
            return;
        }
        match accepted {
            Ok((stream, _peer)) => {
                // Answers are small and written in one piece: do not let
                // Nagle's algorithm hold them back waiting for an ACK.
                let _ = stream.set_nodelay(true);
                // A client that stops reading cannot hold a handler thread in
                // write(2) for longer than this.
                let _ = stream.set_write_timeout(Some(shared.config.header_read_timeout));
                poller.park(Connection {
                    stream,
                    buf: Vec::new(),
                    head_deadline: None,
                    queued_at: None,
                });
            }
            Err(e) => match e.kind() {
                io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted => {}
                _ => {
                    // Out of file descriptors (EMFILE) is the usual cause under
                    // a burst; back off a little instead of spinning on it.
                    tracing::warn!(error = %e, "accept failed");
                    std::thread::sleep(Duration::from_millis(20));
                }
            },
        }
    }
}

/// Wakes the acceptor out of a blocking `accept(2)`: on Linux, shutting down
/// the reading side of a listening socket makes a blocked `accept` return.
pub(super) fn wake(listener: &TcpListener) {
    if let Err(e) = rustix::net::shutdown(listener, rustix::net::Shutdown::Read) {
        tracing::warn!(error = %e, "waking the acceptor failed");
    }
}
