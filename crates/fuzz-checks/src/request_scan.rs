//! The async server's request scanner (`contract::request_scan`, which
//! decides what hyper is handed) against the blocking server's request
//! reader (crates/blocking-server/src/http/read.rs) on the same bytes.
//!
//! What must hold: the scanner never panics and always stops; how the
//! bytes arrive, and the whole requests the caller drops between reads (as
//! the async server's socket drops what it gave hyper), change none of its
//! answers; and it finds exactly the requests the reader reads, then stops
//! as the reader stops: refusing the same request with the same status and
//! message (its head known or not alike), or ending quietly where the
//! reader closes. That is the wire contract's one rule, checked: every
//! server mode answers a connection's bytes alike.

use blocking_server::fuzzing::{read_requests, ReadSummary};
use contract::request_scan::{Refusal, RequestScanner};

use crate::pieces::piece_sizes;

/// What the scanner made of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanSummary {
    /// The whole requests it found.
    pub whole_requests: u64,
    /// Where they end in the input.
    pub whole_end: usize,
    /// How it stopped: the refusal (status, message, whether the refused
    /// request's head was whole), or `None` for a quiet end of the input.
    pub refused: Option<(u16, String, bool)>,
}

/// Scans `input`, handed over `piece` bytes at a time (at least one), and
/// drops each whole request from its buffer as the async server does.
pub fn scan(input: &[u8], piece: usize) -> ScanSummary {
    let mut scanner = RequestScanner::new();
    let mut buf = Vec::new();
    let mut dropped = 0;
    for part in input.chunks(piece.max(1)) {
        buf.extend_from_slice(part);
        let scanned = scanner.scan(&buf);
        if scanned.refused.is_some() {
            return summary(&scanner, dropped + scanned.whole, scanned.refused);
        }
        buf.drain(..scanned.whole);
        scanner.consumed(scanned.whole);
        dropped += scanned.whole;
    }
    let refused = scanner.end_of_input(&buf);
    summary(&scanner, dropped, refused)
}

fn summary(scanner: &RequestScanner, whole_end: usize, refused: Option<Refusal>) -> ScanSummary {
    ScanSummary {
        whole_requests: scanner.whole_requests(),
        whole_end,
        refused: refused.map(|r| (r.error.status(), r.error.message, r.head.is_some())),
    }
}

/// The target.
pub fn check(input: &[u8]) {
    let whole = scan(input, usize::MAX);
    for piece in piece_sizes(input) {
        assert_eq!(
            scan(input, piece),
            whole,
            "scanned in pieces of {piece} bytes, not as when scanned whole"
        );
    }
    let read = read_requests(input, usize::MAX);
    let Some((stop, requests)) = read.split_last() else {
        panic!("the reader gave no outcome");
    };
    assert_eq!(
        requests.len() as u64,
        whole.whole_requests,
        "the reader read {} requests, the scanner found {whole:?}",
        requests.len()
    );
    match (stop, &whole.refused) {
        (ReadSummary::Closed, None) => {}
        (
            ReadSummary::Refused {
                status,
                message,
                after_head,
            },
            Some(refused),
        ) => assert_eq!(
            (*status, message, *after_head),
            (refused.0, &refused.1, refused.2),
            "the reader and the scanner refuse differently"
        ),
        (stop, refused) => panic!("the reader stopped with {stop:?}, the scanner with {refused:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_stop_alike_on_each_kind_of_end() {
        let get = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
        for input in [
            format!("{get}{get}"),
            format!("{get}GET /h"),
            format!("{get}POST /echo HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc"),
            format!("{get}POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            format!("{get}PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
            format!("GET http://h/health HTTP/1.1\r\n\r\n{get}"),
        ] {
            check(input.as_bytes());
        }
        let preface = format!("{get}PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        let summary = scan(preface.as_bytes(), 3);
        assert_eq!(summary.whole_requests, 1);
        assert_eq!(summary.whole_end, get.len());
        let message = "malformed request: request head: invalid HTTP version";
        assert_eq!(summary.refused, Some((400, message.to_owned(), false)));
    }
}
