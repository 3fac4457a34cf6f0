//! Where each request on a connection ends, found in its byte stream by the
//! contract's rules, with no I/O: [`RequestScanner`] reads each head with
//! [`crate::head::parse_head`] (the blocking server's parser too) and
//! follows its body by its framing, a `Content-Length` count or the
//! chunked rules of [`crate::chunked`], to the next head.
//!
//! The async server runs it under hyper, on every request of every
//! connection (crates/async-server/src/scanned_io.rs): hyper is handed only
//! whole requests that passed every check here, and at the first request
//! the contract refuses it is handed nothing more; the connection layer
//! answers that request with the contract's error, as the blocking server
//! does. So a malformed request gets the same answer from every server,
//! first on its connection or not.
//!
//! Per request it costs one httparse pass over the head; a body is counted
//! (`Content-Length`) or walked chunk by chunk, never copied.

use crate::chunked::{Chunk, ChunkedBody};
use crate::framing::{body_cut_short, BodyFraming};
use crate::head::{header_slots, parse_head};
use crate::ApiError;

/// Where the scanner is in the request it is reading.
#[derive(Debug, Clone)]
enum Phase {
    /// At (or in) a head, which starts at `start`.
    Head,
    /// In a `Content-Length` body, with this many bytes still to come.
    Length { left: usize },
    /// In a chunked body.
    Chunked(ChunkedBody),
}

/// A request the contract refuses, and what is known of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What to answer.
    pub error: ApiError,
    /// The refused request's method and target, when its head was whole
    /// and its body was refused (too large, malformed, cut short): the
    /// request is then counted under its route.
    pub head: Option<RefusedHead>,
}

/// The head of a request whose body was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedHead {
    pub method: String,
    /// As sent: path and query, or absolute-form.
    pub target: String,
}

/// What one [`RequestScanner::scan`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned {
    /// The bytes before this offset are whole requests, each checked.
    pub whole: usize,
    /// The request that starts at `whole` is refused: answer this, and read
    /// no further.
    pub refused: Option<Refusal>,
}

/// Finds the request boundaries of one connection's input, which the caller
/// keeps in a buffer and hands over again as more arrives.
///
/// The buffer may grow at its end between calls, and lose a prefix of
/// whole requests the caller is done with ([`RequestScanner::consumed`]);
/// the bytes from the start of the request in progress on must stay as
/// they were.
#[derive(Debug, Clone)]
pub struct RequestScanner {
    phase: Phase,
    /// Where the request in progress starts in the buffer.
    start: usize,
    /// Where scanning goes on from.
    pos: usize,
    /// Where the body of the request in progress starts.
    body_from: usize,
    /// Whether its head asked for `100-continue`.
    expect_continue: bool,
    /// Heads read so far: the number of the request in progress.
    heads: u64,
    /// Requests found whole so far.
    whole_requests: u64,
}

impl Default for RequestScanner {
    fn default() -> Self {
        Self::new()
    }
}

/// One step of a scan.
enum Step {
    /// The scan moved on: go on.
    Moved,
    /// A request ended at `pos`.
    Whole,
    /// More bytes are needed.
    NeedMore,
}

impl RequestScanner {
    /// A scanner at the start of a connection.
    pub fn new() -> Self {
        RequestScanner {
            phase: Phase::Head,
            start: 0,
            pos: 0,
            body_from: 0,
            expect_continue: false,
            heads: 0,
            whole_requests: 0,
        }
    }

    /// Scans `buf` on from where the last call stopped: the end of its
    /// whole requests, and the refusal of the request after them, if it is
    /// refused. Once a refusal is returned, call no more.
    pub fn scan(&mut self, buf: &[u8]) -> Scanned {
        loop {
            match self.step(buf) {
                Ok(Step::Moved) => {}
                Ok(Step::Whole) => {
                    self.phase = Phase::Head;
                    self.start = self.pos;
                    self.expect_continue = false;
                    self.whole_requests += 1;
                }
                Ok(Step::NeedMore) => {
                    return Scanned {
                        whole: self.start,
                        refused: None,
                    }
                }
                Err(error) => {
                    return Scanned {
                        whole: self.start,
                        refused: Some(self.refusal(buf, error)),
                    }
                }
            }
        }
    }

