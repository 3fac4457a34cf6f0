//! HTTP/1.1 on a blocking socket, the part Tomcat's `Http11Processor` does:
//! read one request (head parsed by httparse, body by `Content-Length` or
//! chunked) and write one response.
//!
//! The reading side is in [`read`], the writing side in [`write`]; this file
//! holds the two types that travel between the connector and the handlers.

pub(crate) mod read;
pub(crate) mod write;

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
    pub(crate) fn error(error: &contract::ApiError) -> Self {
        Response {
            status: error.status(),
            content_type: Self::JSON,
            body: error.body_json(),
            allow: None,
        }
    }
}
