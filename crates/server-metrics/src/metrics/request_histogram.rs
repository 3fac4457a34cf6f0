//! `http_server_requests_seconds`, the request-latency histogram with the
//! names, labels and meaning of Spring Boot 3's Actuator (Micrometer's
//! Prometheus registry), so a Spring team's HTTP panels read these servers
//! unchanged: the labels `method`, `uri` (the route template, one value
//! for every path no route matches), `status`, `outcome` and `error`, plus
//! `application`, the server's name, which Spring dashboards filter on.
//!
//! A histogram rather than the summaries the servers use for their own
//! waiting ([`super::append_summaries`]): bucket counts add up across
//! instances and routes (`sum by (le)`) and `histogram_quantile` computes
//! any quantile afterwards; a summary's quantiles cannot be combined.
//!
//! What one observation is: from the end of the request's head to the
//! moment its answer is ready to be written (the blocking server's handler
//! returns; the async server's handler future is ready). A request refused
//! before its head was complete (a head that was too large, malformed or
//! too slow) is observed with a duration of 0. Counting is in
//! [`super::RequestCounters`]; this file holds the buckets, the label
//! values and the renderer, written once for every server mode.

use std::fmt::Write as _;

use super::write_family_header;
use contract::error::ErrorKind;

/// The histogram's metric name (Micrometer's `http.server.requests`).
pub const REQUEST_HISTOGRAM: &str = "http_server_requests_seconds";

/// The status recorded for a request whose client went away before its
/// answer was ready (nginx's convention).
pub const CLIENT_CLOSED_REQUEST: u16 = 499;

/// The buckets' upper bounds, inclusive, in nanoseconds and as the `le`
/// label writes them: 0.1 ms to 10 s in steps of 1, 2.5 and 5, sixteen
/// bounds. Fine enough below a millisecond for `/health` on loopback,
/// coarse enough that a series is 18 numbers; anything slower than 10 s
/// lands in `+Inf` (the servers' own timeouts end most requests by then).
pub const BUCKETS: [(u64, &str); 16] = [
    (100_000, "0.0001"),
    (250_000, "0.00025"),
    (500_000, "0.0005"),
    (1_000_000, "0.001"),
    (2_500_000, "0.0025"),
    (5_000_000, "0.005"),
    (10_000_000, "0.01"),
    (25_000_000, "0.025"),
    (50_000_000, "0.05"),
    (100_000_000, "0.1"),
    (250_000_000, "0.25"),
    (500_000_000, "0.5"),
    (1_000_000_000, "1"),
    (2_500_000_000, "2.5"),
    (5_000_000_000, "5"),
    (10_000_000_000, "10"),
];

/// Counts per series: one per bucket, then the one above the last bound.
pub const BUCKET_SLOTS: usize = BUCKETS.len() + 1;

/// The slot of a duration of `nanos`: the first bucket whose bound is at
/// or above it. A linear search from the bottom: the requests that matter
/// most for the cost (the fast ones) stop after one or two comparisons.
pub fn bucket_index(nanos: u64) -> usize {
    let mut index = 0;
    while index < BUCKETS.len() && nanos > BUCKETS[index].0 {
        index += 1;
    }
    index
}

/// Micrometer's `outcome` of a status: `SUCCESS`, `CLIENT_ERROR`, ...
pub fn outcome(status: u16) -> &'static str {
    match status {
        100..=199 => "INFORMATIONAL",
        200..=299 => "SUCCESS",
        300..=399 => "REDIRECTION",
        400..=499 => "CLIENT_ERROR",
        500..=599 => "SERVER_ERROR",
        _ => "UNKNOWN",
    }
}

/// The `error` label: `none` for an answer below 400, else the contract's
/// kind of error, which its status names ([`ErrorKind::for_status`]; Spring
/// puts the exception's class name here), `ClientClosedRequest` for
/// [`CLIENT_CLOSED_REQUEST`], and `none` for a status the contract does not
/// have.
pub fn error_label(status: u16) -> &'static str {
    if status == CLIENT_CLOSED_REQUEST {
        return "ClientClosedRequest";
    }
    match ErrorKind::for_status(status) {
        Some(kind) if status >= 400 => kind.name(),
        _ => "none",
    }
}

