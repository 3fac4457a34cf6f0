//! HTTP/1.1 on a blocking socket, the part Tomcat's `Http11Processor` does:
//! read one request (head parsed by httparse, body by `Content-Length` or
//! chunked) and write one response.
//!
//! The reading side is in [`read`], the writing side in [`write`]; this file
//! holds the types that travel between the connector and the handlers, and
//! [`Socket`], what both sides need of a connection's socket.

pub(crate) mod read;
pub(crate) mod write;

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::time::{Duration, Instant};

use contract::error::ErrorKind;
use contract::ApiError;

/// One request, fully read: the handlers never touch the socket.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The path of the request target, without the query string, not decoded.
    pub(crate) path: String,
    /// The raw query string (without `?`), not decoded: `/cpu` parses it as is.
    pub(crate) query: Option<String>,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Vec<u8>,
    /// Whether the client asked to keep the connection open after the answer.
    pub(crate) keep_alive: bool,
    /// HTTP/1.0 needs `Connection: keep-alive` spelt out in the answer.
    pub(crate) http10: bool,
    /// How long the request waited in the queue for a free handler thread
    /// (crate::queue_wait); `None` when it did not come through the queue
    /// (a pipelined request) or the connector cannot tell (tiny-http).
    pub(crate) queue_wait: Option<std::time::Duration>,
    /// When its head was complete: the request's time in
    /// `http_server_requests_seconds` counts from here.
    pub(crate) head_at: Instant,
}

/// A request refused while it was being read (431, 413, 408, 400), to be
/// counted and answered.
#[derive(Debug, Clone)]
pub(crate) struct Refused {
    pub(crate) error: ApiError,
    /// The head, when it had been read: the refusal was of the body (too
    /// large, malformed, or past its deadline), and the route is known.
    pub(crate) head: Option<HeadSeen>,
}

/// What a refused request's head said, for counting it under its route.
#[derive(Debug, Clone)]
pub(crate) struct HeadSeen {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) at: Instant,
}

impl Refused {
    /// Refused before the head was complete: no route, no time taken.
    pub(crate) fn in_head(error: ApiError) -> Self {
        Refused { error, head: None }
    }

    /// Whether this is a body that missed its deadline (a 408 after the
    /// head was in: a head that misses its own has no head to show).
    pub(crate) fn is_body_timeout(&self) -> bool {
        self.head.is_some() && self.error.kind == ErrorKind::RequestTimeout
    }
}

/// One answer. The connector adds the framing headers (`content-length`,
/// `connection`) when it writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
    /// The `Allow` header of a 405.
    pub(crate) allow: Option<&'static str>,
}

impl Response {
    pub(crate) const JSON: &'static str = "application/json";

    /// A 200 with a JSON body.
    pub(crate) fn json(body: Vec<u8>) -> Self {
        Response {
            status: 200,
            content_type: Self::JSON,
            body,
            allow: None,
        }
    }

    /// The contract's error shape: the status of the error and `{"error":..}`.
    pub(crate) fn error(error: &ApiError) -> Self {
        Response {
            status: error.status(),
            content_type: Self::JSON,
            body: error.body_json(),
            allow: None,
        }
    }
}

/// How much later than its deadline a coroutine's read may end (see the
/// `Socket` impl for may's `TcpStream`).
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

/// What reading a request and writing its answer need of a socket: a std
/// `TcpStream` on platform threads, where a read blocks the thread, or
/// may's on virtual threads (crate::virtual_threads), where the same read
/// parks the coroutine and frees its carrier.
pub(crate) trait Socket: Read + Write {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()>;
    fn shutdown(&mut self, how: Shutdown) -> io::Result<()>;
}

impl Socket for std::net::TcpStream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_read_timeout(self, timeout)
    }

    fn shutdown(&mut self, how: Shutdown) -> io::Result<()> {
        std::net::TcpStream::shutdown(self, how)
    }
}

impl Socket for may::net::TcpStream {
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
