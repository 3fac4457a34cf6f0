//! The four process-level checks, each a function of a [`ProcessProfile`]:
//! - overload: a burst of connections against every route; the server neither
//!   crashes nor stops accepting, every request gets an answer or a counted
//!   connection error, it raised (and logged) its open-file limit, and its
//!   thread count and RSS return near idle afterwards. Prints the figures
//!   (idle / peak / after) for docs/results/;
//! - graceful shutdown: SIGTERM while 100 `/posts/1` are in flight: all 100
//!   answer 200, new connections are refused, exit code 0 within the drain
//!   timeout; a second SIGTERM ends a stuck drain at once (with the exit code
//!   the profile names), and so does the drain timeout (exit code 0 then: the
//!   server did what it was told).
//!
//! The bursts are loadgen's burst model (seed 000's): every connection
//! opened first, then one request on each at the same instant. In
//! `cargo test` a burst is 1,000 connections per route, five times the
//! blocking server's 200 handler threads, so requests queue for a thread
//! and connections for the acceptor; `RELIABILITY_FULL=1` makes it 10,000.

use std::io::Write;
use std::net::TcpStream;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use loadgen::{BurstConnect, LoadModel, Plan, Report};

use super::child_server::ChildServer;
use crate::app::Server;
use crate::http::{self, Conn, Response};

/// Every route of the contract, with inputs cheap enough to send thousands of.
pub const CONTRACT_ROUTES: &[(&str, &str)] = &[
    ("GET", "/health"),
    ("GET", "/cpu?n=10000"),
    ("GET", "/users/42"),
    ("GET", "/users/42/cache"),
    ("GET", "/posts/1"),
    ("POST", "/echo"),
    ("GET", "/metrics"),
];

/// `GET /posts/1` on a connection of its own (300 ms in the server).
const POSTS_1: &[u8] = b"GET /posts/1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

/// How many more threads than at idle the server may have once the bursts are
/// over: slack for threads still on their way out when the sample is taken.
const THREADS_OVER_IDLE: u64 = 5;

/// One server, as the process-level checks see it.
#[derive(Debug, Clone, Copy)]
pub struct ProcessProfile {
    pub server: Server,
    /// The binary cargo built for the server's integration tests:
    /// `env!("CARGO_BIN_EXE_<package>")`.
    pub built_binary: &'static str,
    /// Routes the burst covers after [`CONTRACT_ROUTES`] (a server's own
    /// variants of them).
    pub extra_routes: &'static [(&'static str, &'static str)],
    /// How many threads over idle the server may reach at its peak during the
    /// bursts, for a server whose thread count is fixed by its settings
    /// (`None`: it grows threads under load and only has to shed them after).
    pub peak_threads_over_idle: Option<u64>,
    /// How long after the bursts the thread count may take to come back
    /// within a few of idle (threads a server parks and ends on a timer).
    pub threads_settle: Duration,
    /// The exit code a second SIGTERM ends a stuck drain with; not 0, since
    /// an interrupted drain is not a clean exit.
    pub second_sigterm_exit_code: i32,
}

impl ProcessProfile {
    /// `server` run from `built_binary`, with what is true of most modes: no
    /// routes beyond the contract's; threads fixed by its settings (the
    /// handler pool or carriers and a few helpers: five threads of slack for
    /// the sampler catching a short-lived one) that settle within 20 s of a
    /// burst, when its sockets close; and the servers' second-signal exit
    /// code (their src/cli.rs: 128 + the signal's number).
    pub const fn new(server: Server, built_binary: &'static str) -> ProcessProfile {
        ProcessProfile {
            server,
            built_binary,
            extra_routes: &[],
            peak_threads_over_idle: Some(5),
            threads_settle: Duration::from_secs(20),
            second_sigterm_exit_code: 128 + 15,
        }
    }

