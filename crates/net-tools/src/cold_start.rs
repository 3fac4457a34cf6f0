//! The cold-start fairness probe (why the blocking server has its own connector): open many keep-alive
//! connections back to back (all connected before any is used, as a load
//! tool's event loop does), then have each send `GET /health` in a loop, and
//! record when each got its first answer. On a fair server every connection
//! is answered within milliseconds; tiny_http 0.12's internal pool hands a
//! burst of connections to the same few idle threads, and the rest wait.
//!
//! bench runs it on fresh servers (its baseline group's cold-start finding);
//! the blocking server's cold-start test
//! (`crates/blocking-server/tests/cold_start.rs`) runs the same function.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::http_answer::read_answer;

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

/// Runs the probe: `connections` connections, each looping until every one
/// of them has had its first answer, or for `run_for` at the most. Past the
/// moment all are answered nothing more can be learned, so a fair server's
/// probe takes milliseconds; a starved connection keeps the others looping
/// (and the server's threads busy) as a load tool's would.
pub fn probe(
    addr: SocketAddr,
    connections: usize,
    run_for: Duration,
) -> std::io::Result<ProbeReport> {
    let conns = (0..connections)
        .map(|_| {
            let s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
            s.set_nodelay(true)?;
            Ok(s)
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let start_line = Arc::new(Barrier::new(connections + 1));
    let answered = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = conns
        .into_iter()
        .map(|conn| {
            let start_line = Arc::clone(&start_line);
            let answered = Arc::clone(&answered);
            std::thread::spawn(move || {
                start_line.wait();
                let all_answered = || answered.load(Ordering::Relaxed) >= connections;
                drive(conn, Instant::now(), run_for, &answered, all_answered)
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

/// One connection's loop: send, wait for the whole answer, repeat, until
/// the deadline or until `all_answered`; the first answer counts in `answered`.
fn drive(
    mut conn: TcpStream,
    start: Instant,
    run_for: Duration,
    answered: &AtomicUsize,
    all_answered: impl Fn() -> bool,
) -> (Option<Duration>, u64) {
    let deadline = start + run_for;
    let mut first = None;
    let mut count = 0;
    let mut buf = Vec::new();
    while Instant::now() < deadline && !all_answered() {
        if conn.write_all(REQUEST).is_err() || read_answer(&mut conn, &mut buf, deadline).is_err() {
            break;
        }
        count += 1;
        if first.is_none() {
            first = Some(start.elapsed());
            answered.fetch_add(1, Ordering::Relaxed);
        }
    }
    (first, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_counts_the_unanswered_and_the_slow() {
        let ms = Duration::from_millis;
        let report = ProbeReport {
            first_answer: vec![Some(ms(5)), None, Some(ms(1001)), Some(ms(1000))],
            answers: vec![10, 0, 1, 2],
        };
        assert_eq!(report.late(Duration::from_secs(1)), 2);
        assert_eq!(report.total_answers(), 13);
    }
}
