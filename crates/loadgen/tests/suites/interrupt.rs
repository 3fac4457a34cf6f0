//! Ctrl-C and SIGTERM on the `loadgen` binary: a run stopped by its first
//! signal prints the report of what ran, marked interrupted, and exits with
//! 128 + the signal's number; a second signal exits at once, no report.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};

use crate::common::TestServer;

/// Starts the binary on a 60-s closed loop against `server`, JSON on stdout.
fn start_long_run(server: &TestServer, connections: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args([
            "-c",
            connections,
            "-d",
            "60s",
            "--json",
            &server.url("/health"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start loadgen")
}

fn signal(child: &Child, signal: Signal) {
    let pid = i32::try_from(child.id())
        .ok()
        .and_then(Pid::from_raw)
        .expect("loadgen's process id");
    kill_process(pid, signal).unwrap_or_else(|e| panic!("{signal:?} to loadgen: {e}"));
}

/// Waits until the server has seen `n` requests (at most 20 s).
fn wait_for_requests(server: &TestServer, n: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests() < n {
        assert!(
            Instant::now() < deadline,
            "the server saw only {} requests",
            server.requests()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The child's exit code, stdout and stderr, waiting at most `limit`.
fn finish(mut child: Child, limit: Duration) -> (Option<i32>, String, String) {
    let deadline = Instant::now() + limit;
    while child.try_wait().expect("poll loadgen").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("loadgen still running {limit:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("loadgen output");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn first_signal_prints_what_ran(sent: Signal, code: i32) {
    let name = format!("{sent:?}");
    let server = TestServer::answering_after(Duration::from_millis(2));
    let child = start_long_run(&server, "4");
    wait_for_requests(&server, 100);
    signal(&child, sent);
    // The run was for 60 s: ending within 10 s means the signal ended it.
    let (status, stdout, stderr) = finish(child, Duration::from_secs(10));
    assert_eq!(status, Some(code), "{name}: stderr: {stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{name}: the report is not JSON ({e}): {stdout:?}"));
    assert_eq!(report["interrupted"], true, "{name}");
    let total = report["requests"]["total"].as_u64().unwrap_or(0);
    let seen = server.requests();
    // Every request counted was seen; at most the 4 in flight were lost.
    assert!(
        total >= 100 && total <= seen && seen - total <= 4,
        "{name}: report counted {total}, the server saw {seen}"
    );
    assert_eq!(report["requests"]["ok"].as_u64(), Some(total), "{name}");
    assert!(
        report["elapsed_ms"].as_f64().unwrap_or(f64::MAX) < 30_000.0,
        "{name}: {}",
        report["elapsed_ms"]
    );
    assert!(stderr.contains("stopping the load"), "{name}: {stderr}");
}

#[test]
fn sigint_mid_run_prints_the_report_so_far_and_exits_130() {
    first_signal_prints_what_ran(Signal::INT, 130);
}

#[test]
fn sigterm_mid_run_prints_the_report_so_far_and_exits_143() {
    first_signal_prints_what_ran(Signal::TERM, 143);
}

/// Requests stalled for 5 s keep the first signal's grace running; a
/// second signal inside it ends the process before any report is written.
#[test]
fn a_second_sigint_exits_at_once_without_a_report() {
    let server = TestServer::answering_after(Duration::from_secs(5));
    let child = start_long_run(&server, "2");
    wait_for_requests(&server, 2);
    signal(&child, Signal::INT);
    std::thread::sleep(Duration::from_millis(150));
    signal(&child, Signal::INT);
    let (status, stdout, stderr) = finish(child, Duration::from_secs(10));
    assert_eq!(status, Some(130), "stderr: {stderr}");
    assert_eq!(stdout, "", "a report was written after the second signal");
}
