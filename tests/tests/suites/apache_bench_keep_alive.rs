//! ApacheBench's keep-alive mode (`ab -k`: HTTP/1.0 requests with
//! `Connection: Keep-Alive`) against every connector: each answer must say
//! `Connection: keep-alive`, or an HTTP/1.0 client waits for the close that
//! HTTP/1.0 otherwise means, until its own timeout. tiny_http keeps such a
//! connection open but never writes the header itself; our wrapper adds it
//! (crates/blocking-server/src/tiny_http_connector.rs).
//!
//! Real ApacheBench (Debian's apache2-utils, which .ci/run installs), 2,000
//! keep-alive requests on 4 connections, each run bounded: `-s 5` makes ab
//! give up after 5 s without an answer, and the test kills it after 60 s.
//! Ignored where ab may be missing (`cargo test`); run with
//! `-- --include-ignored`, where a missing ab fails the test.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::{spawn_app, Server};

const REQUESTS: u64 = 2_000;

/// The number on the line of ab's report that starts with `label`.
fn figure(report: &str, label: &str) -> Option<u64> {
    report
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// Runs `ab -k` against `server`'s `/health`: its exit code and output.
fn apache_bench_keep_alive(server: Server) -> (Option<i32>, String) {
    let app = spawn_app(server);
    let url = format!("http://{}/health", app.addr);
    let mut child = Command::new("ab")
        .args([
            "-k",
            "-n",
            &REQUESTS.to_string(),
            "-c",
            "4",
            "-s",
            "5",
            &url,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run ApacheBench's ab ({e}): apt-get install apache2-utils")
        });
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("poll ab").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("ab output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), text)
}

fn every_keep_alive_request_is_answered(server: Server) {
    let name = server.name();
    let (code, report) = apache_bench_keep_alive(server);
    assert_eq!(code, Some(0), "{name}: ab failed:\n{report}");
    assert_eq!(
        figure(&report, "Complete requests:"),
        Some(REQUESTS),
        "{name}:\n{report}"
    );
    assert_eq!(
        figure(&report, "Failed requests:"),
        Some(0),
        "{name}:\n{report}"
    );
    assert_eq!(
        figure(&report, "Keep-Alive requests:"),
        Some(REQUESTS),
        "{name}:\n{report}"
    );
}

harness::test_cases! {
    every_keep_alive_request_is_answered, gate: exclusive;
    #[ignore = "needs ApacheBench: apt-get install apache2-utils"]
    ab_keep_alive_against_the_nio_connector(Server::Blocking);
    #[ignore = "needs ApacheBench: apt-get install apache2-utils"]
    ab_keep_alive_against_tiny_http(Server::BlockingTinyHttp);
    #[ignore = "needs ApacheBench: apt-get install apache2-utils"]
    ab_keep_alive_against_the_async_server(Server::Async);
    #[ignore = "needs ApacheBench: apt-get install apache2-utils"]
    ab_keep_alive_against_virtual_threads(Server::Virtual);
}
