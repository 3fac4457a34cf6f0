//! A chunked request body (RFC 9112 section 7.1), read by one set of rules
//! on both servers: the blocking server decodes its bodies with
//! [`ChunkedBody`] (crates/blocking-server/src/http/read.rs), and the async
//! server finds where each chunked request ends with it
//! ([`crate::request_scan`]) before hyper reads the body. So a bad chunk
//! gets the same answer from both, and no chunked body passes one server
//! that the other refuses.
//!
//! The rules, each refused the moment its bytes are there (never after a
//! timeout):
//! - a chunk-size line is `1*HEXDIG *(SP / HTAB) [";" extensions] CRLF`,
//!   at most [`MAX_CHUNK_LINE`] bytes, else 400 `malformed request: chunk
//!   size` (or `... chunk size line` when it is too long);
//! - extension bytes are visible text, spaces and tabs (no CR, LF or other
//!   control), at most [`MAX_CHUNK_EXTENSIONS`] in the whole body, else 400;
//! - a chunk larger than what is left of [`MAX_BODY_BYTES`] is 413 as soon
//!   as its size line is in, before any of its data;
//! - a chunk's data is followed by CRLF, else 400 `... chunk end`;
//! - after the last chunk, trailer fields (read and dropped) must be header
//!   fields as httparse reads them (400 `... chunk trailer`), no more than
//!   [`MAX_HEADERS`] of them nor [`MAX_HEADER_BYTES`] in all (431), up to an
//!   empty line.
//!
//! hyper, which reads the body after the async server's check, accepts
//! every body these rules accept (its own limits are looser: 16 KiB of
//! extensions, 100 trailer fields), so a body checked here never becomes an
//! error inside hyper.

use crate::framing::malformed;
use crate::head::MAX_HEADERS;
use crate::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};
use crate::ApiError;

/// The longest chunk-size line, its extensions and CRLF included.
pub const MAX_CHUNK_LINE: usize = 1024;
/// The most chunk-extension bytes in one body, all its size lines together.
pub const MAX_CHUNK_EXTENSIONS: usize = 4 * 1024;

/// One step through a chunked body, from where the caller is in its buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk {
    /// Body bytes, `buf[start..end]`; go on from `end`.
    Data { start: usize, end: usize },
    /// Framing (a size line, a chunk's CRLF, a trailer field) up to `end`;
    /// go on from `end`.
    Framing { end: usize },
    /// The bytes there do not decide the next step yet: call again from
    /// the same place once more have arrived.
    NeedMore,
    /// The body, trailers included, ends at `end`: the next request starts there.
    End { end: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a chunk-size line.
    SizeLine,
    /// In a chunk's data, with this many bytes still to come.
    Data {
        left: usize,
    },
    /// After a chunk's data, at its CRLF.
    DataEnd,
    /// After the last chunk: trailer fields, this many bytes of them so far.
    Trailers {
        taken: usize,
    },
    Done,
}

/// Where one chunked body stands; feed it the buffer the body is in.
#[derive(Debug, Clone)]
pub struct ChunkedBody {
    state: State,
    /// Data bytes so far, against [`MAX_BODY_BYTES`].
    body_len: usize,
    /// Extension bytes so far, against [`MAX_CHUNK_EXTENSIONS`].
    extension_len: usize,
    /// Trailer fields so far, against [`MAX_HEADERS`].
    trailer_fields: usize,
}

impl Default for ChunkedBody {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkedBody {
    /// A body whose first chunk-size line is next.
    pub fn new() -> Self {
        ChunkedBody {
            state: State::SizeLine,
            body_len: 0,
            extension_len: 0,
            trailer_fields: 0,
        }
    }

