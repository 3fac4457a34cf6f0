//! A client that sends a request body a byte at a time, the slow-body half
//! of the slow-client cases (the slow head is tests/tests/suites/slow_clients.rs):
//! it writes the head at once, then one byte of the body every `interval`,
//! and watches for the server's answer between bytes.
//!
//! Like a real client it stops writing once an answer has come (writing on
//! after the server closed would turn the close into a reset, and a reset
//! can overtake the answer), then waits to see whether the server closes.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use net_tools::http_answer::{read_answer_from, Answer};

/// What one dripping client saw.
#[derive(Debug, Clone)]
pub struct Dripped {
    /// When the first byte of an answer was seen, from the end of the head.
    pub answered_after: Option<Duration>,
    /// Everything the server sent.
    pub answer: Vec<u8>,
    /// The server closed the connection (EOF or reset) within the wait
    /// after its answer (or, without an answer, before the client gave up).
    pub closed: bool,
    /// Body bytes written before the answer or the end.
    pub bytes_sent: usize,
}

impl Dripped {
    /// The answer's status, if a whole answer came.
    pub fn status(&self) -> Option<u16> {
        self.parsed().map(|answer| answer.status)
    }

    /// The answer's body (empty without a whole answer).
    pub fn body(&self) -> Vec<u8> {
        self.parsed().map(|answer| answer.body).unwrap_or_default()
    }

    fn parsed(&self) -> Option<Answer> {
        read_answer_from(&mut &self.answer[..], &mut Vec::new(), false).ok()
    }
}

/// Sends `head` (it should announce a body of more bytes than fit in
/// `give_up` at one per `interval`), then drips the body until an answer
/// comes or `give_up` passes; then waits up to `close_wait` for the server
/// to close.
pub fn drip_body(
    addr: SocketAddr,
    head: &[u8],
    interval: Duration,
    give_up: Duration,
    close_wait: Duration,
) -> std::io::Result<Dripped> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    stream.write_all(head)?;
    let head_sent = Instant::now();
    stream.set_nonblocking(true)?;
    let mut seen = Dripped {
        answered_after: None,
        answer: Vec::new(),
        closed: false,
        bytes_sent: 0,
    };
    while head_sent.elapsed() < give_up {
        if read_available(&mut stream, &mut seen.answer)? {
            seen.closed = true;
        }
        if !seen.answer.is_empty() || seen.closed {
            seen.answered_after = (!seen.answer.is_empty()).then(|| head_sent.elapsed());
            break;
        }
        match stream.write(b"a") {
            Ok(n) => seen.bytes_sent += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            // The server has gone: what it sent is read below.
            Err(_) => break,
        }
        std::thread::sleep(interval);
    }
    // The rest of the answer, and whether the server closes.
    stream.set_nonblocking(false)?;
    let until = Instant::now() + close_wait;
    while !seen.closed {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        stream.set_read_timeout(Some(left))?;
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => seen.closed = true,
            Ok(n) => {
                seen.answer.extend_from_slice(&buf[..n]);
                seen.answered_after
                    .get_or_insert_with(|| head_sent.elapsed());
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(_) => seen.closed = true,
        }
    }
    Ok(seen)
}

/// Reads what is there without waiting; true when the server has closed.
fn read_available(stream: &mut TcpStream, into: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => into.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Ok(true),
        }
    }
}
