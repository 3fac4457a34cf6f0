//! The figures docs/results/tiny-http-2026-12-01/ quotes for the card's
//! server (`blocking-server --connector tiny-http`), next to nio's: threads
//! per idle connection, `/health` under 300 unfinished heads, cold starts
//! with the cold-start probe, and a drain with requests in flight. A
//! measurement, not a gate (the cold-start figure varies from run to run),
//! so it is no test: it prints its figures.
//!
//! `cargo run -p harness --example tiny_http_card`

#![allow(
    clippy::expect_used,
    reason = "a measurement that cannot take its figures has nothing to print: it stops"
)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use harness::{spawn_app_with, AppOptions, Server, TestApp};

fn main() {
    measure();
}

/// The `process_threads` gauge of `app`'s `/metrics` (this
/// process's: it counts its own threads).
fn process_threads(app: &TestApp) -> usize {
    let text = app.get("/metrics").text();
    text.lines()
        .find(|l| l.starts_with("process_threads{"))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no process_threads in\n{text}"))
}

fn measure() {
    use net_tools::cold_start::probe;
    const IDLE: usize = 100;
    for server in [Server::BlockingTinyHttp, Server::Blocking] {
        let name = server.name();
        let app = app_200(server, "10000");
        // tiny_http's recv() threads start serving while the rest are still
        // being spawned: let start-up settle before counting.
        std::thread::sleep(Duration::from_millis(1000));
        let before = process_threads(&app);
        let idle: Vec<TcpStream> = (0..IDLE)
            .map(|_| {
                let mut s = TcpStream::connect(app.addr).expect("connect");
                s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    .expect("write");
                let mut buf = [0u8; 512];
                let _ = s.read(&mut buf);
                s
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let with_idle = process_threads(&app);
        drop(idle);
        eprintln!("{name}: process threads {before} -> {with_idle} with {IDLE} idle keep-alive connections");

        let slow: Vec<TcpStream> = (0..300)
            .map(|_| {
                let mut s = TcpStream::connect(app.addr).expect("connect");
                s.write_all(b"GET /health HTTP/1.1\r\n").expect("write");
                s
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        let status = app.get("/health").status;
        eprintln!(
            "{name}: /health with 300 unfinished heads: {status} in {:?}; threads {}",
            t.elapsed(),
            process_threads(&app)
        );
        drop(slow);
        drop(app);

        let mut late_starts = Vec::new();
        for _ in 0..4 {
            let app = app_200(server, "10000");
            let report = probe(app.addr, 64, Duration::from_millis(1500)).expect("probe");
            late_starts.push(report.late(Duration::from_secs(1)));
        }
        eprintln!("{name}: late connections (of 64) on 4 cold starts: {late_starts:?}");

        let mut app = app_200(server, "10000");
        let addr = app.addr;
        let in_flight: Vec<_> = (0..50)
            .map(|_| {
                std::thread::spawn(move || {
                    harness::http::send(addr, "GET", "/posts/1", &[], b"").map(|r| r.status)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        let drained = app.shutdown(Duration::from_secs(15));
        let took = t.elapsed();
        let answers: Vec<_> = in_flight
            .into_iter()
            .map(|h| h.join().ok().and_then(|r| r.ok()))
            .collect();
        let ok = answers.iter().filter(|s| **s == Some(200)).count();
        let refused = TcpStream::connect(addr).is_err();
        eprintln!("{name}: shutdown with 50 /posts/1 in flight: {drained:?} in {took:?}, {ok} of 50 answered 200, new connection refused after: {refused}");
    }
}

fn app_200(server: Server, header_timeout_ms: &str) -> TestApp {
    spawn_app_with(
        server,
        AppOptions::with_args([
            "--handler-threads",
            "200",
            "--header-read-timeout-ms",
            header_timeout_ms,
        ]),
    )
}
