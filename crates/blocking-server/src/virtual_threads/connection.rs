//! One connection on virtual threads: a coroutine that reads a request,
//! runs the handler, writes the answer, and goes round again while the
//! connection is kept alive.
//!
//! The twin of a handler thread (crate::connector's worker.rs), without the
//! poller and the queue: a coroutine per connection waits on its own socket.
//! While it waits for the next head (an idle keep-alive connection) or for
//! Postgres through the yielding driver, it is parked and costs its stack,
//! not a thread; its carrier runs other coroutines. While it runs a handler
//! that blocks (the pinning driver, `/cpu`), it holds its carrier, and the
//! coroutines queued on that carrier wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::connector::Handler;
use crate::http::read::{read_request_waiting, ReadOutcome, ReadTimeouts};
use crate::http::write::{linger_close, write_response, Persistence};

use super::Shared;

/// Serves `stream` until the client closes, a request is refused, the
/// connection idles past the keep-alive timeout, or the server drains.
/// `busy` says whether a request is in progress (a drain closes the
/// connection only when not).
pub(super) fn serve(
    mut stream: may::net::TcpStream,
    shared: &Shared,
    busy: &AtomicBool,
    handler: &Handler,
) {
    let timeouts = ReadTimeouts {
        head: shared.config.header_read_timeout,
        body: shared.config.body_read_timeout,
    };
    let mut buf = Vec::new();
    loop {
        busy.store(false, Ordering::SeqCst);
        if shared.shutting_down() {
            return;
        }
        let idle_until = Instant::now() + shared.config.keep_alive_timeout;
        let read = read_request_waiting(&mut stream, &mut buf, (timeouts, idle_until), || {
            busy.store(true, Ordering::SeqCst);
        });
        let request = match read {
            ReadOutcome::Request(request) => request,
            // NeedMore is the poller's outcome; a waiting read never gives it.
            ReadOutcome::Closed | ReadOutcome::NeedMore => return,
            ReadOutcome::Reject(refused) => {
                let timed_out = refused.error.kind == contract::error::ErrorKind::RequestTimeout;
                let response = handler(Err(refused));
                let _ = write_response(&mut stream, &response, false, Persistence::Close);
                // As on platform threads: a slow client is not sending a
                // large body, so no lingering close for it.
                if !timed_out {
                    linger_close(stream);
                }
                return;
            }
        };

        // The handler runs here, on this coroutine: a yielding wait parks
        // it, a blocking call holds its carrier until it returns.
        let response = handler(Ok(&request));

        let keep_alive = request.keep_alive && !shared.shutting_down();
        let persistence = Persistence::of_answer(keep_alive, request.http10);
        let head_only = request.method == "HEAD";
        if write_response(&mut stream, &response, head_only, persistence).is_err() || !keep_alive {
            return;
        }
    }
}