    /// The next step of the body in `buf`, from `from` (where the last step
    /// ended, or where the body begins), or the error to answer. The answer
    /// is the same however the bytes arrived: each rule looks only at bytes
    /// it would see whole.
    pub fn next(&mut self, buf: &[u8], from: usize) -> Result<Chunk, ApiError> {
        let rest = buf.get(from..).unwrap_or_default();
        match self.state {
            State::SizeLine => self.size_line(rest, from),
            State::Data { left } => {
                let take = left.min(rest.len());
                if take == 0 {
                    return Ok(Chunk::NeedMore);
                }
                self.state = if take == left {
                    State::DataEnd
                } else {
                    State::Data { left: left - take }
                };
                Ok(Chunk::Data {
                    start: from,
                    end: from + take,
                })
            }
            State::DataEnd => match rest {
                [b'\r', b'\n', ..] => {
                    self.state = State::SizeLine;
                    Ok(Chunk::Framing { end: from + 2 })
                }
                [] | [b'\r'] => Ok(Chunk::NeedMore),
                _ => Err(malformed("chunk end")),
            },
            State::Trailers { taken } => self.trailer_line(rest, from, taken),
            // Nothing after the end belongs to this body.
            State::Done => Ok(Chunk::End { end: from }),
        }
    }

    fn size_line(&mut self, rest: &[u8], from: usize) -> Result<Chunk, ApiError> {
        let Some(line) = parse_size_line(rest)? else {
            return Ok(Chunk::NeedMore);
        };
        self.extension_len += line.extension_len;
        if self.extension_len > MAX_CHUNK_EXTENSIONS {
            return Err(malformed("chunk extensions"));
        }
        let end = from + line.len;
        if line.size == 0 {
            self.state = State::Trailers { taken: 0 };
            return Ok(Chunk::Framing { end });
        }
        // Refused on the declared size, before a byte of its data is read.
        let room = (MAX_BODY_BYTES - self.body_len) as u64;
        if line.size > room {
            return Err(ApiError::payload_too_large());
        }
        let size = line.size as usize;
        self.body_len += size;
        self.state = State::Data { left: size };
        Ok(Chunk::Framing { end })
    }

