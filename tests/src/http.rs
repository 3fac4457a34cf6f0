//! The one raw HTTP/1.1 client of the test suites, over a plain `TcpStream`.
//!
//! Tests need to send exactly the bytes they mean — a wrong method, a 20 KiB
//! header, a body with no content type, two pipelined requests — and see
//! exactly what came back, so this client hides nothing. [`send`] and
//! [`send_raw`] use one connection per request (`Connection: close`);
//! [`Conn`] keeps a connection open and reads one answer at a time, for
//! keep-alive and pipelining. Answers are read by the workspace's one reader
//! (`net_tools::http_answer`: Content-Length, chunked or until close).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use net_tools::http_answer::{read_answer_from, Answer, ByDeadline};

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

impl From<Answer> for Response {
    fn from(answer: Answer) -> Self {
        Response {
            status: answer.status,
            headers: answer.headers,
            body: answer.body,
        }
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

/// Sends raw bytes and reads the answer (of a `HEAD` request when `request`
/// is one).
pub fn send_raw(addr: SocketAddr, request: &[u8]) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    // A server may answer (413, 431) and close before reading all we send;
    // a failed write is then not the test's concern, the answer is.
    let _ = stream.write_all(request);
    read_answer_from(&mut stream, &mut Vec::new(), is_head(request)).map(Response::from)
}

fn is_head(request: &[u8]) -> bool {
    request.starts_with(b"HEAD ")
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
        self.read_response(is_head(raw), within)
    }

    /// Reads the next answer on the connection (skipping `100 Continue`).
    pub fn read_response(&mut self, to_head: bool, within: Duration) -> std::io::Result<Response> {
        let mut by_deadline = ByDeadline {
            conn: &mut self.stream,
            deadline: Instant::now() + within,
        };
        read_answer_from(&mut by_deadline, &mut self.buf, to_head).map(Response::from)
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
        let mut by_deadline = ByDeadline {
            conn: &mut self.stream,
            deadline,
        };
        let mut chunk = [0u8; 16 * 1024];
        match by_deadline.read(&mut chunk)? {
            0 => Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    }
}
