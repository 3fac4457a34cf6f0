//! The yielding driver's connect, on its own: a refused connect is an
//! error at once; a handshake that gets no answer ends by its deadline,
//! and while it waits the coroutine is parked and the one carrier runs
//! other coroutines.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::test_support::{on_coroutine, untimed};
use super::wire::Wire;
use crate::executor::Waits;
use crate::virtual_threads::spawn;

/// `Wire::connect` to `port` on this host with `within` to go (a call
/// timeout of 1 s): how long it took, and whether it connected.
fn timed_connect(
    waits: &Waits<'_>,
    port: u16,
    within: Duration,
) -> (Duration, std::io::Result<()>) {
    let started = Instant::now();
    let deadline = started + within;
    let result = Wire::connect(waits, "127.0.0.1", port, deadline, Duration::from_secs(1));
    (started.elapsed(), result.map(drop))
}

#[test]
fn a_refused_connect_is_an_error_at_once() {
    let addr = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("its address")
    }; // closed: nothing listens there now
    let (took, result) =
        on_coroutine(move |waits| timed_connect(waits, addr.port(), Duration::from_secs(5)));
    let error = result.expect_err("nothing listens on the port");
    assert_eq!(
        error.kind(),
        std::io::ErrorKind::ConnectionRefused,
        "{error}"
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

#[test]
fn an_unanswered_handshake_parks_until_its_deadline() {
    // A listener whose accept queue is full: the kernel drops further
    // SYNs, so a new connect stays in SYN_SENT.
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    rustix::net::listen(&listener, 0).expect("backlog 0");
    let addr = listener.local_addr().expect("its address");
    let mut queued = Vec::new();
    loop {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            Ok(stream) => queued.push(stream),
            Err(_) => break, // the queue is full
        }
        assert!(queued.len() < 64, "the accept queue never filled");
    }
    let (took, result, ticks) = on_coroutine(move |waits| {
        // Another coroutine on the same (single) carrier, ticking every 10 ms.
        let (stop, ticks) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicUsize::new(0)),
        );
        let ticker = {
            let (stop, ticks) = (Arc::clone(&stop), Arc::clone(&ticks));
            spawn::go("ticker", move || {
                untimed(|waits| {
                    while !stop.load(Ordering::SeqCst) {
                        waits.sleep(Duration::from_millis(10));
                        ticks.fetch_add(1, Ordering::SeqCst);
                    }
                });
            })
            .expect("the ticker")
        };
        let before = ticks.load(Ordering::SeqCst);
        let (took, result) = timed_connect(waits, addr.port(), Duration::from_millis(500));
        let during = ticks.load(Ordering::SeqCst) - before;
        stop.store(true, Ordering::SeqCst);
        let _ = ticker.join();
        (took, result, during)
    });
    drop(queued);
    let error = result.expect_err("no handshake");
    assert_eq!(error.kind(), std::io::ErrorKind::TimedOut, "{error}");
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(2500),
        "the connect ends by its 500-ms deadline, took {took:?}"
    );
    assert!(
        ticks >= 10,
        "another coroutine ticked {ticks} times in {took:?} while the connect waited \
         (every 10 ms if the carrier is free)"
    );
}
