//! A handler thread: takes a connection from the queue, reads ONE request
//! (its head from the bytes already there, else the connection goes back to
//! the poller), runs the handler, writes the answer, and gives the connection
//! back.
//!
//! This is where a thread-per-request server spends its threads. While the
//! handler waits on Postgres, Redis, a sleep or the CPU loop, this thread is
//! blocked and serves nobody else; the next connection in the queue waits for
//! a free thread (Tomcat's worker threads, `maxThreads` = 200).

use crossbeam_channel::Receiver;

use crate::http::read::{read_request, ReadOutcome};
use crate::http::write::{linger_close, write_response, Persistence};

use super::poller::Poller;
use super::{Connection, Handler, Shared};

pub(super) fn run(
    queue: &Receiver<Connection>,
    poller: &Poller,
    shared: &Shared,
    handler: &Handler,
) {
    // `recv` fails once the queue is empty and its sender (the poller) is
    // gone: that is shutdown, after the last queued connection was served.
    while let Ok(connection) = queue.recv() {
        serve(connection, poller, shared, handler);
    }
}

/// Serves requests on one connection until it has nothing complete to read
/// (then it is parked), is closed, or is refused.
fn serve(mut connection: Connection, poller: &Poller, shared: &Shared, handler: &Handler) {
    loop {
        let timeout = shared.config.header_read_timeout;
        let read = read_request(
            &mut connection.stream,
            &mut connection.buf,
            &mut connection.head_deadline,
            timeout,
        );
        let request = match read {
            ReadOutcome::Request(request) => request,
            ReadOutcome::Closed => return,
            ReadOutcome::NeedMore => {
                // The (rest of the) head is not here yet: wait for it in the
                // poller, not on this thread.
                poller.park(connection);
                return;
            }
            ReadOutcome::Reject(error) => {
                let timed_out = error.kind == contract::error::ErrorKind::RequestTimeout;
                let response = handler(Err(error));
                let _ =
                    write_response(&mut connection.stream, &response, false, Persistence::Close);
                // A slow client is not sending a large body: no need to hold
                // this thread for a lingering close.
                if !timed_out {
                    linger_close(connection.stream);
                }
                return;
            }
        };

        // The handler runs here, on this thread, and blocks it until done.
        let response = handler(Ok(&request));

        let keep_alive = request.keep_alive && !shared.shutting_down();
        let persistence = match (keep_alive, request.http10) {
            (false, _) => Persistence::Close,
            (true, true) => Persistence::KeepAlive,
            (true, false) => Persistence::KeepAliveImplied,
        };
        let head_only = request.method == "HEAD";
        if write_response(&mut connection.stream, &response, head_only, persistence).is_err() {
            return;
        }
        if !keep_alive {
            return;
        }
        // Round again: if the next request is already here (pipelining) it is
        // served on this thread; if not, `read_request` says `NeedMore`
        // without waiting, and the connection goes to the poller.
    }
}
