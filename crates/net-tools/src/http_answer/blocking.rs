//! One whole HTTP/1.1 answer read off a blocking socket: the head, then the
//! body by its framing, kept; bytes of a next answer stay in the buffer for
//! the next call (keep-alive, pipelining). Interim answers (`100 Continue`)
//! are skipped.

use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::time::Instant;

use super::chunked::{ChunkedBody, Progress};
use super::head::{parse_head, Framing, Head};

/// What a server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// Every header, in order, its value trimmed.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The server allows another request on the connection.
    pub keep_alive: bool,
}

impl Answer {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Reads the answer to a `GET` on `conn` by `deadline` (a timeout past it).
pub fn read_answer(
    conn: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> std::io::Result<Answer> {
    read_answer_from(&mut ByDeadline { conn, deadline }, buf, false)
}

/// Reads one answer from `source` (a socket, or bytes already read: a
/// `&[u8]`), starting with what `buf` holds. `head_request`: the request was
/// a `HEAD`. A close before the answer is whole is `UnexpectedEof`; bytes
/// that are no answer are `InvalidData`.
pub fn read_answer_from(
    source: &mut impl Read,
    buf: &mut Vec<u8>,
    head_request: bool,
) -> std::io::Result<Answer> {
    loop {
        let mut headers = Vec::new();
        let keep = |name: &str, value: &[u8]| {
            let value = String::from_utf8_lossy(value).trim().to_owned();
            headers.push((name.to_owned(), value));
        };
        let Some(head) = parse_head(buf, head_request, keep)? else {
            fill(source, buf)?;
            continue;
        };
        if head.is_interim() {
            buf.drain(..head.len);
            continue;
        }
        let body = read_body(source, buf, &head)?;
        return Ok(Answer {
            status: head.status,
            headers,
            body,
            keep_alive: head.keep_alive,
        });
    }
}

/// The body after `head` (at the start of `buf`), both taken out of `buf`.
fn read_body(source: &mut impl Read, buf: &mut Vec<u8>, head: &Head) -> std::io::Result<Vec<u8>> {
    let (body, used) = match head.framing {
        Framing::Length(length) => {
            let end = usize::try_from(length)
                .ok()
                .and_then(|length| head.len.checked_add(length))
                .ok_or(ErrorKind::InvalidData)?;
            while buf.len() < end {
                fill(source, buf)?;
            }
            (buf[head.len..end].to_vec(), end)
        }
        Framing::Chunked => {
            let (mut chunked, mut body, mut at) = (ChunkedBody::default(), Vec::new(), head.len);
            loop {
                let fed = chunked.feed(&buf[at..], |data| body.extend_from_slice(data));
                match fed.map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e))? {
                    Progress::Done(used) => break (body, at + used),
                    Progress::NeedMore => {
                        at = buf.len();
                        fill(source, buf)?;
                    }
                }
            }
        }
        Framing::UntilClose => {
            while read_more(source, buf)? {}
            (buf[head.len..].to_vec(), buf.len())
        }
    };
    buf.drain(..used);
    Ok(body)
}

/// Reads more into `buf`; a close is `UnexpectedEof` (an answer is due).
fn fill(source: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<()> {
    if read_more(source, buf)? {
        Ok(())
    } else {
        Err(ErrorKind::UnexpectedEof.into())
    }
}

/// Reads more into `buf`: false once the server has closed. A reset counts
/// as a close: a server that answers and closes with our request unread
/// (413, 431) resets the connection after its answer.
fn read_more(source: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match source.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(true);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(false),
            Err(e) => return Err(e),
        }
    }
}

/// A socket read by a deadline: each read waits only for the time left,
/// and none starts past it (`TimedOut`).
#[derive(Debug)]
pub struct ByDeadline<'a> {
    pub conn: &'a mut TcpStream,
    pub deadline: Instant,
}

impl Read for ByDeadline<'_> {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        self.conn.set_read_timeout(Some(left))?;
        self.conn.read(into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(mut raw: &[u8]) -> Vec<std::io::Result<Answer>> {
        let mut buf = Vec::new();
        let mut answers = Vec::new();
        loop {
            let answer = read_answer_from(&mut raw, &mut buf, false);
            let end = answer.is_err();
            answers.push(answer);
            if end {
                return answers;
            }
        }
    }

    #[test]
    fn reads_back_to_back_answers_of_each_framing_and_skips_interim_ones() {
        let answers = read_all(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\
HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n\
HTTP/1.0 200 OK\r\n\r\nall of this is body",
        );
        let got: Vec<_> = answers
            .iter()
            .map(|a| {
                a.as_ref()
                    .map(|a| (a.status, a.text(), a.keep_alive))
                    .map_err(|e| e.kind())
            })
            .collect();
        assert_eq!(
            got,
            [
                Ok((200, "hello".to_owned(), true)),
                Ok((404, "abcde".to_owned(), true)),
                Ok((200, "all of this is body".to_owned(), false)),
                Err(ErrorKind::UnexpectedEof),
            ]
        );
        let json = answers[1].as_ref().unwrap();
        assert_eq!(json.header("content-type"), Some("application/json"));
    }

    #[test]
    fn a_short_body_is_unexpected_eof_and_garbage_invalid_data() {
        let short = read_all(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort");
        assert_eq!(
            short[0].as_ref().unwrap_err().kind(),
            ErrorKind::UnexpectedEof
        );
        let garbage = read_all(b"SMTP ready\r\n\r\n");
        assert_eq!(
            garbage[0].as_ref().unwrap_err().kind(),
            ErrorKind::InvalidData
        );
    }
}
