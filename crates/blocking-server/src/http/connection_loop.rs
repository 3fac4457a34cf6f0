//! One connection's loop, the same on both executors: read a request, have
//! it routed and answered (the `Handler`, crate::handlers), write the
//! answer, and go round again while the connection is kept alive; answer a
//! request refused while it was read (431, 413, 408, 400) and close. It is
//! the service loop of Tomcat's `Http11Processor`.
//!
//! A handler thread of the connector (crate::connector's worker.rs) runs it
//! for a connection the poller found readable; a virtual thread
//! (crate::virtual_threads' connection.rs) runs it for its own connection
//! from accept to close. What differs between them is only the socket (a
//! std `TcpStream` whose reads block the thread, or may's whose reads park
//! the coroutine: both are `Socket`s) and where the next head is waited for
//! ([`HeadWait`]): in the poller, so that an idle keep-alive connection
//! holds no thread, or in the read itself, where a parked coroutine costs
//! its stack and no thread.

use std::sync::atomic::{AtomicBool, Ordering};

use contract::error::ErrorKind;

use super::read::{read_request, HeadWait, ReadOutcome, ReadTimeouts};
use super::write::{linger_close, write_response, Persistence};
use super::{Connection, Handler, Refused, Socket};

/// What the loop needs besides the connection: the same for every
/// connection of a server.
pub(crate) struct LoopConfig<'a> {
    pub(crate) timeouts: ReadTimeouts,
    pub(crate) head_wait: HeadWait,
    /// Set when the server drains: answers say `connection: close`.
    pub(crate) draining: &'a AtomicBool,
    pub(crate) handler: &'a Handler,
}

/// Where a connection is in the loop, for a drain that closes only idle
/// connections (virtual threads; platform threads' idle connections are
/// in the poller, which closes them itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for (or reading) the next request head.
    BetweenRequests,
    /// A request's head is in: it is read, served and answered.
    InRequest,
}

/// How serving a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Done with: the client closed, a request was refused, the connection
    /// idled out, was not kept alive, or a write failed. Dropping it closes it.
    Closed,
    /// The next head is not all there yet ([`HeadWait::InPoller`]): hand the
    /// connection to the poller to wait for the rest.
    HeadPending,
}

/// Serves requests on `conn` until it ends; `on_phase` hears where it is
/// in the loop.
pub(crate) fn serve<S: Socket>(
    conn: &mut Connection<S>,
    config: &LoopConfig<'_>,
    mut on_phase: impl FnMut(Phase),
) -> Ended {
    // Only the first request read here waited in the queue for this thread.
    let mut queue_wait = conn.queued_at.take().map(|at| at.elapsed());
    loop {
        on_phase(Phase::BetweenRequests);
        let at_head = || on_phase(Phase::InRequest);
        let request = match read_request(conn, config.timeouts, config.head_wait, at_head) {
            ReadOutcome::Request(mut request) => {
                request.queue_wait = queue_wait.take();
                request
            }
            ReadOutcome::Closed => return Ended::Closed,
            ReadOutcome::NeedMore => return Ended::HeadPending,
            ReadOutcome::Reject(refused) => {
                refuse(conn, config.handler, refused);
                return Ended::Closed;
            }
        };

        // The handler runs here, on this thread or coroutine: a handler
        // thread blocks until it is done; a coroutine parks at each wait
        // (crate::executor) and holds its carrier in between.
        let response = (config.handler)(Ok(&request));

        let keep_alive = request.keep_alive && !config.draining.load(Ordering::SeqCst);
        let persistence = Persistence::of_answer(keep_alive, request.http10);
        let head_only = request.method == "HEAD";
        let written = write_response(&mut conn.stream, &response, head_only, persistence);
        if written.is_err() || !keep_alive {
            return Ended::Closed;
        }
        // Round again: a request already here (pipelined) is served at once;
        // otherwise the next head is waited for where `head_wait` says.
    }
}

/// Answers a request refused while it was being read, then closes without
/// losing that answer.
fn refuse<S: Socket>(conn: &mut Connection<S>, handler: &Handler, refused: Refused) {
    let timed_out = refused.error.kind == ErrorKind::RequestTimeout;
    let response = handler(Err(refused));
    let _ = write_response(&mut conn.stream, &response, false, Persistence::Close);
    // A slow client is not sending a large body: no need to hold this
    // thread or coroutine for a lingering close.
    if !timed_out {
        linger_close(&mut conn.stream);
    }
}
