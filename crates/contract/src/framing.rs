//! How a request's body is framed, decided from its headers the same way on
//! both servers: `Content-Length` (digits only), `Transfer-Encoding: chunked`,
//! or none; anything ambiguous is refused. Pure text in, a decision out.
//!
//! Both servers parse every request head with httparse (the blocking server
//! in its reader, the async server in its request scanner, before hyper:
//! crate::request_scan). Keeping the framing rule here means a request
//! smuggling attempt or a body over the limit gets the same answer from both.

use crate::params::MAX_BODY_BYTES;
use crate::ApiError;

/// Where the body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    None,
    Length(usize),
    Chunked,
}

/// The 400 for a request head that cannot be trusted: `malformed request: {what}`.
pub fn malformed(what: &str) -> ApiError {
    ApiError::bad_request(format!("malformed request: {what}"))
}

/// The 400 for a request whose body ended before its framing said it
/// would (fewer bytes than its `Content-Length`, or no last chunk), the
/// client having closed its side: both servers answer it, then close (a
/// client that only half-closed can still read the answer).
pub fn body_cut_short() -> ApiError {
    malformed("body cut short")
}

/// Decides the framing from `headers` (name, raw value). `http10` is true for
/// an HTTP/1.0 request, which has no chunked framing.
pub fn body_framing<'a>(
    headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    http10: bool,
) -> Result<BodyFraming, ApiError> {
    let mut content_length: Option<usize> = None;
    let mut transfer_encoding = false;
    let mut chunked = false;
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-length") {
            let digits =
                trim_ows(std::str::from_utf8(value).map_err(|_| malformed("header value"))?);
            // Digits only: `usize::from_str` would also take `+5`.
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed("content-length"));
            }
            let n: usize = digits.parse().map_err(|_| malformed("content-length"))?;
            if content_length.is_some_and(|seen| seen != n) {
                return Err(malformed("content-length given twice"));
            }
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            let value = std::str::from_utf8(value).map_err(|_| malformed("header value"))?;
            transfer_encoding = true;
            // Only `chunked` as the last coding is something we can read.
            chunked = value
                .rsplit(',')
                .next()
                .is_some_and(|last| trim_ows(last).eq_ignore_ascii_case("chunked"));
        }
    }
    match (transfer_encoding, content_length) {
        // Both framings at once is how request smuggling starts.
        (true, Some(_)) => Err(malformed("both transfer-encoding and content-length")),
        (true, None) if !chunked => Err(malformed("transfer-encoding other than chunked")),
        (true, None) if http10 => Err(malformed("transfer-encoding in HTTP/1.0")),
        (true, None) => Ok(BodyFraming::Chunked),
        // Refused on the declared length, before a byte of the body is read.
        (false, Some(n)) if n > MAX_BODY_BYTES => Err(ApiError::payload_too_large()),
        (false, Some(0)) | (false, None) => Ok(BodyFraming::None),
        (false, Some(n)) => Ok(BodyFraming::Length(n)),
    }
}

/// `value` without the optional whitespace HTTP allows around a field's
/// value or a list element (RFC 9110 5.6.3: spaces and tabs). Not
/// `str::trim`, which also takes Unicode spaces: `Content-Length:` then a
/// no-break space and `5` is no length (hyper refuses it too).
fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framing(headers: &[(&str, &str)], http10: bool) -> Result<BodyFraming, u16> {
        body_framing(headers.iter().map(|(n, v)| (*n, v.as_bytes())), http10)
            .map_err(|e| e.status())
    }

    #[test]
    fn framings_and_refusals() {
        assert_eq!(framing(&[], false), Ok(BodyFraming::None));
        assert_eq!(
            framing(&[("Content-Length", "0")], false),
            Ok(BodyFraming::None)
        );
        assert_eq!(
            framing(&[("content-length", " 12 ")], false),
            Ok(BodyFraming::Length(12))
        );
        assert_eq!(
            framing(&[("Content-Length", "5"), ("Content-Length", "5")], false),
            Ok(BodyFraming::Length(5))
        );
        assert_eq!(
            framing(&[("Transfer-Encoding", "gzip, chunked")], false),
            Ok(BodyFraming::Chunked)
        );
        for bad in [
            &[("Content-Length", "+5")][..],
            &[("Content-Length", "")],
            &[("Content-Length", "5"), ("Content-Length", "6")],
            &[("Transfer-Encoding", "chunked"), ("Content-Length", "5")],
            &[("Transfer-Encoding", "gzip")],
            &[("Content-Length", "\u{a0}5")],
            &[("Transfer-Encoding", "chunked\u{3000}")],
        ] {
            assert_eq!(framing(bad, false), Err(400), "{bad:?}");
        }
        assert_eq!(framing(&[("Transfer-Encoding", "chunked")], true), Err(400));
        assert_eq!(
            framing(
                &[("Content-Length", &(MAX_BODY_BYTES + 1).to_string())],
                false
            ),
            Err(413)
        );
    }

    #[test]
    fn messages_name_what_was_wrong() {
        let e = body_framing([("Content-Length", &b"x"[..])], false).unwrap_err();
        assert_eq!(e.message, "malformed request: content-length");
    }
}
