//! The acceptor thread: `accept(2)` in a loop, like Tomcat's `Acceptor`,
//! with the accept policy both acceptors share (crate::accept_policy).
//!
//! A new connection goes to the poller, not straight to a handler thread: a
//! handler thread is taken only once the client has sent bytes, so clients
//! that connect and wait (a load tool opening its connections first) cost a
//! file descriptor each, not a thread. At the connection cap (the
//! open-file limit less what the pools need) it waits until a connection
//! closes, and new clients wait in the listen backlog (limit_latch.rs).

use std::net::TcpListener;
use std::sync::Arc;

use crate::accept_policy::{ready_accepted, AcceptErrors};
use crate::http::Connection;

use super::limit_latch::LimitLatch;
use super::poller::Poller;
use super::{Conn, Shared};

pub(super) fn run(
    listener: TcpListener,
    poller: &Poller,
    shared: &Shared,
    latch: &Arc<LimitLatch>,
) {
    let mut errors = AcceptErrors::default();
    loop {
        let Some(counted) = latch.count_up_or_await(|| shared.shutting_down()) else {
            return;
        };
        let accepted = listener.accept();
        if shared.shutting_down() {
            // Woken by `wake`, or a connection that raced with shutdown:
            // dropping it and the listener refuses it.
            return;
        }
        match accepted {
            Ok((stream, _peer)) => {
                errors.accepted();
                ready_accepted(&stream, shared.config.timeouts.head);
                poller.park(Conn {
                    connection: Connection::new(stream),
                    _counted: counted,
                });
            }
            Err(e) => {
                drop(counted);
                if let Some(pause) = errors.failed(&e) {
                    #[allow(
                        clippy::disallowed_methods,
                        reason = "the acceptor's back-off, in no request"
                    )]
                    std::thread::sleep(pause);
                }
            }
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
