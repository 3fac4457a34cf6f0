//! One record per request, as the worker loop produces it: when the request
//! was due, when it actually started, when it finished, how it ended, the
//! bytes it moved and how long opening its connection took, when it opened one.
//! Carrying the intended time makes coordinated-omission correction a matter
//! of subtraction in the aggregator.

use std::time::{Duration, Instant};

/// Why a request failed without an HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureKind {
    /// The TCP connection could not be opened.
    Connect,
    /// No complete response within the request timeout.
    Timeout,
    /// Anything else: reset, early close, malformed response.
    Other,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A complete response with this status (>= 400 counts as an error).
    Status(u16),
    /// No usable response.
    Failed(FailureKind),
}

impl Outcome {
    /// Whether the request counts as an error.
    pub(crate) fn is_error(self) -> bool {
        match self {
            Outcome::Status(code) => code >= 400,
            Outcome::Failed(_) => true,
        }
    }
}

/// Timing and outcome of one request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RequestRecord {
    /// When the load model wanted the request sent (open mode: on the
    /// schedule; burst: the release instant; otherwise equal to `started`).
    pub(crate) intended: Instant,
    /// When the worker actually began (connecting if needed, then writing).
    pub(crate) started: Instant,
    /// When the last byte of the response arrived, or the failure happened.
    pub(crate) finished: Instant,
    pub(crate) outcome: Outcome,
    /// Bytes written for this request (a retry's included).
    pub(crate) sent_bytes: u64,
    /// Bytes read for its answer, head and body.
    pub(crate) received_bytes: u64,
    /// How long the request's own connect took (from `connect()` to the
    /// kernel's "connected"), when it opened a connection and it opened.
    pub(crate) connect: Option<Duration>,
}
