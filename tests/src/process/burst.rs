//! A connection burst on one route: open every connection first, then send
//! one request on each at the same instant (seed 000's burst), and count what
//! came back.
//!
//! The client is a small tokio runtime, so thousands of connections cost the
//! test process two threads, not thousands; what is measured is the server.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::http;

/// How long one connection may take to be accepted; one not accepted by then
/// counts as a connect error.
const CONNECT_LIMIT: Duration = Duration::from_secs(20);
/// How long a connected request may take to be answered in full.
const ANSWER_LIMIT: Duration = Duration::from_secs(60);

/// What a burst on one route came to.
#[derive(Debug, Default)]
pub struct BurstOutcome {
    /// How many requests got each status.
    pub by_status: BTreeMap<u16, u64>,
    /// Not connected within `CONNECT_LIMIT`, or refused.
    pub connect_errors: u64,
    /// Connected but no (complete) answer: reset, closed early, or timed out.
    pub other_errors: u64,
    pub took: Duration,
}

impl BurstOutcome {
    /// How many requests got an answer, whatever its status.
    pub fn answered(&self) -> u64 {
        self.by_status.values().sum()
    }
}

/// The bytes of one `method path` request on its own connection; a POST
/// carries a small valid JSON body (what `/echo` expects).
pub fn request_bytes(method: &str, path: &str) -> Vec<u8> {
    if method == "POST" {
        let body = r#"{"FirstName":"a","LastName":"b","Age":1}"#;
        format!(
            "POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    } else {
        format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").into_bytes()
    }
}

/// Opens `connections` connections to `addr` at once, then releases one
/// `method path` request on each at the same instant, and reads every answer.
pub fn burst(addr: SocketAddr, method: &str, path: &str, connections: usize) -> BurstOutcome {
    enum Outcome {
        Status(u16),
        Connect,
        Other,
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("burst client runtime");
    let started = Instant::now();
    let request = Arc::new(request_bytes(method, path));
    let outcomes: Vec<Outcome> = runtime.block_on(async move {
        let release = Arc::new(tokio::sync::Barrier::new(connections));
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                let (release, request) = (release.clone(), request.clone());
                tokio::spawn(async move {
                    let connect =
                        tokio::time::timeout(CONNECT_LIMIT, tokio::net::TcpStream::connect(addr))
                            .await;
                    // Every task reaches the barrier, connected or not, so
                    // no one waits for a task that gave up.
                    release.wait().await;
                    let Ok(Ok(mut stream)) = connect else {
                        return Outcome::Connect;
                    };
                    let exchange = async {
                        stream.write_all(&request).await?;
                        let mut raw = Vec::new();
                        stream.read_to_end(&mut raw).await?;
                        http::parse_response(&raw)
                    };
                    match tokio::time::timeout(ANSWER_LIMIT, exchange).await {
                        Ok(Ok(response)) => Outcome::Status(response.status),
                        _ => Outcome::Other,
                    }
                })
            })
            .collect();
        let mut outcomes = Vec::with_capacity(tasks.len());
        for t in tasks {
            outcomes.push(t.await.unwrap_or(Outcome::Other));
        }
        outcomes
    });
    let mut outcome = BurstOutcome {
        took: started.elapsed(),
        ..BurstOutcome::default()
    };
    for o in outcomes {
        match o {
            Outcome::Status(s) => *outcome.by_status.entry(s).or_default() += 1,
            Outcome::Connect => outcome.connect_errors += 1,
            Outcome::Other => outcome.other_errors += 1,
        }
    }
    outcome
}
