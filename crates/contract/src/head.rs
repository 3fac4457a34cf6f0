//! The checks every request head gets before either server acts on it: the
//! size and field-count limits, the request line and its target, header
//! values, and the body framing ([`crate::framing`]). Bytes in, a parsed
//! head or the error to answer out.
//!
//! Both servers parse every head with httparse through this one function:
//! the blocking server in its reader, the async server in its request
//! scanner ([`crate::request_scan`]), before hyper sees the bytes. That is
//! what makes a malformed or oversized head get the same status and message
//! from both, on any request of a connection.

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
/// `malformed request: request head: ...`, an HTTP version other than 1.0
/// and 1.1 and HTTP/2's preface among them), too many fields or bytes
/// (431), the request line, its target ([`check_target`], 400 `... request
/// target`), header values that are not UTF-8 text (400 `... header
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
    check_target(target)?;
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

/// Whether a byte may appear in a request target: RFC 3986's characters
/// (unreserved, reserved and `%`), less `#`, since a request carries no
/// fragment (RFC 9112 section 3.2).
fn is_target_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/?[]@!$&'()*+,;=%".contains(&b)
}

/// The request target's rule (RFC 9112 section 3.2): only URI characters
/// ([`is_target_byte`]), and one of the forms a server takes:
/// origin-form (`/path?query`), `*` (asterisk-form), or absolute-form
/// (`http://host:port/path?query`, which a server must accept, section
/// 3.2.2; http or https, a host of letters, digits, `-` and `.`, a port of
/// up to five digits). Anything else, authority-form included (which only
/// a proxy serves), is 400 `malformed request: request target`.
///
/// httparse lets through bytes no URI may hold (`<`, `"`, `{`, bytes over
/// 0x7F); hyper refuses some of them itself, and the blocking server would
/// route them, so the rule is written here for both. Every target it
/// accepts, hyper accepts.
pub fn check_target(target: &str) -> Result<(), ApiError> {
    let bad = || malformed("request target");
    if !target.bytes().all(is_target_byte) {
        return Err(bad());
    }
    if target == "*" || target.starts_with('/') {
        return Ok(());
    }
    let (scheme, rest) = target.split_once("://").ok_or_else(bad)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(bad());
    }
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    if host_ok && port_ok {
        Ok(())
    } else {
        Err(bad())
    }
}

/// The path and query of a target [`check_target`] accepted, the way both
/// servers route it: origin-form as it is; absolute-form without its
/// scheme and authority (`http://h/users/1?x` is `/users/1` and `x`; no
/// path at all is `/`), as hyper gives it to axum.
pub fn split_target(target: &str) -> (&str, Option<&str>) {
    let origin = match target.split_once("://") {
        Some((_, rest)) if !target.starts_with('/') => {
            &rest[rest.find(['/', '?']).unwrap_or(rest.len())..]
        }
        _ => target,
    };
    let (path, query) = match origin.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (origin, None),
    };
    (if path.is_empty() { "/" } else { path }, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_in_each_form() {
        for good in [
            "/",
            "/users/1?x=%20&y=[1]",
            "*",
            "http://host/health",
            "HTTPS://a.b-c:8080",
            "http://h?x=1",
        ] {
            assert_eq!(check_target(good), Ok(()), "{good}");
        }
        for bad in [
            "/<x>",
            "/a b",
            "/\"/x",
            "/{id}",
            "/h#frag",
            "/caf\u{e9}",
            "health",
            "host:80",
            "ftp://h/",
            "http:///x",
            "http://h:/x",
            "http://h:123456/",
            "http://u@h/",
            "http://[::1]/",
        ] {
            assert_eq!(check_target(bad).map_err(|e| e.status()), Err(400), "{bad}");
        }
        assert_eq!(split_target("/users/1?x"), ("/users/1", Some("x")));
        assert_eq!(
            split_target("http://h:80/users/1?x"),
            ("/users/1", Some("x"))
        );
        assert_eq!(split_target("http://h"), ("/", None));
        assert_eq!(split_target("http://h?n=1"), ("/", Some("n=1")));
        assert_eq!(
            split_target("/a?b=http://c/d"),
            ("/a", Some("b=http://c/d"))
        );
    }

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
