//! Writing one response to a socket whose writes wait: status line, a few
//! headers, body.
//!
//! The head and body go out in one `write(2)` where the kernel takes it all
//! (bodies here are small), so a keep-alive client sees one segment per answer.

use std::io::{self, Write};
use std::net::Shutdown;
use std::time::{Duration, Instant};

use super::{Response, Socket};

/// What the `Connection` header of an answer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Persistence {
    /// HTTP/1.1 default: no header.
    KeepAliveImplied,
    /// HTTP/1.0 client that asked for keep-alive.
    KeepAlive,
    Close,
}

impl Persistence {
    /// What an answer says when the connection is to be kept (`keep_alive`):
    /// nothing on HTTP/1.1, where it is the default, and `keep-alive` to an
    /// HTTP/1.0 client, which otherwise waits for the close.
    pub(crate) fn of_answer(keep_alive: bool, http10: bool) -> Self {
        match (keep_alive, http10) {
            (false, _) => Persistence::Close,
            (true, true) => Persistence::KeepAlive,
            (true, false) => Persistence::KeepAliveImplied,
        }
    }
}

/// Writes `response`; for a `HEAD` request (`head_only`) the body is left out
/// but its length still announced, as for the `GET` it stands for.
pub(crate) fn write_response(
    stream: &mut impl Write,
    response: &Response,
    head_only: bool,
    persistence: Persistence,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(160 + response.body.len());
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(response.status.to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(reason_phrase(response.status).as_bytes());
    out.extend_from_slice(b"\r\ncontent-type: ");
    out.extend_from_slice(response.content_type.as_bytes());
    out.extend_from_slice(b"\r\ncontent-length: ");
    out.extend_from_slice(response.body.len().to_string().as_bytes());
    if let Some(allow) = response.allow {
        out.extend_from_slice(b"\r\nallow: ");
        out.extend_from_slice(allow.as_bytes());
    }
    match persistence {
        Persistence::KeepAliveImplied => {}
        Persistence::KeepAlive => out.extend_from_slice(b"\r\nconnection: keep-alive"),
        Persistence::Close => out.extend_from_slice(b"\r\nconnection: close"),
    }
    out.extend_from_slice(b"\r\n\r\n");
    if !head_only {
        out.extend_from_slice(&response.body);
    }
    stream.write_all(&out)?;
    stream.flush()
}

/// Closes a connection after an error answer without losing that answer.
///
/// When we refuse a request (413, 431, 400) the client may still be sending
/// its body. Closing a socket with unread input makes the kernel send a reset,
/// and a reset can reach the client before it has read our answer. So we stop
/// writing, read and throw away what is still coming for a short while, then
/// close (the "lingering close" of Apache and nginx).
pub(crate) fn linger_close<S: Socket>(stream: &mut S) {
    const LINGER_FOR: Duration = Duration::from_secs(2);
    const LINGER_MAX_BYTES: usize = 1024 * 1024;
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + LINGER_FOR;
    let mut scratch = [0u8; 8192];
    let mut drained = 0;
    while drained < LINGER_MAX_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match stream.read(&mut scratch) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}
