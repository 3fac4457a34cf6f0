//! Graceful shutdown: requests in flight when the shutdown future resolves
//! are answered (with `Connection: close`), new connections are refused, and
//! `run` returns.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::TestServer;
use contract::workload::{sqrt_sum, MAX_CPU_N};

#[test]
fn in_flight_requests_finish_and_run_returns() {
    let mut server = TestServer::start(&[]);
    let addr = server.addr;
    let requests: Vec<_> = (0..20)
        .map(|_| thread::spawn(move || common::get(addr, "/posts/1")))
        .collect();
    // /posts/1 takes 300 ms; give all twenty time to be sent and accepted.
    thread::sleep(Duration::from_millis(150));
    let stopping = Instant::now();
    server.trigger_shutdown();

    for request in requests {
        let answer = request.join().expect("request thread");
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.body, r#"{"id":1,"content":"Post content is 1"}"#);
        assert_eq!(answer.header("connection"), Some("close"));
    }
    server.join().expect("run returns Ok");
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "drain took {:?}",
        stopping.elapsed()
    );

    // The listener is closed: nobody is left to answer.
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "still accepting after shutdown"
    );
}

/// How long `sqrt_sum(MAX_CPU_N)` takes in this build (the fastest of two probes,
/// scaled up from a smaller n).
fn time_of_largest_cpu_request() -> Duration {
    let probe = 3_000_000u64;
    let fastest = (0..2)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(sqrt_sum(std::hint::black_box(probe)));
            started.elapsed()
        })
        .min()
        .unwrap_or_default();
    fastest.mul_f64(MAX_CPU_N as f64 / probe as f64)
}

#[test]
fn the_drain_timeout_bounds_requests_that_would_take_longer() {
    // One blocking thread, so queued /cpu/spawn-blocking requests run one
    // after the other: enough of them to need at least eight seconds.
    let each = time_of_largest_cpu_request().max(Duration::from_millis(10));
    let count = ((8.0 / each.as_secs_f64()).ceil() as usize).clamp(1, 200);
    let mut server = TestServer::start(&["--drain-timeout-s", "1", "--blocking-threads", "1"]);
    let addr = server.addr;
    let requests: Vec<_> = (0..count)
        .map(|_| {
            thread::spawn(move || {
                common::exchange(
                    addr,
                    format!("GET /cpu/spawn-blocking?n={MAX_CPU_N} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                )
                .map(|answer| answer.status)
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(300));
    let stopping = Instant::now();
    server.trigger_shutdown();
    server.join().expect("run returns Ok");
    let took = stopping.elapsed();
    // One second of drain, plus a wide margin; far less than the queued work.
    assert!(took < Duration::from_secs(4), "run returned after {took:?}");
    let answered = requests
        .into_iter()
        .map(|r| r.join())
        .filter(|r| matches!(r, Ok(Ok(200))))
        .count();
    assert!(
        answered < count,
        "all {count} requests finished: the drain was not cut short"
    );
}
