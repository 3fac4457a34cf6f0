//! A handler thread: takes a connection from the queue, reads ONE request
//! (its head from the bytes already there, else the connection goes back to
//! the poller), runs the handler, writes the answer, and gives the connection
//! back.
//!
//! This is where a thread-per-request server spends its threads. While the
//! handler waits on Postgres, Redis, a sleep or the CPU loop, this thread is
//! blocked and serves nobody else; the next connection in the queue waits for
//! a free thread (Tomcat's worker threads, `maxThreads` = 200). How long it
//! waited is measured here (`Request::queue_wait`, crate::queue_wait), and
//! whether every thread is busy is counted in `busy_threads`.

use crossbeam_channel::{Receiver, TryRecvError};

use crate::http::read::{read_request, ReadOutcome, ReadTimeouts};
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
    loop {
        // Work already queued is taken at once: the thread stays busy. Only
        // on an empty queue does it become free and sleep until work comes.
        let connection = match queue.try_recv() {
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
        serve(connection, poller, shared, handler);
    }
}

/// Serves requests on one connection until it has nothing complete to read
/// (then it is parked), is closed, or is refused.
fn serve(mut connection: Connection, poller: &Poller, shared: &Shared, handler: &Handler) {
    // Only the first request read here waited in the queue for this thread.
    let mut queue_wait = connection.queued_at.take().map(|at| at.elapsed());
    let timeouts = ReadTimeouts {
        head: shared.config.header_read_timeout,
        body: shared.config.body_read_timeout,
    };
    loop {
        let read = read_request(
            &mut connection.stream,
            &mut connection.buf,
            &mut connection.head_deadline,
            timeouts,
        );
        let request = match read {
            ReadOutcome::Request(mut request) => {
                request.queue_wait = queue_wait.take();
                request
            }
            ReadOutcome::Closed => return,
            ReadOutcome::NeedMore => {
                // The (rest of the) head is not here yet: wait for it in the
                // poller, not on this thread.
                poller.park(connection);
                return;
            }
            ReadOutcome::Reject(refused) => {
                let timed_out = refused.error.kind == contract::error::ErrorKind::RequestTimeout;
                let response = handler(Err(refused));
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
        let persistence = Persistence::of_answer(keep_alive, request.http10);
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
