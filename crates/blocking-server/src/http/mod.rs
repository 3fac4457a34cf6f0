//! HTTP/1.1 on a socket whose reads wait, the part Tomcat's
//! `Http11Processor` does: read one request (its head, then its body by
//! `Content-Length` or chunked, each by the contract's rules), write one
//! response, and the loop that does both on one connection while it is
//! kept alive.
//!
//! The reading side is in [`read`], the writing side in [`write`], the
//! loop, the same on both executors, in [`connection_loop`]; this file holds
//! the types that travel between the connection layers and the handlers,
//! and [`Socket`], what all of them need of a connection's socket.

pub(crate) mod connection_loop;
#[cfg(test)]
mod connection_loop_tests;
pub(crate) mod read;
pub(crate) mod write;

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::fd::{AsFd as _, BorrowedFd};
use std::time::{Duration, Instant};

use contract::error::ErrorKind;
use contract::ApiError;

/// What a connection layer calls for every request, on the thread or
/// coroutine that read it: route it and run the handler (crate::handlers).
/// A request refused while it was being read (431, 413, 408, 400) comes as
/// `Err`, to be counted and answered.
pub(crate) type Handler = dyn Fn(Result<&Request, Refused>) -> Response + Send + Sync;

/// One client connection as the connection loop sees it: its socket and
/// the bytes read from it but not used yet (the start of a pipelined
/// request, or of a head still arriving).
#[derive(Debug)]
pub(crate) struct Connection<S> {
    pub(crate) stream: S,
    pub(crate) buf: Vec<u8>,
    /// When the head being received must be complete (set at its first
    /// byte, cleared once it is in).
    pub(crate) head_deadline: Option<Instant>,
    /// When the poller put it on the handler queue, for the first request's
    /// wait for a thread (crate::queue_wait): platform threads only; no
    /// queue stands between a virtual-thread connection and its coroutine.
    pub(crate) queued_at: Option<Instant>,
}

impl<S> Connection<S> {
    pub(crate) fn new(stream: S) -> Self {
        Connection {
            stream,
            buf: Vec::new(),
            head_deadline: None,
            queued_at: None,
        }
    }
}

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

/// What reading a request and writing its answer need of a connection's
/// socket: a std `TcpStream` on platform threads, where a read blocks the
/// handler thread, or may's on virtual threads (its impl is in
/// crate::virtual_threads::connection), where the same read parks the
/// coroutine and frees its carrier.
pub(crate) trait Socket: Read + Write {
    /// The socket's descriptor, for a read that must not wait at all
    /// (`recv` with `MSG_DONTWAIT`: the head bytes already there).
    fn fd(&self) -> BorrowedFd<'_>;
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()>;
    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()>;
    fn set_nodelay(&self, nodelay: bool) -> io::Result<()>;
    fn shutdown(&mut self, how: Shutdown) -> io::Result<()>;
}

impl Socket for std::net::TcpStream {
    fn fd(&self) -> BorrowedFd<'_> {
        self.as_fd()
    }

    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_read_timeout(self, timeout)
    }

    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_write_timeout(self, timeout)
    }

    fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        std::net::TcpStream::set_nodelay(self, nodelay)
    }

    fn shutdown(&mut self, how: Shutdown) -> io::Result<()> {
        std::net::TcpStream::shutdown(self, how)
    }
}
