//! The contract's size limits on a request, checked before any handler runs:
//! a head over `MAX_HEADER_BYTES` gets 431, a declared body over
//! `MAX_BODY_BYTES` gets 413, each with the contract's JSON body, on every
//! route.
//!
//! hyper can enforce a head limit itself, but its 431 has no body, and both
//! servers must answer the same bytes. Every head is checked by the
//! contract's rules before hyper sees it (crate::scanned_io), so a head over
//! the limit never reaches hyper, whose own hard limit
//! ([`HYPER_MAX_HEAD_BYTES`]) is larger; [`rejection`], asked before any
//! handler runs, keeps the same limits on what does reach it.
//!
//! The twin is crates/blocking-server/src/http/read.rs, which counts the head's
//! bytes as it reads them and checks the declared length before reading a body
//! for any route. A body without a declared length (chunked) is limited where
//! it is read: `/echo` is the only route that reads one here.

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use contract::ApiError;

use crate::error::AppError;

/// hyper's own limit on a request head: four times the contract's, so heads a
/// little over the contract's limit still reach [`rejection`].
pub(crate) const HYPER_MAX_HEAD_BYTES: usize = 4 * MAX_HEADER_BYTES;

/// What the limits look at in a request's head, found in one pass over its
/// headers (a lookup of `Content-Length` by name, besides the pass, cost
/// about a hundred instructions per request, hashing the name).
struct Head<'a> {
    /// The size of the head as it was on the wire, give or take the optional
    /// spaces around header values, which hyper does not keep:
    /// `METHOD SP target SP HTTP/1.1 CRLF`, each `name: value CRLF`, final CRLF.
    size: usize,
    /// The first `Content-Length`, if any.
    content_length: Option<&'a HeaderValue>,
}

impl<'a> Head<'a> {
    fn of(request: &'a Request) -> Self {
        let uri = request.uri();
        let target = uri.path_and_query().map_or(1, |pq| pq.as_str().len())
            + uri.authority().map_or(0, |a| {
                a.as_str().len() + uri.scheme_str().map_or(0, str::len) + 3
            });
        let request_line = request.method().as_str().len() + 1 + target + 1 + "HTTP/1.1".len() + 2;
        let mut headers = 0;
        let mut content_length = None;
        for (name, value) in request.headers() {
            headers += name.as_str().len() + 2 + value.len() + 2;
            if content_length.is_none() && name == header::CONTENT_LENGTH {
                content_length = Some(value);
            }
        }
        Head {
            size: request_line + headers + 2,
            content_length,
        }
    }

    /// Whether the request declares a body longer than the contract allows.
    fn declares_too_long_a_body(&self) -> bool {
        self.content_length
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|len| len > MAX_BODY_BYTES as u64)
    }
}

/// The contract's error for a request over a limit, if it is: 431 for a
/// head over the limit, 413 for a declared body over the limit (before any
/// of it is read).
fn over_a_limit(request: &Request) -> Option<ApiError> {
    let head = Head::of(request);
    if head.size > MAX_HEADER_BYTES {
        return Some(ApiError::headers_too_large());
    }
    if head.declares_too_long_a_body() {
        return Some(ApiError::payload_too_large());
    }
    None
}

/// The contract's answer to a request over a limit, or `None` to let it
/// through. Every route's handler asks first (crate::route_handler), and so
/// do the fallbacks, so the limits hold on every path.
pub(crate) fn rejection(request: &Request) -> Option<Response> {
    over_a_limit(request).map(|error| AppError::from(error).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_size_counts_the_request_line_and_every_header() {
        let request = Request::builder()
            .uri("/health")
            .header("host", "x")
            .body(axum::body::Body::empty())
            .unwrap();
        // "GET /health HTTP/1.1\r\n" + "host: x\r\n" + "\r\n"
        assert_eq!(Head::of(&request).size, 22 + 9 + 2);
    }

    /// The pass finds the declared length among other headers, as a lookup
    /// by name would: the first one, if there are several.
    #[test]
    fn the_declared_length_is_the_first_content_length() {
        let too_long = (MAX_BODY_BYTES + 1).to_string();
        let request = |lengths: &[&str]| {
            let mut builder = Request::builder().uri("/echo").header("host", "x");
            for length in lengths {
                builder = builder.header(header::CONTENT_LENGTH, *length);
            }
            builder
                .header("accept", "*/*")
                .body(axum::body::Body::empty())
                .unwrap()
        };
        let declares = |lengths: &[&str]| Head::of(&request(lengths)).declares_too_long_a_body();
        assert!(declares(&[&too_long]));
        assert!(declares(&[&too_long, "1"]));
        assert!(!declares(&["1", &too_long]));
        assert!(!declares(&[]));
        assert!(!declares(&["not a number"]));
    }
}
