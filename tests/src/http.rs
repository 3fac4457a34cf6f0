//! The one raw HTTP/1.1 client of the test suites, over a plain `TcpStream`.
//!
//! Tests need to send exactly the bytes they mean — a wrong method, a 20 KiB
//! header, a body with no content type, two pipelined requests — and see
//! exactly what came back, so this client hides nothing. [`send`] and
//! [`send_raw`] use one connection per request (`Connection: close`, read to
//! the end); [`Conn`] keeps a connection open and reads one answer at a time
//! (Content-Length or chunked), for keep-alive and pipelining.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// What a server answered.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method path` with the given extra headers and body; adds `Host`,
/// `Connection: close` and, when there is a body, `Content-Length`.
pub fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    send_raw(addr, &bytes)
}

/// Sends raw bytes and parses whatever comes back until the server closes.
pub fn send_raw(addr: SocketAddr, request: &[u8]) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    // A server may answer (413, 431) and close before reading all we send;
    // a failed write is then not the test's concern, the answer is.
    let _ = stream.write_all(request);
    let mut raw = Vec::new();
    match stream.read_to_end(&mut raw) {
        Ok(_) => {}
        // Reset after the answer arrived (the server closed with unread input).
        Err(e) if !raw.is_empty() && e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => return Err(e),
    }
    parse_response(&raw)
}

/// Parses a complete answer read to the end; the burst client in `process`
/// reads through tokio and parses with this too.
pub(crate) fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let (status, headers, head_len) = parse_head(raw)?
        .ok_or_else(|| bad(&format!("no complete response head in {} bytes", raw.len())))?;
    let mut body = raw[head_len..].to_vec();
    if is_chunked(&headers) {
        body = dechunk(&body)
            .map(|(body, _)| body)
            .ok_or_else(|| bad("bad chunked body"))?;
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

type Head = (u16, Vec<(String, String)>, usize);

/// The status, headers and length of the head at the start of `raw`, or
/// `None` while the head is incomplete.
fn parse_head(raw: &[u8]) -> std::io::Result<Option<Head>> {
    let Some(head_end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head =
        std::str::from_utf8(&raw[..head_end]).map_err(|_| bad("response head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().ok_or_else(|| bad("empty response"))?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(&format!("bad status line {status_line:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(Some((status, headers, head_end + 4)))
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
}

fn is_chunked(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    })
}

/// One keep-alive connection: write requests, read answers one at a time.
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> std::io::Result<Conn> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    /// Writes `raw` and reads one answer (of a `HEAD` request when `raw` is
    /// one), waiting at most `within`.
    pub fn exchange(&mut self, raw: &[u8], within: Duration) -> std::io::Result<Response> {
        self.stream.write_all(raw)?;
        self.read_response(raw.starts_with(b"HEAD "), within)
    }

    /// Reads the next answer on the connection (skipping `100 Continue`).
    pub fn read_response(&mut self, to_head: bool, within: Duration) -> std::io::Result<Response> {
        let deadline = Instant::now() + within;
        loop {
            let Some((status, headers, head_len)) = parse_head(&self.buf)? else {
                self.fill(deadline)?;
                continue;
            };
            let no_body = to_head || status == 100 || status == 204 || status == 304;
            let (body, used) = if no_body {
                (Vec::new(), 0)
            } else if is_chunked(&headers) {
                match dechunk(&self.buf[head_len..]) {
                    Some(done) => done,
                    None => {
                        self.fill(deadline)?;
                        continue;
                    }
                }
            } else {
                let length: usize = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(0);
                if self.buf.len() < head_len + length {
                    self.fill(deadline)?;
                    continue;
                }
                (self.buf[head_len..head_len + length].to_vec(), length)
            };
            self.buf.drain(..head_len + used);
            if status != 100 {
                return Ok(Response {
                    status,
                    headers,
                    body,
                });
            }
        }
    }

    /// Whether the server closes the connection within `within` (reads
    /// nothing more, or is reset).
    pub fn closed_by_server(&mut self, within: Duration) -> bool {
        match self.fill(Instant::now() + within) {
            Err(e) => {
                e.kind() != std::io::ErrorKind::TimedOut
                    && e.kind() != std::io::ErrorKind::WouldBlock
            }
            Ok(()) => false,
        }
    }

    fn fill(&mut self, deadline: Instant) -> std::io::Result<()> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk)? {
            0 => Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    }
}

/// The body of a complete chunked message at the start of `data`, and how
/// many bytes it took; `None` if it is incomplete or malformed.
fn dechunk(data: &[u8]) -> Option<(Vec<u8>, usize)> {
    let (mut out, mut at) = (Vec::new(), 0);
    loop {
        let line_end = at + data[at..].windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[at..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        at = line_end + 2;
        if size == 0 {
            // No trailers from our servers: the empty line ends the message.
            return (data.get(at..at + 2)? == b"\r\n").then_some((out, at + 2));
        }
        out.extend_from_slice(data.get(at..at + size)?);
        at += size + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_length_and_chunked_answers() {
        let r = parse_response(
            b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{\"error\":\"x\"}",
        )
        .unwrap();
        assert_eq!(r.status, 404);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.body, b"{\"error\":\"x\"}");
        let r = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap();
        assert_eq!(r.body, b"abcde");
        assert!(parse_response(b"HTTP/1.1 200").is_err());
    }
}
