//! Issue 5, items 3 and 5, on the real `blocking-server` binary run as a child
//! process (so `/proc/<pid>` figures are the server's alone and signals reach
//! it as they would in production):
//! - overload: a burst of connections against every route; the server neither
//!   crashes nor stops accepting, every request gets an answer or a counted
//!   connection error, it raised (and logged) its open-file limit, and its
//!   thread count and RSS return near idle afterwards. Prints the figures
//!   (idle / peak / after) for the README;
//! - graceful shutdown: SIGTERM while 100 `/posts/1` are in flight: all 100
//!   answer 200, new connections are refused, exit code 0 within the drain
//!   timeout; a second SIGTERM ends a stuck drain at once, and so does the
//!   drain timeout (exit code 0 then: the server did what it was told).
//!
//! In CI the burst is 2,000 connections per route; `RELIABILITY_FULL=1`
//! makes it 10,000 (issue 5's figure). `BLOCKING_SERVER_BIN=target/release/<binary>`
//! runs another build of the server (the test profile's is a debug build). See the figures with
//! `RELIABILITY_FULL=1 cargo test -p blocking-server --test process_reliability -- --nocapture`.
//! crates/async-server/tests/process_reliability.rs is its twin.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_blocking-server");
const NAME: &str = "blocking";
/// Every route of the contract, with inputs cheap enough to send thousands of.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/health"),
    ("GET", "/cpu?n=10000"),
    ("GET", "/users/42"),
    ("GET", "/users/42/cache"),
    ("GET", "/posts/1"),
    ("POST", "/echo"),
    ("GET", "/metrics"),
];

fn full() -> bool {
    std::env::var("RELIABILITY_FULL").is_ok_and(|v| v == "1")
}

/// The server as a child process with its own database and key prefix.
struct ChildServer {
    child: Child,
    addr: SocketAddr,
    log: std::path::PathBuf,
    _database: local_services::TestDatabase,
    _prefix: local_services::RedisPrefix,
}

impl ChildServer {
    fn start(extra: &[&str]) -> ChildServer {
        let database = local_services::postgres()
            .and_then(|pg| pg.fresh_database())
            .expect("a fresh test database");
        let redis = local_services::redis().expect("redis for tests");
        let prefix = redis.fresh_prefix();
        // A free port: bind, read, release. The window before the child binds
        // it again is tiny, and nothing else here binds ephemeral ports at will.
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let log = std::env::temp_dir().join(format!(
            "{NAME}-process-reliability-{}-{}.log",
            std::process::id(),
            addr.port()
        ));
        let log_file = std::fs::File::create(&log).expect("server log file");
        let bin = std::env::var("BLOCKING_SERVER_BIN").unwrap_or_else(|_| BIN.to_owned());
        let child = Command::new(bin)
            .args(["--bind", &addr.to_string()])
            .args(["--database-url", database.url()])
            .args(["--redis-url", redis.url()])
            .args(["--redis-key-prefix", prefix.as_str()])
            .args(extra)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::from(
                log_file.try_clone().expect("server log file handle"),
            ))
            .stderr(Stdio::from(log_file))
            .spawn()
            .expect("starting the server binary");
        let mut server = ChildServer {
            child,
            addr,
            log,
            _database: database,
            _prefix: prefix,
        };
        server.wait_healthy(Duration::from_secs(90));
        server
    }

    fn wait_healthy(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{NAME} server exited during start-up ({status}):\n{}",
                    self.log_text()
                );
            }
            if get(self.addr, "/health").is_ok_and(|(s, _)| s == 200) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{NAME} server not healthy:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's log so far, without terminal colour codes.
    fn log_text(&self) -> String {
        let raw = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut text = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                // ESC [ ... letter
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                text.push(c);
            }
        }
        text
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .expect("running kill");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Waits up to `limit` for the process to exit; its exit code, or `None`
    /// if it is still running.
    fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// One request on its own connection; status and body.
fn get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes())?;
    let mut raw = String::new();
    s.read_to_string(&mut raw)?;
    parse(&raw)
}

fn parse(raw: &str) -> std::io::Result<(u16, String)> {
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line in {raw:?}")))?;
    let body = raw.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    Ok((status, body.to_owned()))
}

