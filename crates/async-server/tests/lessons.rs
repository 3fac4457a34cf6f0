//! The async server's lesson tests, on a server with ONE runtime worker:
//! work that blocks the worker holds up every other request, and work moved
//! off the worker (timer, spawn_blocking, rayon) does not.
//!
//! Margins are wide: a blocked worker delays `/health` by hundreds of
//! milliseconds, a free one answers in a few. The CPU work is sized by timing
//! `sqrt_sum` here, in the same build as the server, rather than hard-coded.
//!
//! Why ONE worker: with two, a blocked worker usually leaves the other free,
//! but not always. In this harness, with `--worker-threads 2`, `/health`
//! still waited for an inline `/cpu` in 2 runs of 2 (2.2 s and 3.5 s), while
//! against the binary with curl it did not (0 of 7). Our reading: tokio's I/O
//! driver is polled by a parked worker; if the worker that last held it is
//! the one now blocked and the other sleeps without being woken, readiness
//! events wait. That is a lesson of its own (blocking a worker can stall more
//! than that worker), but not one to assert on with timing margins.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use contract::workload::MAX_CPU_N;
use harness::{http, spawn_app_with, AppOptions, Server, TestApp};

fn one_worker_server() -> TestApp {
    spawn_app_with(
        Server::Async,
        AppOptions {
            extra_args: ["--worker-threads", "1", "--rayon-threads", "1"]
                .map(String::from)
                .to_vec(),
            ..AppOptions::default()
        },
    )
}

/// GET `path` on a new connection; its status and how long it took.
fn timed_get(addr: SocketAddr, path: &str) -> (u16, Duration) {
    let started = Instant::now();
    let answer = http::send(addr, "GET", path, &[], b"")
        .unwrap_or_else(|e| panic!("GET {path}: no answer: {e}"));
    (answer.status, started.elapsed())
}

/// Sends `copies` of `slow` at once, each on its own connection; the
/// statuses come back from the returned thread.
fn send_slow(addr: SocketAddr, slow: &str, copies: usize) -> thread::JoinHandle<Vec<u16>> {
    let slow = slow.to_owned();
    thread::spawn(move || {
        let senders: Vec<_> = (0..copies)
            .map(|_| {
                let slow = slow.clone();
                thread::spawn(move || timed_get(addr, &slow).0)
            })
            .collect();
        senders
            .into_iter()
            .map(|s| s.join().expect("slow request thread"))
            .collect()
    })
}

/// Sends `copies` of `slow`, waits `after`, then times `/health`.
fn health_while(
    addr: SocketAddr,
    slow: &str,
    copies: usize,
    after: Duration,
) -> (Duration, Vec<u16>) {
    let slow_requests = send_slow(addr, slow, copies);
    thread::sleep(after);
    let (health, took) = timed_get(addr, "/health");
    assert_eq!(health, 200);
    (took, slow_requests.join().expect("slow requests"))
}

/// Health latencies probed at `times` after `copies` of `slow` were sent;
/// the median. Each probe runs on its own thread at its own time, so a
/// blocked worker delays every probe sent while it is blocked (probes sent
/// one after another would see only the first one wait, and the median
/// would hide it).
fn median_health_while(
    addr: SocketAddr,
    slow: &str,
    copies: usize,
    times: &[u64],
) -> (Duration, Vec<u16>) {
    let started = Instant::now();
    let slow_requests = send_slow(addr, slow, copies);
    let probes: Vec<_> = times
        .iter()
        .map(|&at| {
            thread::spawn(move || {
                let at = Duration::from_millis(at);
                if let Some(rest) = at.checked_sub(started.elapsed()) {
                    thread::sleep(rest);
                }
                timed_get(addr, "/health")
            })
        })
        .collect();
    let mut took: Vec<Duration> = probes
        .into_iter()
        .map(|p| {
            let (health, t) = p.join().expect("health probe thread");
            assert_eq!(health, 200);
            t
        })
        .collect();
    took.sort();
    (
        took[took.len() / 2],
        slow_requests.join().expect("slow requests"),
    )
}

/// An `n` for `/cpu?n=`, how many such requests to send at once so that
/// together they take about a second of CPU here, and that time. In a debug
/// build one request of less than `MAX_CPU_N` is enough; in a release build
/// even `MAX_CPU_N` is quick, so several are sent (on one worker they run
/// one after another). Calibrated by `harness::cpu_n_taking`: other tests
/// (and other processes) share the cores, and a slow probe would make the
/// work too small.
fn about_a_second_of_cpu() -> (u64, usize, Duration) {
    let (n, one) = harness::cpu_n_taking(Duration::from_secs(1));
    let per_request = one.as_secs_f64();
    let copies = if n < MAX_CPU_N {
        1
    } else {
        ((1.0 / per_request).ceil() as usize).clamp(1, 64)
    };
    let expected = Duration::from_secs_f64(per_request * copies as f64);
    (n, copies, expected)
}

#[test]
fn a_sleeping_worker_holds_up_health_but_a_timer_does_not() {
    let server = one_worker_server();

    // std::thread::sleep on the only worker: /health waits for it.
    let (took, statuses) = health_while(
        server.addr,
        "/posts/1/blocking",
        1,
        Duration::from_millis(50),
    );
    eprintln!("/health behind /posts/1/blocking: {took:?}");
    assert_eq!(statuses, [200]);
    assert!(
        took > Duration::from_millis(200),
        "/health took {took:?} behind a blocked worker"
    );

    // tokio::time::sleep: the worker is free, /health answers at once.
    let (took, statuses) = median_health_while(server.addr, "/posts/1", 1, &[50, 100, 150]);
    eprintln!("/health beside /posts/1 (median of 3): {took:?}");
    assert_eq!(statuses, [200]);
    assert!(
        took < Duration::from_millis(150),
        "/health took {took:?} beside a timer"
    );
}

#[test]
fn cpu_inline_holds_up_health_and_offloaded_cpu_does_not() {
    let (n, copies, expected) = about_a_second_of_cpu();
    let server = one_worker_server();
    let all_ok = vec![200; copies];

    let cpu = format!("/cpu?n={n}");
    let (took, statuses) = health_while(server.addr, &cpu, copies, Duration::from_millis(50));
    eprintln!("/health behind {copies} x {cpu} (expected ~{expected:?}): {took:?}");
    assert_eq!(statuses, all_ok);
    assert!(
        took > Duration::from_millis(300),
        "/health took {took:?} behind {copies} x {cpu} inline (expected ~{expected:?})"
    );

    for variant in ["/cpu/spawn-blocking", "/cpu/rayon"] {
        let path = format!("{variant}?n={n}");
        let (took, statuses) = median_health_while(server.addr, &path, copies, &[50, 250, 450]);
        eprintln!("/health beside {copies} x {path} (median of 3): {took:?}");
        assert_eq!(statuses, all_ok, "{variant}");
        assert!(
            took < Duration::from_millis(150),
            "/health took {took:?} beside {variant} (expected ~{expected:?} of work)"
        );
    }
}