    /// The client closed its side with `buf` scanned: a request whose head
    /// was whole and whose body was not is refused
    /// ([`crate::framing::body_cut_short`]); half a head, or nothing, is
    /// the quiet end of a connection.
    pub fn end_of_input(&self, buf: &[u8]) -> Option<Refusal> {
        match self.phase {
            Phase::Head => None,
            Phase::Length { .. } | Phase::Chunked(_) => Some(self.refusal(buf, body_cut_short())),
        }
    }

    /// The caller dropped the first `n` bytes of its buffer, whole requests
    /// all (`n` is at most the last [`Scanned::whole`]).
    pub fn consumed(&mut self, n: usize) {
        let n = n.min(self.start);
        self.start -= n;
        self.pos -= n;
        self.body_from = self.body_from.saturating_sub(n);
    }

    /// The number of the request whose body is arriving (its head is whole,
    /// its body not yet), or `None` between requests and in a head.
    pub fn body_in_progress(&self) -> Option<u64> {
        match self.phase {
            Phase::Head => None,
            Phase::Length { .. } | Phase::Chunked(_) => Some(self.heads),
        }
    }

    /// Whether the request in progress asked for `100-continue` and none
    /// of its body has come: the moment both servers send `100 Continue`.
    pub fn wants_continue(&self) -> bool {
        self.expect_continue && self.body_in_progress().is_some() && self.pos == self.body_from
    }

    /// Requests found whole since the connection began.
    pub fn whole_requests(&self) -> u64 {
        self.whole_requests
    }

    fn step(&mut self, buf: &[u8]) -> Result<Step, ApiError> {
        if matches!(self.phase, Phase::Head) {
            return self.head(buf);
        }
        match &mut self.phase {
            Phase::Head => Ok(Step::NeedMore),
            Phase::Length { left } => {
                let take = (*left).min(buf.len() - self.pos);
                self.pos += take;
                *left -= take;
                Ok(if *left == 0 {
                    Step::Whole
                } else {
                    Step::NeedMore
                })
            }
            Phase::Chunked(body) => match body.next(buf, self.pos)? {
                Chunk::Data { end, .. } | Chunk::Framing { end } => {
                    self.pos = end;
                    Ok(Step::Moved)
                }
                Chunk::NeedMore => Ok(Step::NeedMore),
                Chunk::End { end } => {
                    self.pos = end;
                    Ok(Step::Whole)
                }
            },
        }
    }

    /// A head at `start`: checked, and its body's framing followed.
    fn head(&mut self, buf: &[u8]) -> Result<Step, ApiError> {
        let Some(rest) = buf.get(self.start..).filter(|rest| !rest.is_empty()) else {
            return Ok(Step::NeedMore);
        };
        let mut slots = header_slots();
        let Some(head) = parse_head(rest, &mut slots)? else {
            return Ok(Step::NeedMore);
        };
        self.pos = self.start + head.len;
        self.body_from = self.pos;
        self.heads += 1;
        self.phase = match head.framing {
            BodyFraming::None => return Ok(Step::Whole),
            BodyFraming::Length(n) => Phase::Length { left: n },
            BodyFraming::Chunked => Phase::Chunked(ChunkedBody::new()),
        };
        self.expect_continue = head.fields().any(|(name, value)| {
            name.eq_ignore_ascii_case("expect") && value.trim().eq_ignore_ascii_case("100-continue")
        });
        Ok(Step::Moved)
    }

