//! The contract's size limits on a request, checked before any handler runs:
//! a head over `MAX_HEADER_BYTES` gets 431, a declared body over
//! `MAX_BODY_BYTES` gets 413, each with the contract's JSON body, on every
//! route.
//!
//! hyper can enforce a head limit itself, but its 431 has no body, and both
//! servers must answer the same bytes. So hyper is given a larger hard limit
//! ([`HYPER_MAX_HEAD_BYTES`]) and [`rejection`], asked before any handler
//! runs, measures the head and answers the contract's 431. The first head
//! of a connection is checked before hyper sees it (crate::first_head), so it
//! never meets hyper's limit; a later head on a keep-alive connection beyond
//! hyper's limit (or past 100 header fields) still gets hyper's bare 431.
//!
//! The twin is crates/blocking-server/src/http/read.rs, which counts the head's
//! bytes as it reads them and checks the declared length before reading a body
//! for any route. A body without a declared length (chunked) is limited where
//! it is read: `/echo` is the only route that reads one here.

use axum::extract::Request;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use contract::ApiError;

use crate::error::AppError;

/// hyper's own limit on a request head: four times the contract's, so heads a
/// little over the contract's limit still reach [`rejection`].
pub(crate) const HYPER_MAX_HEAD_BYTES: usize = 4 * MAX_HEADER_BYTES;

/// The size of the request head as it was on the wire, give or take the
/// optional spaces around header values, which hyper does not keep:
/// `METHOD SP target SP HTTP/1.1 CRLF`, each `name: value CRLF`, final CRLF.
fn head_size(request: &Request) -> usize {
    let uri = request.uri();
    let target = uri.path_and_query().map_or(1, |pq| pq.as_str().len())
        + uri.authority().map_or(0, |a| {
            a.as_str().len() + uri.scheme_str().map_or(0, str::len) + 3
        });
    let request_line = request.method().as_str().len() + 1 + target + 1 + "HTTP/1.1".len() + 2;
    let headers: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + 2 + value.len() + 2)
        .sum();
    request_line + headers + 2
}

/// Whether the request declares a body longer than the contract allows.
fn declares_too_long_a_body(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .is_some_and(|len| len > MAX_BODY_BYTES as u64)
}

/// The contract's error for a request over a limit, if it is: 431 for a
/// head over the limit, 413 for a declared body over the limit (before any
/// of it is read).
fn over_a_limit(request: &Request) -> Option<ApiError> {
    if head_size(request) > MAX_HEADER_BYTES {
        return Some(ApiError::headers_too_large());
    }
    if declares_too_long_a_body(request) {
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
        assert_eq!(head_size(&request), 22 + 9 + 2);
    }
}
