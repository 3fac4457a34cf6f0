//! The checks every request head gets before either server acts on it: the
//! size and field-count limits, the request line, header values, and the body
//! framing ([`crate::framing`]). Bytes in, a parsed head or the error to
//! answer out.
//!
//! Both servers parse heads with httparse: the blocking server every head,
//! the async server the first head of each connection, before hyper sees it
//! (crates/async-server/src/first_head.rs says why only the first). Parsing
//! through this one function is what makes a malformed or oversized head get
//! the same status and message from both.

use crate::framing::{body_framing, malformed, BodyFraming};
use crate::params::MAX_HEADER_BYTES;
use crate::ApiError;

/// More header fields than this answers 431, like a head over
/// [`MAX_HEADER_BYTES`]. hyper's default limit is the same, so later heads on
/// an async keep-alive connection meet the same rule.
pub const MAX_HEADERS: usize = 100;

/// Room for the header fields of one head: pass a fresh one to [`parse_head`].
pub type HeaderSlots<'b> = [httparse::Header<'b>; MAX_HEADERS];

/// An empty [`HeaderSlots`].
pub fn header_slots<'b>() -> HeaderSlots<'b> {
    [httparse::EMPTY_HEADER; MAX_HEADERS]
}

/// A complete head that passed every check.
#[derive(Debug)]
pub struct RequestHead<'h, 'b> {
    pub method: &'b str,
    /// The request target as sent: path and query, not decoded.
    pub target: &'b str,
    pub http10: bool,
    /// The header fields; every value is UTF-8 (checked).
    pub headers: &'h [httparse::Header<'b>],
    /// Where the head ends in the buffer (the body or the next request starts there).
    pub len: usize,
    pub framing: BodyFraming,
}

impl RequestHead<'_, '_> {
    /// The header fields as (name, value) text.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers
            .iter()
            .map(|h| (h.name, std::str::from_utf8(h.value).unwrap_or_default()))
    }
}

/// Parses the head at the start of `buf`: `Ok(None)` when more bytes are
/// needed (and may come), else the checked head or the error to answer. The
/// checks, in the order their messages can appear: httparse's syntax (400
/// `malformed request: request head: ...`), too many fields or bytes (431),
/// the request line, header values that are not UTF-8 text (400 `... header
/// value`), then the framing rule.
///
/// No more than the first [`MAX_HEADER_BYTES`] are parsed: a head not
/// complete within them is a 431, whatever follows. So the answer is the
/// same however the bytes arrived: were the whole buffer parsed, a syntax
/// error past the limit would be a 400 when it came in the same read as the
/// limit, and a 431 when the limit was reached first.
pub fn parse_head<'h, 'b>(
    buf: &'b [u8],
    slots: &'h mut HeaderSlots<'b>,
) -> Result<Option<RequestHead<'h, 'b>>, ApiError> {
    let within_limit = &buf[..buf.len().min(MAX_HEADER_BYTES)];
    let mut parsed = httparse::Request::new(slots);
    let len = match parsed.parse(within_limit) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if within_limit.len() == MAX_HEADER_BYTES => {
            return Err(ApiError::headers_too_large())
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(ApiError::headers_too_large()),
        Err(e) => return Err(malformed(&format!("request head: {e}"))),
    };
    let (Some(method), Some(target), Some(version)) = (parsed.method, parsed.path, parsed.version)
    else {
        return Err(malformed("request line"));
    };
    let headers = parsed.headers;
    if headers
        .iter()
        .any(|h| std::str::from_utf8(h.value).is_err())
    {
        return Err(malformed("header value"));
    }
    let http10 = version == 0;
    let framing = body_framing(headers.iter().map(|h| (h.name, h.value)), http10)?;
    Ok(Some(RequestHead {
        method,
        target,
        http10,
        headers,
        len,
        framing,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status and message for `raw`, or what was parsed.
    fn check(raw: &[u8]) -> Result<Option<(String, usize)>, (u16, String)> {
        let mut slots = header_slots();
        parse_head(raw, &mut slots)
            .map(|head| head.map(|h| (format!("{} {}", h.method, h.target), h.len)))
            .map_err(|e| (e.status(), e.message))
    }

    #[test]
    fn a_good_head_is_parsed_and_half_a_head_asks_for_more() {
        let raw = b"GET /users/1?x=2 HTTP/1.1\r\nHost: t\r\n\r\nnext";
        assert_eq!(
            check(raw),
            Ok(Some(("GET /users/1?x=2".into(), raw.len() - 4)))
        );
        assert_eq!(check(b"GET /health HTTP/1.1\r\nHo"), Ok(None));
    }

    #[test]
    fn malformed_heads_get_400_with_what_was_wrong() {
        let cases: [(&[u8], &str); 3] = [
            (b"A\r\nHost: t\r\n\r\n", "malformed request: request head: "),
            (
                b"GET / HTTP/1.1\r\nX: \xff\r\n\r\n",
                "malformed request: header value",
            ),
            (
                b"POST /echo HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
                "malformed request: content-length",
            ),
        ];
        for (raw, message) in cases {
            match check(raw) {
                Err((400, got)) => assert!(got.starts_with(message), "{got:?}"),
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(raw)),
            }
        }
    }

    #[test]
    fn too_many_fields_or_bytes_get_431() {
        let mut many = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend_from_slice(format!("x-{i}: v\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(check(&many).map_err(|e| e.0), Err(431));
        let big = format!(
            "GET / HTTP/1.1\r\nx: {}\r\n\r\n",
            "a".repeat(MAX_HEADER_BYTES)
        );
        assert_eq!(check(big.as_bytes()).map_err(|e| e.0), Err(431));
        // Still incomplete, but already too big to ever fit.
        let partial = format!("GET / HTTP/1.1\r\nx: {}", "a".repeat(MAX_HEADER_BYTES));
        assert_eq!(check(partial.as_bytes()).map_err(|e| e.0), Err(431));
        let fits = format!("GET / HTTP/1.1\r\nx: {}", "a".repeat(100));
        assert_eq!(check(fits.as_bytes()), Ok(None));
        // A syntax error past the limit is never reached: 431, as when the
        // bytes up to the limit came first.
        let mut broken_late = partial.into_bytes();
        broken_late.extend_from_slice(b"\x01\r\n\r\n");
        assert_eq!(check(&broken_late).map_err(|e| e.0), Err(431));
    }
}
