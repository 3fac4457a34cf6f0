//! Measures why the blocking server does not use tiny_http (issue 2).
//!
//! Runs the cold-start check of tests/cold_start.rs (`tests::cold_start_probe`) against a bare tiny_http
//! 0.12 server in the classic pattern — N threads calling `server.recv()` and
//! answering a small body — over several cold starts, and prints how many cold
//! starts left some connection without a first answer within 1 s.
//!
//! tiny_http reads each connection on a thread of its internal pool
//! (`TaskPool`), which spawns a new thread only when none is idle; a burst of
//! connections sees the same few idle threads, so only a few connections are
//! served and the rest wait until one closes. That pool cannot be changed from
//! outside, which is why crates/blocking-server/src/connector exists.
//!
//! Usage: `cargo run -p blocking-server --example tiny_http_cold_start -- [cold starts] [recv threads]`
//! (defaults: 8 cold starts, 200 recv threads, 64 connections, 1.5 s each).

use std::sync::Arc;
use std::time::Duration;

const CONNECTIONS: usize = 64;
const RUN_FOR: Duration = Duration::from_millis(1500);
const FIRST_ANSWER_WITHIN: Duration = Duration::from_secs(1);

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let cold_starts: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(8);
    let recv_threads: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);

    let mut failed_starts = 0;
    for start in 1..=cold_starts {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0")?);
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or("tiny_http did not listen on an IP address")?;
        let threads: Vec<_> = (0..recv_threads)
            .map(|_| {
                let server = Arc::clone(&server);
                std::thread::spawn(move || {
                    while let Ok(request) = server.recv() {
                        let response = tiny_http::Response::from_string(r#"{"health":"ok"}"#);
                        let _ = request.respond(response);
                    }
                })
            })
            .collect();

        let report = tests::cold_start_probe::probe(addr, CONNECTIONS, RUN_FOR)?;
        let late = report.late(FIRST_ANSWER_WITHIN);
        let never = report.first_answer.iter().filter(|f| f.is_none()).count();
        if late > 0 {
            failed_starts += 1;
        }
        println!(
            "cold start {start}: {late} of {CONNECTIONS} connections without an answer within {FIRST_ANSWER_WITHIN:?} ({never} never answered in {RUN_FOR:?}); {} answers in all",
            report.total_answers()
        );

        for _ in 0..recv_threads {
            server.unblock();
        }
        for thread in threads {
            let _ = thread.join();
        }
    }
    println!(
        "tiny_http 0.12, {recv_threads} recv threads: {failed_starts} of {cold_starts} cold starts left some connection without a first answer within {FIRST_ANSWER_WITHIN:?}"
    );
    Ok(())
}