    fn name(&self) -> &'static str {
        self.server.name()
    }

    fn start(&self, extra_args: &[&str]) -> ChildServer {
        ChildServer::start(self.server, self.built_binary, extra_args)
    }

    fn routes(&self) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
        CONTRACT_ROUTES.iter().chain(self.extra_routes)
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// `GET path` on its own connection; its status, or why there was none.
fn get_status(server: &ChildServer, path: &str) -> std::io::Result<u16> {
    http::send(server.addr(), "GET", path, &[], &[]).map(|r| r.status)
}

/// The open-file limit the server logged raising at start-up.
fn logged_open_file_limit(profile: &ProcessProfile, server: &ChildServer) -> u64 {
    let name = profile.name();
    let log = server.log_text();
    let line = log
        .lines()
        .find(|l| l.contains("open-file limit raised"))
        .unwrap_or_else(|| panic!("{name}: no open-file limit line in the log:\n{log}"));
    line.split("limit=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{name}: no limit in {line:?}"))
}

/// loadgen's burst on one route of `server`: `connections` connections
/// opened at once, then one `method path` request on each (`Connection:
/// close`), every answer awaited up to a minute. loadgen's client is two
/// tokio threads for thousands of connections: what is measured is the
/// server.
fn burst(server: &ChildServer, (method, path): (&str, &str), connections: usize) -> Report {
    let mut plan = Plan::builder(format!("http://{}{path}", server.addr()))
        .method(method)
        .keep_alive(false)
        .load(LoadModel::Burst {
            connections,
            connect: BurstConnect::First,
        })
        .threads(2)
        .timeout(Duration::from_secs(60));
    if method == "POST" {
        // What /echo expects.
        plan = plan
            .header("Content-Type: application/json")
            .body(r#"{"FirstName":"a","LastName":"b","Age":1}"#);
    }
    let plan = plan
        .build()
        .unwrap_or_else(|e| panic!("a burst plan for {method} {path}: {e}"));
    loadgen::run_blocking(&plan).unwrap_or_else(|e| panic!("the burst on {method} {path}: {e}"))
}

/// A burst of `connections` one-request connections on one route: every
/// request counted, answered 200 or the contract's bounded 503 (nine in ten
/// at least), and the server still serving /health afterwards.
fn one_burst_is_answered(
    profile: &ProcessProfile,
    server: &ChildServer,
    (method, path): (&str, &str),
    connections: usize,
) {
    let name = profile.name();
    let report = burst(server, (method, path), connections);
    let answered: u64 = report.status_codes.values().sum();
    let errors = &report.errors;
    println!(
        "{name}: {connections} x {method} {path}: {:?} answered, {} connect errors, {} timeouts, \
         {} other errors, {:.0} ms",
        report.status_codes, errors.connect, errors.timeout, errors.other, report.elapsed_ms
    );
    assert_eq!(
        (
            report.requests.total,
            answered + errors.connect + errors.timeout + errors.other
        ),
        (connections as u64, connections as u64),
        "{name} {path}: every request is counted"
    );
    // Answers are the route's 200 or, when the pool is the bottleneck,
    // the contract's bounded 503; never a crash or another 5xx.
    for status in report.status_codes.keys() {
        assert!(
            status == "200" || status == "503",
            "{name} {path}: answered {status} in the burst"
        );
    }
    assert!(
        answered * 10 >= connections as u64 * 9,
        "{name} {path}: only {answered} of {connections} answered: {:?} {errors:?}",
        report.status_codes
    );
    // Still alive and accepting between bursts.
    let health = get_status(server, "/health");
    assert!(
        health.as_ref().is_ok_and(|s| *s == 200),
        "{name}: /health after the {path} burst: {health:?}"
    );
}

/// What the process looked like around the bursts.
struct AroundTheBursts {
    idle: process_stats::ProcessSample,
    peak: process_stats::Peaks,
    /// A second after the first round of bursts.
    after: process_stats::ProcessSample,
    /// A second after the same bursts again, on the first four routes.
    again: process_stats::ProcessSample,
}

/// A burst of `connections` on every route, sampled from idle through its
/// peak, then the first four routes' bursts again: with the machine to
/// itself (no other heavy or timing test beside it), since it takes both
/// cores while it lasts.
fn burst_every_route(
    profile: &ProcessProfile,
    server: &ChildServer,
    connections: usize,
) -> AroundTheBursts {
    let _gate = crate::exclusive();
    let idle = process_stats::sample(server.pid()).expect("idle sample");
    let sampler = process_stats::PeakSampler::start(server.pid(), Duration::from_millis(20));
    for (method, path) in profile.routes() {
        one_burst_is_answered(profile, server, (method, path), connections);
    }
    let peak = sampler.stop();
    // Give the OS a moment to close sockets and the allocator to settle.
    std::thread::sleep(Duration::from_secs(1));
    let after = process_stats::sample(server.pid()).expect("after sample");
    for (method, path) in profile.routes().take(4) {
        burst(server, (method, path), connections);
    }
    std::thread::sleep(Duration::from_secs(1));
    let again = process_stats::sample(server.pid()).expect("sample after a second round");
    AroundTheBursts {
        idle,
        peak,
        after,
        again,
    }
}

pub fn a_connection_burst_on_every_route_leaves_the_server_serving_and_back_near_idle(
    profile: &ProcessProfile,
) {
    let name = profile.name();
    let connections = if crate::reliability_full() {
        10_000
    } else {
        1_000
    };
    let server = profile.start(&[]);

    // The server raised its own open-file limit and said so.
    let limit = logged_open_file_limit(profile, &server);
    assert!(limit >= 10_000, "{name}: open-file limit only {limit}");

    std::thread::sleep(Duration::from_millis(500));
    let AroundTheBursts {
        idle,
        peak,
        after,
        again,
    } = burst_every_route(profile, &server, connections);
    // Back near idle, within the profile's settle time.
    let deadline = Instant::now() + profile.threads_settle;
    let settled = loop {
        let now = process_stats::sample(server.pid()).expect("settled sample");
        if now.threads <= idle.threads + THREADS_OVER_IDLE || Instant::now() > deadline {
            break now;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    println!(
        "{name}: threads idle {} / peak {} / after {}; RSS idle {:.1} MiB / peak {:.1} MiB / \
         after {:.1} MiB / after a second round {:.1} MiB; open-file limit {limit}",
        idle.threads,
        peak.peak_threads,
        settled.threads,
        mib(idle.rss_bytes),
        mib(peak.peak_rss_bytes),
        mib(after.rss_bytes),
        mib(again.rss_bytes)
    );
    if let Some(over_idle) = profile.peak_threads_over_idle {
        assert!(
            peak.peak_threads <= idle.threads + over_idle,
            "{name}: thread count grew under load: {} at the peak, {} idle",
            peak.peak_threads,
            idle.threads
        );
    }
    assert!(
        settled.threads <= idle.threads + THREADS_OVER_IDLE,
        "{name}: {} threads after the bursts, {} idle",
        settled.threads,
        idle.threads
    );
    // Freed memory may stay with the allocator (glibc keeps per-thread
    // arenas), so RSS need not fall back to idle; what must hold is that it
    // is bounded: the same bursts again do not make it grow further.
    assert!(
        again.rss_bytes <= after.rss_bytes + after.rss_bytes / 4 + 16 * 1024 * 1024,
        "{name}: RSS grew from {:.1} MiB to {:.1} MiB on a second round of bursts",
        mib(after.rss_bytes),
        mib(again.rss_bytes)
    );
    assert_eq!(get_status(&server, "/users/1").ok(), Some(200));
}

pub fn sigterm_lets_100_requests_in_flight_finish_refuses_new_ones_and_exits_0(
    profile: &ProcessProfile,
) {
    let name = profile.name();
    let mut server = profile.start(&[]);
    let addr = server.addr();
    let ready = Arc::new(Barrier::new(101));
    let clients: Vec<_> = (0..100)
        .map(|_| {
            let ready = ready.clone();
            std::thread::spawn(move || -> std::io::Result<Response> {
                let sent = Conn::open(addr).and_then(|mut conn| {
                    conn.stream.write_all(POSTS_1)?;
                    Ok(conn)
                });
                ready.wait();
                sent?.read_response(false, Duration::from_secs(30))
            })
        })
        .collect();
    ready.wait();
    // The requests are in the server now; each takes 300 ms.
    std::thread::sleep(Duration::from_millis(100));
    let signalled = Instant::now();
    server.sigterm();

    std::thread::sleep(Duration::from_millis(100));
    let late = get_status(&server, "/health");
    assert!(
        late.is_err(),
        "{name}: a new connection after SIGTERM was served: {late:?}"
    );

    for (i, client) in clients.into_iter().enumerate() {
        let answer = client.join().expect("client thread");
        assert!(
            answer.as_ref().is_ok_and(|r| r.status == 200),
            "{name}: in-flight request {i} after SIGTERM: {answer:?}"
        );
    }
    let status = server
        .wait_exit(Duration::from_secs(10 + 5))
        .unwrap_or_else(|| panic!("{name}: still running 15 s after SIGTERM"));
    let took = signalled.elapsed();
    println!("{name}: exited {status} {took:?} after SIGTERM with 100 /posts/1 in flight");
    assert_eq!(
        status.code(),
        Some(0),
        "{name}: exit status\n{}",
        server.log_text()
    );
    assert!(
        took < Duration::from_secs(10),
        "{name}: drain took {took:?}"
    );
}

/// Starts the server with a long header timeout and `drain_timeout_s`, and
/// leaves one request in it that cannot finish: its head promises a body that
/// never comes. The returned stream must live as long as the request should.
fn start_with_a_stuck_request(
    profile: &ProcessProfile,
    drain_timeout_s: &str,
) -> (ChildServer, TcpStream) {
    let server = profile.start(&[
        "--drain-timeout-s",
        drain_timeout_s,
        "--header-read-timeout-ms",
        "60000",
    ]);
    let mut stuck = TcpStream::connect(server.addr()).expect("connect");
    stuck
        .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
        .expect("send a head without its body");
    std::thread::sleep(Duration::from_millis(300));
    (server, stuck)
}

pub fn a_second_sigterm_ends_a_stuck_drain_at_once(profile: &ProcessProfile) {
    let name = profile.name();
    let (mut server, _stuck) = start_with_a_stuck_request(profile, "60");

    server.sigterm();
    assert!(
        server.wait_exit(Duration::from_secs(2)).is_none(),
        "{name}: exited without waiting for the request in flight"
    );
    let second = Instant::now();
    server.sigterm();
    let status = server
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("{name}: still running 5 s after a second SIGTERM"));
    println!(
        "{name}: second SIGTERM: exited {status} after {:?}",
        second.elapsed()
    );
    assert!(second.elapsed() < Duration::from_secs(2));
    assert_ne!(
        status.code(),
        Some(0),
        "{name}: an interrupted drain is not a clean exit"
    );
    assert_eq!(
        status.code(),
        Some(profile.second_sigterm_exit_code),
        "{name}: exit status after a second SIGTERM\n{}",
        server.log_text()
    );
}

pub fn the_drain_timeout_ends_a_stuck_drain(profile: &ProcessProfile) {
    let name = profile.name();
    let (mut server, _stuck) = start_with_a_stuck_request(profile, "2");

    let signalled = Instant::now();
    server.sigterm();
    let status = server
        .wait_exit(Duration::from_secs(2 + 5))
        .unwrap_or_else(|| {
            panic!("{name}: still running 7 s after SIGTERM with a 2 s drain timeout")
        });
    let took = signalled.elapsed();
    println!("{name}: drain timeout 2 s, a request stuck: exited {status} after {took:?}");
    assert!(
        took >= Duration::from_millis(1500),
        "{name}: exited after {took:?}, before the drain timeout"
    );
    assert_eq!(
        status.code(),
        Some(0),
        "{name}: a drain the timeout ended is the server doing what it was told\n{}",
        server.log_text()
    );
}
