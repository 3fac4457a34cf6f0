//! One whole HTTP/1.1 answer read off a socket: the head, then
//! `Content-Length` bytes of body, by a deadline. Enough for the probes
//! here, which send `GET /health` and read answers with a length.

use std::io::Read;
use std::net::TcpStream;
use std::time::Instant;

/// Reads one whole answer (its head, then `Content-Length` bytes of body)
/// by `deadline`; bytes of a next answer stay in `buf`.
pub fn read_answer(
    conn: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> std::io::Result<()> {
    loop {
        if let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            let whole = head_end + 4 + length;
            if buf.len() >= whole {
                buf.drain(..whole);
                return Ok(());
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        conn.set_read_timeout(Some(left))?;
        let mut chunk = [0u8; 4096];
        match conn.read(&mut chunk)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
    }
}