/// The `method` label: the standard methods as sent, anything else `other`,
/// so a client inventing methods cannot create series without end (the
/// `uri` label has [`contract::routes::UNMATCHED`] for the same reason).
pub fn method_label(method: &str) -> &'static str {
    const STANDARD: [&str; 9] = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
    ];
    STANDARD
        .into_iter()
        .find(|standard| *standard == method)
        .unwrap_or("other")
}

/// One series of the histogram, as read from the counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSeries {
    /// The route's pattern, or [`contract::routes::UNMATCHED`].
    pub route: &'static str,
    /// As [`method_label`] gives it.
    pub method: &'static str,
    pub status: u16,
    /// Requests per slot of [`BUCKETS`], not cumulative; the last slot is
    /// above the last bound.
    pub buckets: [u64; BUCKET_SLOTS],
    /// The observed durations, summed, in nanoseconds.
    pub sum_nanos: u64,
}

impl RequestSeries {
    /// Requests in the series.
    pub fn count(&self) -> u64 {
        self.buckets.iter().sum()
    }
}

/// Appends the histogram family: per series its cumulative buckets (the
/// `le` label last, as Prometheus writes it), `+Inf`, `_count` and `_sum`
/// (in seconds, to the nanosecond). `application` is the server's name.
pub fn append_request_histogram(out: &mut String, application: &str, series: &[RequestSeries]) {
    write_family_header(
        out,
        REQUEST_HISTOGRAM,
        "Requests by route template, method and status: time from the end of the head \
         to the answer.",
        "histogram",
    );
    for s in series {
        let labels = format!(
            "application=\"{application}\",error=\"{}\",method=\"{}\",outcome=\"{}\",\
             status=\"{}\",uri=\"{}\"",
            error_label(s.status),
            s.method,
            outcome(s.status),
            s.status,
            s.route
        );
        let mut cumulative = 0;
        for ((_, le), count) in BUCKETS.iter().zip(&s.buckets) {
            cumulative += count;
            let _ = writeln!(
                out,
                "{REQUEST_HISTOGRAM}_bucket{{{labels},le=\"{le}\"}} {cumulative}"
            );
        }
        cumulative += s.buckets[BUCKETS.len()];
        let _ = writeln!(
            out,
            "{REQUEST_HISTOGRAM}_bucket{{{labels},le=\"+Inf\"}} {cumulative}"
        );
        let _ = writeln!(out, "{REQUEST_HISTOGRAM}_count{{{labels}}} {cumulative}");
        let _ = writeln!(
            out,
            "{REQUEST_HISTOGRAM}_sum{{{labels}}} {}.{:09}",
            s.sum_nanos / 1_000_000_000,
            s.sum_nanos % 1_000_000_000
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_lands_in_the_first_bucket_at_or_above_it() {
        let cases = [
            (0, 0),
            (100_000, 0),
            (100_001, 1),
            (300_000_000, 11),
            (10_000_000_000, 15),
            (10_000_000_001, 16),
            (u64::MAX, BUCKET_SLOTS - 1),
        ];
        for (nanos, bucket) in cases {
            assert_eq!(bucket_index(nanos), bucket, "{nanos} ns");
        }
    }

    #[test]
    fn the_bounds_rise_and_their_labels_say_them_in_seconds() {
        for pair in BUCKETS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{pair:?}");
        }
        for (nanos, le) in BUCKETS {
            let seconds: f64 = le.parse().unwrap();
            assert!((seconds * 1e9 - nanos as f64).abs() < 1.0, "{le}");
        }
    }

    #[test]
    fn outcome_and_error_follow_the_status() {
        let table = [
            (200, "SUCCESS", "none"),
            (404, "CLIENT_ERROR", "NotFound"),
            (408, "CLIENT_ERROR", "RequestTimeout"),
            (499, "CLIENT_ERROR", "ClientClosedRequest"),
            (503, "SERVER_ERROR", "Unavailable"),
            (302, "REDIRECTION", "none"),
            (418, "CLIENT_ERROR", "none"),
            (999, "UNKNOWN", "none"),
        ];
        for (status, want_outcome, want_error) in table {
            assert_eq!(
                (outcome(status), error_label(status)),
                (want_outcome, want_error),
                "{status}"
            );
        }
    }

    #[test]
    fn methods_outside_the_standard_ones_are_other() {
        assert_eq!(method_label("GET"), "GET");
        assert_eq!(method_label("DELETE"), "DELETE");
        assert_eq!(method_label("get"), "other");
        assert_eq!(method_label("BREW"), "other");
    }
}
