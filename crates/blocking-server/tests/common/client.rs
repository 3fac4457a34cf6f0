//! A small raw HTTP/1.1 client: tests need to send oversized heads, odd
//! methods and keep-alive sequences exactly as written.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long a test waits for an answer before failing (start-up included).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
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

/// One keep-alive connection.
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    /// Writes `raw` and reads one answer, waiting until `deadline`.
    pub fn exchange(&mut self, raw: &[u8], deadline: Instant) -> std::io::Result<Reply> {
        self.stream.write_all(raw)?;
        let head_only = raw.starts_with(b"HEAD ");
        self.read_reply(head_only, deadline)
    }

    pub fn read_reply(&mut self, head_only: bool, deadline: Instant) -> std::io::Result<Reply> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut response = httparse::Response::new(&mut headers);
            if let httparse::Status::Complete(head_len) = response
                .parse(&self.buf)
                .map_err(|e| std::io::Error::other(format!("bad response head: {e}")))?
            {
                let status = response.code.unwrap_or(0);
                let headers: Vec<(String, String)> = response
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_owned(),
                            String::from_utf8_lossy(h.value).into_owned(),
                        )
                    })
                    .collect();
                let length: usize = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.trim().parse().ok())
                    .unwrap_or(0);
                let length = if head_only || status == 100 {
                    0
                } else {
                    length
                };
                while self.buf.len() < head_len + length {
                    self.fill(deadline)?;
                }
                let body = self.buf[head_len..head_len + length].to_vec();
                self.buf.drain(..head_len + length);
                if status == 100 {
                    continue;
                }
                return Ok(Reply {
                    status,
                    headers,
                    body,
                });
            }
            self.fill(deadline)?;
        }
    }

    fn fill(&mut self, deadline: Instant) -> std::io::Result<()> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }
}

/// Sends one raw request on a new connection and reads the answer.
pub fn send(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut conn = Conn::open(addr).expect("connect to the server");
    conn.exchange(raw, Instant::now() + ANSWER_TIMEOUT)
        .unwrap_or_else(|e| panic!("no answer to {:?}: {e}", first_line(raw)))
}

pub fn get(addr: SocketAddr, path: &str) -> Reply {
    send(
        addr,
        format!("GET {path} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n").as_bytes(),
    )
}

fn first_line(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw.split(|&b| b == b'\n').next().unwrap_or_default()).into_owned()
}
