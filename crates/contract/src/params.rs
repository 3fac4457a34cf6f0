//! Parsing what a client puts in a path or query string, the same way on both servers.
//!
//! Each server finds the raw text with its own router; these functions decide
//! whether the text is acceptable, so a bad id or `?n=` gets the same 400 and
//! message from both.

use std::borrow::Cow;

use crate::workload::{DEFAULT_CPU_N, MAX_CPU_N};
use crate::ApiError;

/// The largest request body accepted (`POST /echo`); larger answers 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The largest request head (request line + headers) accepted; larger answers 431.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// A user or post id from the path: a positive 64-bit integer, decimal digits only.
pub fn parse_id(raw: &str) -> Result<i64, ApiError> {
    let invalid = || ApiError::bad_request(format!("id must be a positive integer, got {raw:?}"));
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    match raw.parse::<i64>() {
        Ok(id) if id >= 1 => Ok(id),
        _ => Err(invalid()),
    }
}

/// `n` for `/cpu` from the raw query string (without the `?`): the first `n=`
/// pair wins, other pairs are ignored, no `n` means [`DEFAULT_CPU_N`].
pub fn parse_cpu_n(query: Option<&str>) -> Result<u64, ApiError> {
    let Some(raw) = query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("n="))
    else {
        return Ok(DEFAULT_CPU_N);
    };
    let invalid = || {
        ApiError::bad_request(format!(
            "n must be an integer from 1 to {MAX_CPU_N}, got {raw:?}"
        ))
    };
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    match raw.parse::<u64>() {
        Ok(n) if (1..=MAX_CPU_N).contains(&n) => Ok(n),
        _ => Err(invalid()),
    }
}

/// The id in a path segment as the client sent it: percent-decoded, then
/// checked by [`parse_id`]. Both servers take the raw segment from their own
/// router and call this, so `/users/%31` is user 1 on both.
pub fn parse_path_id(segment: &str) -> Result<i64, ApiError> {
    parse_id(&percent_decode(segment))
}

/// Replaces each `%XX` (two hex digits) with its byte, as axum's `Path` does.
/// A `%` not followed by two hex digits stays as it is; if the decoded bytes
/// are not UTF-8, the segment is kept undecoded. Either way a bad id then
/// fails [`parse_id`] with a 400.
pub fn percent_decode(segment: &str) -> Cow<'_, str> {
    if !segment.contains('%') {
        return Cow::Borrowed(segment);
    }
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let [b'%', hi, lo, ..] = bytes[i..] {
            if let (Some(hi), Some(lo)) = (hex(hi), hex(lo)) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).map_or(Cow::Borrowed(segment), Cow::Owned)
}

/// Whether a `Content-Type` value is JSON (`application/json`, any parameters, any case).
pub fn is_json_content_type(value: &str) -> bool {
    value
        .split(';')
        .next()
        .map(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        let cases: &[(&str, Option<i64>)] = &[
            ("1", Some(1)),
            ("10000", Some(10000)),
            ("9223372036854775807", Some(i64::MAX)),
            ("0", None),
            ("-1", None),
            ("+1", None),
            ("", None),
            ("abc", None),
            ("1.5", None),
            (" 1", None),
            ("9223372036854775808", None),
            ("99999999999999999999999", None),
        ];
        for (raw, want) in cases {
            assert_eq!(parse_id(raw).ok(), *want, "{raw:?}");
        }
        assert_eq!(parse_id("x").unwrap_err().status(), 400);
    }

    #[test]
    fn path_ids_are_percent_decoded_first() {
        let cases = [
            ("17", "17"),
            ("%31", "1"),
            ("1%30", "10"),
            ("%41b", "Ab"),
            ("%", "%"),
            ("1%2", "1%2"),
            ("%zz", "%zz"),
            // Not UTF-8 once decoded: kept as sent.
            ("%ff", "%ff"),
        ];
        for (raw, want) in cases {
            assert_eq!(percent_decode(raw), want, "{raw:?}");
        }
        assert_eq!(parse_path_id("%31%30").ok(), Some(10));
        assert_eq!(parse_path_id("%2D1").map_err(|e| e.status()), Err(400));
    }

    #[test]
    fn cpu_n() {
        let cases: &[(Option<&str>, Option<u64>)] = &[
            (None, Some(DEFAULT_CPU_N)),
            (Some(""), Some(DEFAULT_CPU_N)),
            (Some("x=1"), Some(DEFAULT_CPU_N)),
            (Some("n=1"), Some(1)),
            (Some("n=100000000"), Some(100_000_000)),
            (Some("a=b&n=5&n=7"), Some(5)),
            (Some("n=0"), None),
            (Some("n=100000001"), None),
            (Some("n="), None),
            (Some("n=-3"), None),
            (Some("n=abc"), None),
            (Some("n=18446744073709551616"), None),
        ];
        for (q, want) in cases {
            assert_eq!(parse_cpu_n(*q).ok(), *want, "{q:?}");
        }
    }

    #[test]
    fn content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("Application/JSON; charset=utf-8"));
        assert!(!is_json_content_type("text/plain"));
        assert!(!is_json_content_type("application/jsonx"));
        assert!(!is_json_content_type(""));
    }
}
