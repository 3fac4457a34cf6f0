//! The first request head of every connection, read and checked by the
//! blocking server's rules before hyper sees it, so that a malformed or
//! oversized head gets the contract's JSON error instead of hyper's bare
//! 400 or 431 with an empty body.
//!
//! hyper answers a head it cannot parse itself, with no way for us to shape
//! the answer. So the connection layer reads the first head off the socket
//! (into a small buffer, as hyper would), parses it with httparse exactly as
//! crates/blocking-server/src/http/read.rs does (same header count, same
//! size limit, same messages), adds the few rules on which hyper is stricter
//! than httparse (the request target must be a URI, Content-Length only
//! digits, no Transfer-Encoding on HTTP/1.0), and only then hands the bytes
//! to hyper through [`crate::prefixed_io::PrefixedIo`]. A head that passes
//! here is one hyper accepts.
//!
//! Limitation, on purpose: only the first head of a connection is checked.
//! Later heads on the same keep-alive connection are read by hyper alone,
//! and a malformed one still gets hyper's bare 400 (or 431). Checking them
//! too would mean finding where each body ends (Content-Length, chunked) in
//! a layer under hyper, on every request: the hot path this server is here to
//! measure. Clients that send garbage rarely do so after a good request.

use axum::http::Uri;
use contract::params::MAX_HEADER_BYTES;
use contract::ApiError;
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpStream;

/// Header fields beyond this many get 431: the blocking server's limit, and
/// hyper's default one too, so later heads on a connection see the same rule.
const MAX_HEADERS: usize = 100;
/// What the buffer starts at: most heads (curl, load tools) are well under.
const INITIAL_BUFFER: usize = 1024;

/// What reading the first head gave.
#[derive(Debug)]
pub(crate) enum FirstHead {
    /// A complete head that hyper will accept is in the buffer (with whatever
    /// the client sent after it).
    Ready,
    /// The client closed, or a read failed, before a complete head: close
    /// without answering, as both servers do.
    Closed,
    /// Answer this error, then close: the rest of the input cannot be trusted.
    Reject(ApiError),
}

/// A fresh buffer for [`read_first_head`].
pub(crate) fn head_buffer() -> Vec<u8> {
    Vec::with_capacity(INITIAL_BUFFER)
}

/// Reads from `stream` into `buf` until `buf` holds a complete head, or an
/// error to answer, or the client is gone. Cancel-safe: the bytes read so far
/// stay in `buf`, so a caller that times out can tell an idle connection
/// (empty) from a half-sent head.
pub(crate) async fn read_first_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> FirstHead {
    loop {
        if !buf.is_empty() {
            match check_head(buf) {
                Ok(true) => return FirstHead::Ready,
                Ok(false) if buf.len() > MAX_HEADER_BYTES => {
                    return FirstHead::Reject(ApiError::headers_too_large())
                }
                Ok(false) => {}
                Err(error) => return FirstHead::Reject(error),
            }
        }
        // `read_buf` grows the vector as needed; the loop above stops it
        // once the head is over the limit, so it stays under ~2 x 16 KiB.
        if buf.capacity() == buf.len() {
            buf.reserve(buf.len().max(INITIAL_BUFFER));
        }
        match stream.read_buf(buf).await {
            Ok(0) | Err(_) => return FirstHead::Closed,
            Ok(_) => {}
        }
    }
}

/// Checks the head at the start of `buf`: `Ok(true)` when it is complete
/// and acceptable, `Ok(false)` when more bytes are needed, else the error to
/// answer. The messages are the blocking server's (crates/blocking-server/
/// src/http/read.rs, `parse_head`), in the same order.
fn check_head(buf: &[u8]) -> Result<bool, ApiError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    let head_len = match parsed.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(false),
        Err(httparse::Error::TooManyHeaders) => return Err(ApiError::headers_too_large()),
        Err(e) => return Err(malformed(&format!("request head: {e}"))),
    };
    if head_len > MAX_HEADER_BYTES {
        return Err(ApiError::headers_too_large());
    }
    let (Some(_method), Some(target), Some(version)) = (parsed.method, parsed.path, parsed.version)
    else {
        return Err(malformed("request line"));
    };
    // hyper's rule, not httparse's: the target must parse as a URI
    // (httparse lets through `<`, `>` and a backquote, which a URI may not hold).
    if Uri::try_from(target).is_err() {
        return Err(malformed("request target"));
    }

    // The framing rule both servers share (contract::framing); only whether
    // the head is acceptable matters here, hyper does the framing itself.
    let headers = parsed.headers.iter().map(|h| (h.name, h.value));
    contract::framing::body_framing(headers, version == 0).map(|_| true)
}

fn malformed(what: &str) -> ApiError {
    tracing::debug!("malformed request: {what}");
    contract::framing::malformed(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(raw: &[u8]) -> ApiError {
        match check_head(raw) {
            Err(error) => error,
            Ok(complete) => panic!("accepted {raw:?} (complete: {complete})"),
        }
    }

    #[test]
    fn a_good_head_is_complete_and_half_a_head_asks_for_more() {
        assert!(matches!(
            check_head(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n"),
            Ok(true)
        ));
        assert!(matches!(
            check_head(b"GET /health HTTP/1.1\r\nHo"),
            Ok(false)
        ));
    }

    #[test]
    fn garbage_gets_the_blocking_servers_400() {
        let error = rejected(b"A\r\nHost: t\r\n\r\n");
        assert_eq!(error.status(), 400);
        assert!(error
            .body()
            .error
            .starts_with("malformed request: request head: "));
    }

    #[test]
    fn what_hyper_refuses_is_refused_here_with_a_body() {
        for raw in [
            &b"GET /<x> HTTP/1.1\r\n\r\n"[..],
            b"POST /echo HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        ] {
            assert_eq!(
                rejected(raw).status(),
                400,
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn too_many_fields_or_bytes_get_431() {
        let mut many = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend_from_slice(format!("x-{i}: v\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(rejected(&many).status(), 431);
        let big = format!(
            "GET / HTTP/1.1\r\nx: {}\r\n\r\n",
            "a".repeat(MAX_HEADER_BYTES)
        );
        assert_eq!(rejected(big.as_bytes()).status(), 431);
    }
}