    fn trailer_line(&mut self, rest: &[u8], from: usize, taken: usize) -> Result<Chunk, ApiError> {
        let line = rest.windows(2).position(|w| w == b"\r\n");
        // How far the trailers reach: to the end of this line, or, while it
        // is still arriving, to the last byte there is.
        let reach = taken + line.map_or(rest.len(), |at| at + 2);
        if reach > MAX_HEADER_BYTES {
            return Err(ApiError::headers_too_large());
        }
        match line {
            None => Ok(Chunk::NeedMore),
            Some(0) => {
                self.state = State::Done;
                Ok(Chunk::End { end: from + 2 })
            }
            Some(at) => {
                self.trailer_fields += 1;
                if self.trailer_fields > MAX_HEADERS {
                    return Err(ApiError::headers_too_large());
                }
                check_trailer_field(&rest[..at + 2])?;
                self.state = State::Trailers { taken: reach };
                Ok(Chunk::Framing { end: from + at + 2 })
            }
        }
    }
}

/// A whole chunk-size line.
struct SizeLine {
    /// Its length, CRLF included.
    len: usize,
    /// The size, saturated: anything past the body limit is refused anyway.
    size: u64,
    extension_len: usize,
}

/// The chunk-size line at the start of `rest`: `Ok(None)` while it is not
/// all there. Only its first [`MAX_CHUNK_LINE`] bytes are looked at, so a
/// line too long is refused whatever follows, however its bytes came.
fn parse_size_line(rest: &[u8]) -> Result<Option<SizeLine>, ApiError> {
    let window = &rest[..rest.len().min(MAX_CHUNK_LINE)];
    let incomplete = || {
        if window.len() == MAX_CHUNK_LINE {
            Err(malformed("chunk size line"))
        } else {
            Ok(None)
        }
    };
    let bad = || Err(malformed("chunk size"));
    let mut size = 0u64;
    let mut i = 0;
    while let Some(digit) = window.get(i).and_then(|b| char::from(*b).to_digit(16)) {
        size = size.saturating_mul(16).saturating_add(u64::from(digit));
        i += 1;
    }
    if i == window.len() {
        return incomplete();
    }
    if i == 0 {
        return bad();
    }
    while matches!(window.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let mut extension_len = 0;
    match window.get(i) {
        None => return incomplete(),
        Some(b';') => {
            i += 1;
            while let Some(&b) = window.get(i) {
                if b == b'\r' {
                    break;
                }
                if !(b == b'\t' || (b >= 0x20 && b != 0x7f)) {
                    return bad();
                }
                extension_len += 1;
                i += 1;
            }
        }
        Some(b'\r') => {}
        Some(_) => return bad(),
    }
    match window.get(i..i + 2) {
        Some(b"\r\n") => Ok(Some(SizeLine {
            len: i + 2,
            size,
            extension_len,
        })),
        Some(_) => bad(),
        None => incomplete(),
    }
}

/// One trailer field, CRLF included: a header field as httparse reads one.
fn check_trailer_field(line: &[u8]) -> Result<(), ApiError> {
    let mut slot = [httparse::EMPTY_HEADER; 1];
    // A field alone is "partial" to httparse (no empty line ends it): that
    // is a good one; an error is a bad one.
    match httparse::parse_headers(line, &mut slot) {
        Ok(httparse::Status::Partial) => Ok(()),
        Ok(httparse::Status::Complete(_)) | Err(_) => Err(malformed("chunk trailer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes all of `raw`: the data and where the body ended, or the
    /// status and message.
    fn decode(raw: &[u8]) -> Result<(Vec<u8>, usize), (u16, String)> {
        let mut body = ChunkedBody::new();
        let mut data = Vec::new();
        let mut pos = 0;
        loop {
            match body.next(raw, pos).map_err(|e| (e.status(), e.message))? {
                Chunk::Data { start, end } => {
                    data.extend_from_slice(&raw[start..end]);
                    pos = end;
                }
                Chunk::Framing { end } => pos = end,
                Chunk::NeedMore => return Err((0, "need more".into())),
                Chunk::End { end } => return Ok((data, end)),
            }
        }
    }

    #[test]
    fn a_body_with_extensions_and_trailers_is_decoded() {
        let raw = b"5 ;a=b\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        assert_eq!(decode(raw), Ok((b"hello world".to_vec(), raw.len() - 4)));
    }

    #[test]
    fn half_a_body_asks_for_more_whatever_the_cut() {
        let raw = b"5\r\nhello\r\n0\r\n\r\n";
        for cut in 0..raw.len() {
            assert_eq!(decode(&raw[..cut]).map_err(|e| e.0), Err(0), "cut at {cut}");
        }
    }

    #[test]
    fn each_rule_refuses_with_its_status_and_message() {
        let long_extension = format!("1;{}\r\na\r\n0\r\n\r\n", "x".repeat(MAX_CHUNK_LINE));
        let many_extensions = format!("1;{}\r\na\r\n", "x".repeat(1000)).repeat(5) + "0\r\n\r\n";
        let big_trailer = format!("0\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEADER_BYTES));
        let cases: [(&[u8], u16, &str); 10] = [
            (b"zz\r\n", 400, "chunk size"),
            (b"\r\n", 400, "chunk size"),
            (b"5 5\r\nhello\r\n", 400, "chunk size"),
            (b"1;a\nb\r\nx\r\n", 400, "chunk size"),
            (b"5\rhello", 400, "chunk size"),
            (b"5\r\nhelloXX0\r\n\r\n", 400, "chunk end"),
            (b"100000\r\n", 413, ""),
            (b"ffffffffffffffffffff\r\n", 413, ""),
            (b"0\r\nno colon\r\n\r\n", 400, "chunk trailer"),
            (long_extension.as_bytes(), 400, "chunk size line"),
        ];
        for (raw, status, what) in cases {
            let (got, message) = decode(raw).unwrap_err();
            assert_eq!(got, status, "{:?}", String::from_utf8_lossy(raw));
            if !what.is_empty() {
                assert_eq!(message, format!("malformed request: {what}"));
            }
        }
        assert_eq!(
            decode(many_extensions.as_bytes()).unwrap_err().1,
            "malformed request: chunk extensions"
        );
        assert_eq!(decode(big_trailer.as_bytes()).unwrap_err().0, 431);
    }

    #[test]
    fn the_body_limit_counts_every_chunk() {
        let chunk = format!("{:x}\r\n{}\r\n", 40_000, "a".repeat(40_000));
        let raw = format!("{chunk}{chunk}0\r\n\r\n");
        assert_eq!(decode(raw.as_bytes()).unwrap_err().0, 413);
    }
}
