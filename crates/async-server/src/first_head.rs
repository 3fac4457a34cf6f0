//! The first request head of every connection, read and checked by the
//! contract's head rules (the blocking server's too) before hyper sees it, so that a malformed or
//! oversized head gets the contract's JSON error instead of hyper's bare
//! 400 or 431 with an empty body.
//!
//! hyper answers a head it cannot parse itself, with no way for us to shape
//! the answer. So the connection layer reads the first head off the socket
//! (into a small buffer, as hyper would), checks it with the contract's head
//! rules (`contract::head::parse_head`: the very function the blocking
//! server's crates/blocking-server/src/http/read.rs uses, so the same limits
//! and messages), adds the one rule on which hyper is stricter than httparse
//! (the request target must be a URI), and only then hands the bytes
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
use contract::ApiError;
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpStream;

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
/// answer. The checks are the contract's (`contract::head::parse_head`, which
/// the blocking server runs on every head), plus hyper's one rule on which it
/// is stricter than httparse.
fn check_head(buf: &[u8]) -> Result<bool, ApiError> {
    let mut slots = contract::head::header_slots();
    let Some(head) = contract::head::parse_head(buf, &mut slots).inspect_err(log_refusal)? else {
        return Ok(false);
    };
    // hyper's rule, not httparse's: the target must parse as a URI
    // (httparse lets through `<`, `>` and a backquote, which a URI may not hold).
    if Uri::try_from(head.target).is_err() {
        let error = contract::framing::malformed("request target");
        log_refusal(&error);
        return Err(error);
    }
    Ok(true)
}

fn log_refusal(error: &ApiError) {
    tracing::debug!(%error, "request refused");
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
}
