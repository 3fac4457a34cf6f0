//! The server's hand-written parsers run on bytes in memory, for the fuzz
//! targets (fuzz/ at the workspace root) and their replay tests
//! (crates/fuzz-checks): the request reader of crate::http::read, and the
//! yielding driver's RESP and Postgres decoding. Not the server's API: the
//! module is hidden from its docs and nothing in the server calls it.
//!
//! Each function runs the same code a connection runs, on a socket that
//! hands out the input in pieces of a chosen size, so a target can check
//! that how the bytes arrive changes nothing.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::fd::{AsFd as _, BorrowedFd};
use std::time::Duration;

use bytes::{Buf as _, BytesMut};
use postgres_protocol::message::backend::Message;

use crate::http::read::{read_request, HeadWait, ReadOutcome, ReadTimeouts};
use crate::http::{Connection, Socket};
use crate::yielding::{postgres, resp};

/// A RESP reply as the yielding Redis client decoded it.
pub use crate::yielding::resp::Reply as RespReply;

/// Long enough never to pass while a target runs: the fuzzer explores bytes,
/// not clocks.
const NEVER: Duration = Duration::from_secs(3600);

/// What the reader made of one request, in owned plain data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadSummary {
    Request {
        method: String,
        /// Path and query as sent (`path?query`).
        target: String,
        http10: bool,
        keep_alive: bool,
        content_type: Option<String>,
        body: Vec<u8>,
    },
    /// The input ended before a request began, or in the middle of one.
    Closed,
    /// Answered with this status, then the connection closed; `after_head`
    /// when the head had been read (the body was refused).
    Refused {
        status: u16,
        message: String,
        after_head: bool,
    },
    /// The head is incomplete and the reader wants the poller to wait:
    /// never, here, since the reader waits for bytes itself.
    NeedMore,
}

/// Reads requests from `input`, arriving `piece` bytes at a time (at least
/// one), the way a virtual-thread connection reads them, until the reader
/// stops: the outcome of each request, the stop last.
pub fn read_requests(input: &[u8], piece: usize) -> Vec<ReadSummary> {
    let timeouts = ReadTimeouts {
        head: NEVER,
        body: NEVER,
    };
    let wait = HeadWait::Here { keep_alive: NEVER };
    let mut conn = Connection::new(MemorySocket {
        input,
        piece: piece.max(1),
        stdin: io::stdin(),
    });
    let mut outcomes = Vec::new();
    loop {
        let summary = match read_request(&mut conn, timeouts, wait, || {}) {
            ReadOutcome::Request(request) => ReadSummary::Request {
                method: request.method,
                target: match request.query {
                    Some(query) => format!("{}?{query}", request.path),
                    None => request.path,
                },
                http10: request.http10,
                keep_alive: request.keep_alive,
                content_type: request.content_type,
                body: request.body,
            },
            ReadOutcome::Closed => ReadSummary::Closed,
            ReadOutcome::Reject(refused) => ReadSummary::Refused {
                status: refused.error.status(),
                message: refused.error.message.clone(),
                after_head: refused.head.is_some(),
            },
            ReadOutcome::NeedMore => ReadSummary::NeedMore,
        };
        let more = matches!(summary, ReadSummary::Request { .. });
        outcomes.push(summary);
        if !more {
            return outcomes;
        }
    }
}

/// A socket whose reads hand out the input `piece` bytes at a time, then
/// report the peer closed; what is written to it is dropped.
struct MemorySocket<'a> {
    input: &'a [u8],
    piece: usize,
    /// The descriptor [`Socket::fd`] lends: never read (see there).
    stdin: io::Stdin,
}

impl Read for MemorySocket<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.piece.min(buf.len()).min(self.input.len());
        let (now, rest) = self.input.split_at(n);
        buf[..n].copy_from_slice(now);
        self.input = rest;
        Ok(n)
    }
}

impl Write for MemorySocket<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Socket for MemorySocket<'_> {
    /// Only a reader told to wait in the poller (`HeadWait::InPoller`) asks
    /// for the descriptor, and this one waits itself: standard input
    /// stands in, never read.
    fn fd(&self) -> BorrowedFd<'_> {
        self.stdin.as_fd()
    }

    fn set_read_timeout(&mut self, _: Option<Duration>) -> io::Result<()> {
        Ok(())
    }

    fn set_write_timeout(&self, _: Option<Duration>) -> io::Result<()> {
        Ok(())
    }

    fn set_nodelay(&self, _: bool) -> io::Result<()> {
        Ok(())
    }

    fn shutdown(&mut self, _: Shutdown) -> io::Result<()> {
        Ok(())
    }
}

/// The first RESP reply in `buf` and the bytes it took, `None` while it is
/// incomplete: the yielding Redis client's decoder itself.
pub fn parse_resp_reply(buf: &[u8]) -> Result<Option<(RespReply, usize)>, String> {
    resp::parse_reply(buf)
}

/// What the yielding Postgres client made of one backend message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgDecoded {
    /// A `DataRow`, decoded as the user query's row (or why it could not be).
    Row(Result<contract::model::User, String>),
    /// An `ErrorResponse`, as the contract maps it (503 or 500, and the text).
    Error(String),
    /// A `RowDescription`, checked against the user query's column types.
    Columns(Result<(), String>),
    /// An `AuthenticationSasl`'s mechanisms.
    Mechanisms(Result<Vec<String>, String>),
    /// Any other message, which the client reads without looking inside.
    Other,
}

/// Decodes the backend messages in `input` as the yielding Postgres client
/// does: the message framing (postgres-protocol's), then the bodies the
/// client itself takes apart. Stops at the first framing error (`Err`, with
/// what was decoded before it in the error's place in the sequence) or when
/// the rest is an incomplete message.
pub fn decode_pg_messages(input: &[u8]) -> (Vec<PgDecoded>, Result<usize, String>) {
    let mut buf = BytesMut::from(input);
    let mut decoded = Vec::new();
    loop {
        let before = buf.remaining();
        let message = match Message::parse(&mut buf) {
            Ok(Some(message)) => message,
            Ok(None) => return (decoded, Ok(input.len() - before)),
            Err(e) => return (decoded, Err(e.to_string())),
        };
        decoded.push(match message {
            Message::DataRow(row) => {
                PgDecoded::Row(postgres::user_from_row(&row).map_err(|e| e.to_string()))
            }
            Message::ErrorResponse(body) => {
                PgDecoded::Error(postgres::server_error(&body).to_string())
            }
            Message::RowDescription(body) => PgDecoded::Columns(
                postgres::column_types(&body)
                    .and_then(|types| postgres::check_user_columns(Some(&types)))
                    .map_err(|e| e.to_string()),
            ),
            Message::AuthenticationSasl(body) => {
                PgDecoded::Mechanisms(postgres::sasl_mechanisms(&body).map_err(|e| e.to_string()))
            }
            _ => PgDecoded::Other,
        });
    }
}