fn request_bytes(method: &str, path: &str) -> Vec<u8> {
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

/// What a burst on one route came to.
#[derive(Debug, Default)]
struct BurstOutcome {
    by_status: std::collections::BTreeMap<u16, u64>,
    connect_errors: u64,
    /// Connected but no (complete) answer: reset, closed early, or timed out.
    other_errors: u64,
    took: Duration,
}

/// Opens `connections` connections at once (seed 000's burst: connect all,
/// then release one request on each at the same instant), reads every answer.
fn burst(addr: SocketAddr, method: &str, path: &str, connections: usize) -> BurstOutcome {
    enum Outcome {
        Status(u16),
        Connect,
        Other,
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    let started = Instant::now();
    let request = Arc::new(request_bytes(method, path));
    let outcomes: Vec<Outcome> = runtime.block_on(async move {
        let release = Arc::new(tokio::sync::Barrier::new(connections));
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                let (release, request) = (release.clone(), request.clone());
                tokio::spawn(async move {
                    let connect = tokio::time::timeout(
                        Duration::from_secs(20),
                        tokio::net::TcpStream::connect(addr),
                    )
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
                        parse(&String::from_utf8_lossy(&raw))
                    };
                    match tokio::time::timeout(Duration::from_secs(60), exchange).await {
                        Ok(Ok((status, _))) => Outcome::Status(status),
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

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[test]
fn a_connection_burst_on_every_route_leaves_the_server_serving_and_back_near_idle() {
    // The client side needs a descriptor per connection too.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let connections = if full() { 10_000 } else { 2_000 };
    let server = ChildServer::start(&[]);

    // The server raised its own open-file limit and said so.
    let log = server.log_text();
    let line = log
        .lines()
        .find(|l| l.contains("open-file limit raised"))
        .unwrap_or_else(|| panic!("{NAME}: no open-file limit line in the log:\n{log}"));
    let limit: u64 = line
        .split("limit=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{NAME}: no limit in {line:?}"));
    assert!(limit >= 10_000, "{NAME}: open-file limit only {limit}");

    std::thread::sleep(Duration::from_millis(500));
    let idle = process_stats::sample(server.pid()).expect("idle sample");
    let sampler = process_stats::PeakSampler::start(server.pid(), Duration::from_millis(20));
    for (method, path) in ROUTES {
        let outcome = burst(server.addr, method, path, connections);
        let answered: u64 = outcome.by_status.values().sum();
        println!(
            "{NAME}: {connections} x {method} {path}: {:?} answered, {} connect errors, {} other errors, {:?}",
            outcome.by_status, outcome.connect_errors, outcome.other_errors, outcome.took
        );
        assert_eq!(
            answered + outcome.connect_errors + outcome.other_errors,
            connections as u64,
            "{NAME} {path}: every request is counted"
        );
        // Answers are the route's 200 or, when the pool is the bottleneck,
        // the contract's bounded 503; never a crash or another 5xx.
        for status in outcome.by_status.keys() {
            assert!(
                *status == 200 || *status == 503,
                "{NAME} {path}: answered {status} in the burst"
            );
        }
        assert!(
            answered * 10 >= connections as u64 * 9,
            "{NAME} {path}: only {answered} of {connections} answered: {outcome:?}"
        );
        // Still alive and accepting between bursts.
        let health = get(server.addr, "/health");
        assert!(
            health.as_ref().is_ok_and(|(s, _)| *s == 200),
            "{NAME}: /health after the {path} burst: {health:?}"
        );
    }
    let peak = sampler.stop();

    // Back near idle: the connector's threads are fixed; give the OS a moment
    // to close sockets and allocators to settle.
    let deadline = Instant::now() + Duration::from_secs(20);
    let after = loop {
        let now = process_stats::sample(server.pid()).expect("after sample");
        if now.threads <= idle.threads + 5 || Instant::now() > deadline {
            break now;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    println!(
        "{NAME}: threads idle {} / peak {} / after {}; RSS idle {:.1} MiB / peak {:.1} MiB / after {:.1} MiB; open-file limit {limit}",
        idle.threads,
        peak.peak_threads,
        after.threads,
        mib(idle.rss_bytes),
        mib(peak.peak_rss_bytes),
        mib(after.rss_bytes)
    );
    assert!(
        after.threads <= idle.threads + 5,
        "{NAME}: {} threads after the burst, {} idle",
        after.threads,
        idle.threads
    );
    // Freed memory may stay with the allocator (glibc keeps per-thread
    // arenas), so RSS need not fall back to idle; what must hold is that it
    // is bounded: the same bursts again do not make it grow further.
    for (method, path) in ROUTES.iter().take(4) {
        burst(server.addr, method, path, connections);
    }
    std::thread::sleep(Duration::from_secs(1));
    let again = process_stats::sample(server.pid()).expect("sample after a second round");
    println!(
        "{NAME}: RSS after a second round of bursts {:.1} MiB",
        mib(again.rss_bytes)
    );
    assert!(
        again.rss_bytes <= after.rss_bytes + after.rss_bytes / 4 + 16 * 1024 * 1024,
        "{NAME}: RSS grew from {:.1} MiB to {:.1} MiB on a second round of bursts",
        mib(after.rss_bytes),
        mib(again.rss_bytes)
    );
    assert_eq!(get(server.addr, "/users/1").map(|(s, _)| s).ok(), Some(200));
}

#[test]
fn sigterm_lets_100_requests_in_flight_finish_refuses_new_ones_and_exits_0() {
    let mut server = ChildServer::start(&[]);
    let addr = server.addr;
    let ready = Arc::new(Barrier::new(101));
    let clients: Vec<_> = (0..100)
        .map(|_| {
            let ready = ready.clone();
            std::thread::spawn(move || {
                let sent =
                    TcpStream::connect_timeout(&addr, Duration::from_secs(5)).and_then(|mut s| {
                        s.set_read_timeout(Some(Duration::from_secs(30)))?;
                        s.write_all(&request_bytes("GET", "/posts/1"))?;
                        Ok(s)
                    });
                ready.wait();
                let mut s = sent?;
                let mut raw = String::new();
                s.read_to_string(&mut raw)?;
                parse(&raw)
            })
        })
        .collect();
    ready.wait();
    // The requests are in the server now; each takes 300 ms.
    std::thread::sleep(Duration::from_millis(100));
    let signalled = Instant::now();
    server.signal("TERM");

    std::thread::sleep(Duration::from_millis(100));
    let late = get(addr, "/health");
    assert!(
        late.is_err(),
        "{NAME}: a new connection after SIGTERM was served: {late:?}"
    );

    for (i, client) in clients.into_iter().enumerate() {
        let answer = client.join().expect("client thread");
        assert!(
            matches!(answer, Ok((200, _))),
            "{NAME}: in-flight request {i} after SIGTERM: {answer:?}"
        );
    }
    let status = server
        .wait_exit(Duration::from_secs(10 + 5))
        .unwrap_or_else(|| panic!("{NAME}: still running 15 s after SIGTERM"));
    let took = signalled.elapsed();
    println!("{NAME}: exited {status} {took:?} after SIGTERM with 100 /posts/1 in flight");
    assert_eq!(
        status.code(),
        Some(0),
        "{NAME}: exit status\n{}",
        server.log_text()
    );
    assert!(
        took < Duration::from_secs(10),
        "{NAME}: drain took {took:?}"
    );
}

#[test]
fn a_second_sigterm_ends_a_stuck_drain_at_once() {
    let mut server = ChildServer::start(&[
        "--drain-timeout-s",
        "60",
        "--header-read-timeout-ms",
        "60000",
    ]);
    // A request that cannot finish: its head promises a body that never comes.
    let mut stuck = TcpStream::connect(server.addr).expect("connect");
    stuck
        .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
        .expect("send a head without its body");
    std::thread::sleep(Duration::from_millis(300));

    server.signal("TERM");
    assert!(
        server.wait_exit(Duration::from_secs(2)).is_none(),
        "{NAME}: exited without waiting for the request in flight"
    );
    let second = Instant::now();
    server.signal("TERM");
    let status = server
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("{NAME}: still running 5 s after a second SIGTERM"));
    println!(
        "{NAME}: second SIGTERM: exited {status} after {:?}",
        second.elapsed()
    );
    assert!(second.elapsed() < Duration::from_secs(2));
    assert_ne!(
        status.code(),
        Some(0),
        "{NAME}: an interrupted drain is not a clean exit"
    );
}

#[test]
fn the_drain_timeout_ends_a_stuck_drain() {
    let mut server = ChildServer::start(&[
        "--drain-timeout-s",
        "2",
        "--header-read-timeout-ms",
        "60000",
    ]);
    let mut stuck = TcpStream::connect(server.addr).expect("connect");
    stuck
        .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
        .expect("send a head without its body");
    std::thread::sleep(Duration::from_millis(300));

    let signalled = Instant::now();
    server.signal("TERM");
    let status = server
        .wait_exit(Duration::from_secs(2 + 5))
        .unwrap_or_else(|| {
            panic!("{NAME}: still running 7 s after SIGTERM with a 2 s drain timeout")
        });
    let took = signalled.elapsed();
    println!("{NAME}: drain timeout 2 s, a request stuck: exited {status} after {took:?}");
    assert!(
        took >= Duration::from_millis(1500),
        "{NAME}: exited after {took:?}, before the drain timeout"
    );
}
