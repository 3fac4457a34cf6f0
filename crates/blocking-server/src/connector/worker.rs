//! A handler thread: takes a connection from the queue and runs the
//! connection loop on it (crate::http::connection_loop, the same loop a
//! virtual thread runs): read a request (its head from the bytes already
//! there, else the connection goes back to the poller), run the handler,
//! write the answer, and go round while the next request is already there.
//!
//! This is where a thread-per-request server spends its threads. While the
//! handler waits on Postgres, Redis, a sleep or the CPU loop, this thread is
//! blocked and serves nobody else; the next connection in the queue waits for
//! a free thread (Tomcat's worker threads, `maxThreads` = 200). How long it
//! waited is measured (`Request::queue_wait`, crate::queue_wait), and
//! whether every thread is busy is counted in `busy_threads`.

use crossbeam_channel::{Receiver, TryRecvError};

use crate::http::connection_loop::{self, Ended, LoopConfig};
use crate::http::read::HeadWait;
use crate::http::Handler;

use super::poller::Poller;
use super::{Conn, Shared};

pub(super) fn run(queue: &Receiver<Conn>, poller: &Poller, shared: &Shared, handler: &Handler) {
    let config = LoopConfig {
        timeouts: shared.config.timeouts,
        // An idle connection waits in the poller, not on this thread.
        head_wait: HeadWait::InPoller,
        draining: &shared.shutting_down,
        handler,
    };
    // `recv` fails once the queue is empty and its sender (the poller) is
    // gone: that is shutdown, after the last queued connection was served.
    loop {
        // Work already queued is taken at once: the thread stays busy. Only
        // on an empty queue does it become free and sleep until work comes.
        let mut connection = match queue.try_recv() {
            Ok(connection) => connection,
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => {
                shared.busy.became_free();
                let Ok(connection) = queue.recv() else {
                    return;
                };
                shared.busy.became_busy();
                connection
            }
        };
        // The platform thread's drain needs no phase: idle connections are
        // in the poller, which closes them itself.
        match connection_loop::serve(&mut connection, &config, |_| {}) {
            Ended::HeadPending => poller.park(connection),
            Ended::Closed => {} // dropped: closed
        }
    }
}
