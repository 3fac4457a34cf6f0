//! The response reader of crate::http1 run on bytes in memory, for the
//! fuzz targets (fuzz/ at the workspace root) and their replay tests
//! (crates/fuzz-checks). Not loadgen's API: hidden from its docs, and
//! nothing in loadgen calls it.
//!
//! The same `Connection` code reads the responses, over a stream that
//! hands out the input in pieces of a chosen size and never waits, so its
//! futures finish on their first poll, with no runtime.

use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::http1::{Connection, ReadError};

/// What reading one response gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseSummary {
    /// A whole response: its status, and whether the connection can carry
    /// the next request.
    Response { status: u16, reusable: bool },
    /// The input ended before the response's first byte.
    ClosedBeforeResponse,
    /// The input ended in the middle of a response.
    Truncated,
    /// The bytes were not an HTTP/1.x response.
    Malformed,
    /// The reader waited for bytes a memory stream always has: a bug.
    Pending,
}

/// Reads responses from `input`, arriving `piece` bytes at a time (at least
/// one), as loadgen reads them after each request, until one fails: the
/// summary of each, the failure last, and the bytes the connection counted
/// as received. `no_body` is a HEAD request's: no response has a body.
pub fn read_responses(input: &[u8], piece: usize, no_body: bool) -> (Vec<ResponseSummary>, u64) {
    let mut conn = Connection::over(MemoryStream {
        input,
        piece: piece.max(1),
    });
    let mut summaries = Vec::new();
    // Every response takes at least one byte: more rounds than bytes would
    // be a reader that stopped moving.
    for _ in 0..=input.len() {
        let summary = match finish_now(conn.read_response(no_body)) {
            Some(Ok(info)) => ResponseSummary::Response {
                status: info.status,
                reusable: info.reusable,
            },
            Some(Err(ReadError::ClosedBeforeResponse)) => ResponseSummary::ClosedBeforeResponse,
            Some(Err(ReadError::Io(_))) => ResponseSummary::Truncated,
            Some(Err(ReadError::Malformed)) => ResponseSummary::Malformed,
            None => ResponseSummary::Pending,
        };
        let more = matches!(summary, ResponseSummary::Response { .. });
        summaries.push(summary);
        if !more {
            break;
        }
    }
    (summaries, conn.take_transferred().1)
}

/// Polls `future` once: its output, or `None` if it would have waited.
fn finish_now<F: Future>(future: F) -> Option<F::Output> {
    let mut context = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut context) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

/// A stream whose reads hand out the input `piece` bytes at a time, then
/// report the peer closed; what is written to it is dropped.
struct MemoryStream<'a> {
    input: &'a [u8],
    piece: usize,
}

impl AsyncRead for MemoryStream<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.piece.min(buf.remaining()).min(self.input.len());
        let (now, rest) = self.input.split_at(n);
        buf.put_slice(now);
        self.input = rest;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for MemoryStream<'_> {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
