//! Graceful shutdown: requests in flight when the shutdown future resolves
//! are answered (with `Connection: close`), new connections are refused, and
//! `run` returns.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::TestServer;

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

#[test]
fn the_drain_timeout_bounds_a_request_that_would_take_longer() {
    let mut server = TestServer::start(&["--drain-timeout-s", "1"]);
    let addr = server.addr;
    // Large enough to outlast a one-second drain in any build.
    let slow = thread::spawn(move || {
        common::exchange(
            addr,
            b"GET /cpu/spawn-blocking?n=100000000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        )
    });
    thread::sleep(Duration::from_millis(200));
    let stopping = Instant::now();
    server.trigger_shutdown();
    server.join().expect("run returns Ok");
    let took = stopping.elapsed();
    assert!(took < Duration::from_secs(4), "run returned after {took:?}");
    let _ = slow.join();
}
