//! The cold-start check of issue 2, used by crates/blocking-server/tests/cold_start.rs
//! and examples/tiny_http_cold_start.rs: open many keep-alive connections back
//! to back (all connected before any is used, as a load tool's event loop
//! does), then have each send `GET /health` in a loop, and record when each got
//! its first answer.

use std::net::SocketAddr;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::http::Conn;

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
    let conns = (0..connections)
        .map(|_| Conn::open(addr))
        .collect::<std::io::Result<Vec<_>>>()?;
    let start_line = Arc::new(Barrier::new(connections + 1));
    let threads: Vec<_> = conns
        .into_iter()
        .map(|conn| {
            let start_line = Arc::clone(&start_line);
            std::thread::spawn(move || {
                start_line.wait();
                drive(conn, Instant::now(), run_for)
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
fn drive(mut conn: Conn, start: Instant, run_for: Duration) -> (Option<Duration>, u64) {
    let deadline = start + run_for;
    let mut first = None;
    let mut count = 0;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        if conn.exchange(REQUEST, left).is_err() {
            break;
        }
        count += 1;
        first.get_or_insert_with(|| start.elapsed());
    }
    (first, count)
}
