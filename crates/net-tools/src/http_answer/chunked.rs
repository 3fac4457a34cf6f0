//! Where a `Transfer-Encoding: chunked` body ends, fed as it arrives, and
//! its data handed to the caller on the way: the load generator drops it
//! (it only needs the next answer on a kept-alive connection to start at the
//! right byte), the plain clients keep it.

/// Where the skipper is inside the chunked framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading the hexadecimal chunk size.
    Size { value: u64, digits: u32 },
    /// Skipping a chunk extension (`;name=value`) up to the end of the line.
    Extension { value: u64 },
    /// Saw `\r` after the size line, expecting `\n`.
    SizeLf { value: u64 },
    /// Inside chunk data, this many bytes left.
    Data { left: u64 },
    /// After chunk data, expecting `\r`.
    DataCr,
    /// After chunk data, expecting `\n`.
    DataLf,
    /// After the last chunk: trailer lines until an empty line.
    Trailer { at_line_start: bool },
    /// Saw `\r` on an empty trailer line, expecting `\n`.
    TrailerEndLf,
}

/// What [`ChunkedBody::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The body ended after this many bytes of the input.
    Done(usize),
    /// All of the input belonged to the body; more is needed.
    NeedMore,
}

/// Incremental parser of chunked framing; the data goes to `feed`'s caller.
#[derive(Debug, Clone)]
pub struct ChunkedBody {
    state: State,
}

impl Default for ChunkedBody {
    fn default() -> Self {
        ChunkedBody {
            state: State::Size {
                value: 0,
                digits: 0,
            },
        }
    }
}

impl ChunkedBody {
    /// Feeds the next bytes of the body; each piece of chunk data in them
    /// goes to `on_data` (a no-op closure costs nothing: it is inlined).
    pub fn feed(
        &mut self,
        input: &[u8],
        mut on_data: impl FnMut(&[u8]),
    ) -> Result<Progress, &'static str> {
        let mut i = 0;
        while i < input.len() {
            if let State::Data { left } = self.state {
                // Skip as much chunk data as this input holds in one step.
                let take = (input.len() - i).min(usize::try_from(left).unwrap_or(usize::MAX));
                on_data(&input[i..i + take]);
                i += take;
                let left = left - take as u64;
                self.state = if left == 0 {
                    State::DataCr
                } else {
                    State::Data { left }
                };
                continue;
            }
            let byte = input[i];
            self.state = match self.state {
                State::Data { .. } => unreachable!("handled above"),
                State::Size { value, digits } => match byte {
                    b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' => {
                        if digits >= 16 {
                            return Err("chunk size too large");
                        }
                        let digit = (byte as char).to_digit(16).unwrap_or(0) as u64;
                        State::Size {
                            value: value * 16 + digit,
                            digits: digits + 1,
                        }
                    }
                    _ if digits == 0 => return Err("chunk size missing"),
                    b';' | b' ' | b'\t' => State::Extension { value },
                    b'\r' => State::SizeLf { value },
                    b'\n' => after_size_line(value),
                    _ => return Err("malformed chunk size"),
                },
                State::Extension { value } => match byte {
                    b'\n' => after_size_line(value),
                    _ => State::Extension { value },
                },
                State::SizeLf { value } => match byte {
                    b'\n' => after_size_line(value),
                    _ => return Err("chunk size line not ended by CRLF"),
                },
                State::DataCr => match byte {
                    b'\r' => State::DataLf,
                    b'\n' => State::Size {
                        value: 0,
                        digits: 0,
                    },
                    _ => return Err("chunk data not followed by CRLF"),
                },
                State::DataLf => match byte {
                    b'\n' => State::Size {
                        value: 0,
                        digits: 0,
                    },
                    _ => return Err("chunk data not followed by CRLF"),
                },
                State::Trailer { at_line_start } => match byte {
                    b'\r' if at_line_start => State::TrailerEndLf,
                    b'\n' if at_line_start => return Ok(Progress::Done(i + 1)),
                    b'\n' => State::Trailer {
                        at_line_start: true,
                    },
                    _ => State::Trailer {
                        at_line_start: false,
                    },
                },
                State::TrailerEndLf => match byte {
                    b'\n' => return Ok(Progress::Done(i + 1)),
                    _ => return Err("chunked trailer not ended by CRLF"),
                },
            };
            i += 1;
        }
        Ok(Progress::NeedMore)
    }
}

fn after_size_line(value: u64) -> State {
    if value == 0 {
        State::Trailer {
            at_line_start: true,
        }
    } else {
        State::Data { left: value }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n";

    #[test]
    fn finds_the_end_in_one_piece_and_leaves_what_follows() {
        let mut input = BODY.to_vec();
        input.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        let mut skipper = ChunkedBody::default();
        assert_eq!(skipper.feed(&input, |_| {}), Ok(Progress::Done(BODY.len())));
    }

    #[test]
    fn finds_the_end_fed_one_byte_at_a_time() {
        let mut skipper = ChunkedBody::default();
        for (i, byte) in BODY.iter().enumerate() {
            let progress = skipper
                .feed(std::slice::from_ref(byte), |_| {})
                .expect("valid framing");
            if i + 1 == BODY.len() {
                assert_eq!(progress, Progress::Done(1));
            } else {
                assert_eq!(progress, Progress::NeedMore, "byte {i}");
            }
        }
    }

    #[test]
    fn hands_over_the_data_of_every_chunk() {
        let mut data = Vec::new();
        let mut body = ChunkedBody::default();
        for piece in BODY.chunks(5) {
            let _ = body.feed(piece, |d| data.extend_from_slice(d));
        }
        assert_eq!(data, b"Wikipedia in\r\n\r\nchunks.");
    }

    #[test]
    fn handles_trailers() {
        let body = b"3\r\nabc\r\n0\r\nX-Trailer: yes\r\n\r\n";
        let mut skipper = ChunkedBody::default();
        assert_eq!(skipper.feed(body, |_| {}), Ok(Progress::Done(body.len())));
    }

    #[test]
    fn rejects_garbage() {
        let mut skipper = ChunkedBody::default();
        assert!(skipper.feed(b"zz\r\n", |_| {}).is_err());
        let mut skipper = ChunkedBody::default();
        assert!(skipper.feed(b"3\r\nabcXX", |_| {}).is_err());
    }
}