    /// The refusal of the request in progress with `error`, and its head
    /// when that was whole: for a refusal decided outside the bytes too (a
    /// body past its deadline). `buf` is the caller's buffer.
    pub fn refusal(&self, buf: &[u8], error: ApiError) -> Refusal {
        let head = match self.phase {
            Phase::Head => None,
            Phase::Length { .. } | Phase::Chunked(_) => {
                let mut slots = header_slots();
                match parse_head(buf.get(self.start..).unwrap_or_default(), &mut slots) {
                    Ok(Some(head)) => Some(RefusedHead {
                        method: head.method.to_owned(),
                        target: head.target.to_owned(),
                    }),
                    _ => None,
                }
            }
        };
        Refusal { error, head }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET: &[u8] = b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n";

    /// Scans `input` handed over `piece` bytes at a time, dropping whole
    /// requests as a caller would: the whole requests found, and the refusal
    /// or the end of input's answer.
    fn scan_in_pieces(input: &[u8], piece: usize) -> (u64, Option<(u16, String, bool)>) {
        let mut scanner = RequestScanner::new();
        let mut buf = Vec::new();
        for part in input.chunks(piece) {
            buf.extend_from_slice(part);
            let scanned = scanner.scan(&buf);
            if let Some(refusal) = scanned.refused {
                let e = refusal.error;
                return (
                    scanner.whole_requests(),
                    Some((e.status(), e.message, refusal.head.is_some())),
                );
            }
            buf.drain(..scanned.whole);
            scanner.consumed(scanned.whole);
        }
        let end = scanner.end_of_input(&buf);
        let end = end.map(|r| (r.error.status(), r.error.message, r.head.is_some()));
        (scanner.whole_requests(), end)
    }

    fn every_way(input: &[u8]) -> (u64, Option<(u16, String, bool)>) {
        let whole = scan_in_pieces(input, input.len().max(1));
        for piece in [1, 2, 7] {
            assert_eq!(scan_in_pieces(input, piece), whole, "in pieces of {piece}");
        }
        whole
    }

    #[test]
    fn pipelined_requests_with_bodies_are_each_found_whole() {
        let mut input = GET.to_vec();
        input.extend_from_slice(b"POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
        input.extend_from_slice(
            b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        );
        input.extend_from_slice(GET);
        assert_eq!(every_way(&input), (4, None));
        let mut scanner = RequestScanner::new();
        assert_eq!(
            scanner.scan(&input),
            Scanned {
                whole: input.len(),
                refused: None
            }
        );
    }

    #[test]
    fn a_bad_request_after_good_ones_is_refused_where_it_starts() {
        let mut input = GET.to_vec();
        input.extend_from_slice(
            b"POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        );
        let (whole, refused) = every_way(&input);
        assert_eq!(whole, 1);
        assert_eq!(
            refused,
            Some((
                400,
                "malformed request: content-length given twice".into(),
                false
            ))
        );
        let scanned = RequestScanner::new().scan(&input);
        assert_eq!(scanned.whole, GET.len());
    }

    #[test]
    fn a_bad_chunk_is_refused_with_its_head_known() {
        let input = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n";
        assert_eq!(
            every_way(input),
            (0, Some((413, ApiError::payload_too_large().message, true)))
        );
        let refusal = RequestScanner::new().scan(input).refused.unwrap();
        assert_eq!(
            refusal.head,
            Some(RefusedHead {
                method: "POST".into(),
                target: "/echo".into()
            })
        );
    }

    #[test]
    fn a_body_cut_short_is_refused_and_half_a_head_is_not() {
        let cut = b"POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc";
        assert_eq!(
            every_way(cut),
            (0, Some((400, body_cut_short().message, true)))
        );
        assert_eq!(every_way(b"GET /health HTTP/1.1\r\nHo"), (0, None));
        assert_eq!(every_way(b""), (0, None));
    }

    #[test]
    fn a_body_waits_for_continue_until_its_first_byte() {
        let head = b"POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
        let mut scanner = RequestScanner::new();
        scanner.scan(head);
        assert!(scanner.wants_continue());
        assert_eq!(scanner.body_in_progress(), Some(1));
        let mut more = head.to_vec();
        more.push(b'a');
        scanner.scan(&more);
        assert!(!scanner.wants_continue());
        more.push(b'b');
        assert_eq!(scanner.scan(&more).whole, more.len());
        assert_eq!(scanner.body_in_progress(), None);
    }
}
