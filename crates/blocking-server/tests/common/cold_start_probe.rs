//! The cold-start check of issue 2, shared by tests/cold_start.rs and
//! examples/tiny_http_cold_start.rs: open many keep-alive connections back to
//! back (all connected before any is used, as a load tool's event loop does),
//! then have each send `GET /health` in a loop, and record when each got its
//! first answer.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// What one cold start showed, one entry per connection.
#[derive(Debug)]
pub struct ProbeReport {
    /// Time from the start signal to the first answer; `None`: no answer at all.
    pub first_answer: Vec<Option<Duration>>,
    /// Answers received during the run.
    pub answers: Vec<u64>,
}

impl ProbeReport {
    /// How many connections had no answer within `limit`.
    pub fn late(&self, limit: Duration) -> usize {
        self.first_answer
            .iter()
            .filter(|first| first.is_none_or(|t| t > limit))
            .count()
    }

    pub fn total_answers(&self) -> u64 {
        self.answers.iter().sum()
    }
}

const REQUEST: &[u8] = b"GET /health HTTP/1.1\r\nhost: probe\r\n\r\n";

/// Runs the check: `connections` connections, each looping for `run_for`.
pub fn probe(
    addr: SocketAddr,
    connections: usize,
    run_for: Duration,
) -> std::io::Result<ProbeReport> {
    let mut streams = Vec::with_capacity(connections);
    for _ in 0..connections {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        streams.push(stream);
    }
    let start_line = Arc::new(Barrier::new(connections + 1));
    let threads: Vec<_> = streams
        .into_iter()
        .map(|stream| {
            let start_line = Arc::clone(&start_line);
            std::thread::spawn(move || {
                start_line.wait();
                drive(stream, Instant::now(), run_for)
            })
        })
        .collect();
    start_line.wait();
    let mut report = ProbeReport {
        first_answer: Vec::with_capacity(connections),
        answers: Vec::with_capacity(connections),
    };
    for thread in threads {
        let (first, count) = thread.join().unwrap_or((None, 0));
        report.first_answer.push(first);
        report.answers.push(count);
    }
    Ok(report)
}

/// One connection's loop: send, wait for the whole answer, repeat.
fn drive(mut stream: TcpStream, start: Instant, run_for: Duration) -> (Option<Duration>, u64) {
    let deadline = start + run_for;
    let mut first = None;
    let mut count = 0;
    let mut buf = Vec::new();
    while Instant::now() < deadline {
        if stream.write_all(REQUEST).is_err() {
            break;
        }
        if !read_one_answer(&mut stream, &mut buf, deadline) {
            break;
        }
        count += 1;
        first.get_or_insert_with(|| start.elapsed());
    }
    (first, count)
}

/// Reads one response (head + `content-length` body); false on timeout or close.
fn read_one_answer(stream: &mut TcpStream, buf: &mut Vec<u8>, deadline: Instant) -> bool {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut response = httparse::Response::new(&mut headers);
        if let Ok(httparse::Status::Complete(head_len)) = response.parse(buf) {
            let length: usize = response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= head_len + length {
                buf.drain(..head_len + length);
                return true;
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return false;
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}
