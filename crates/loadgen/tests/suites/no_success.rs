//! A run in which no request succeeds must say so: against a port where
//! nothing listens, the binary prints the report, one line on stderr naming
//! the cause, exits 3, and backs off between connects instead of retrying
//! tens of thousands of times a second.

use std::time::{Duration, Instant};

use crate::common::run_loadgen;

/// Exit status of a run in which no request succeeded (README, exit codes).
const NO_SUCCESS: i32 = 3;

#[test]
fn a_closed_port_exits_3_with_one_line_and_backs_off() {
    // A port that was just free: nothing listens there any more.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port");
    let url = format!("http://{closed}/health");

    let started = Instant::now();
    let (code, stdout, stderr) = run_loadgen(&["-d", "2s", "-c", "50", "--json", &url]);
    let wall = started.elapsed();

    assert_eq!(code, Some(NO_SUCCESS), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected, got {stderr:?}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout).expect("the JSON report is printed all the same");
    let attempts = json["errors"]["connect"].as_u64().expect("errors.connect");
    let count = lines[0]
        .strip_prefix("loadgen: no request succeeded: all ")
        .and_then(|rest| rest.strip_suffix(&format!(" connection attempts to {closed} failed")))
        .unwrap_or_else(|| panic!("cause not named: {:?}", lines[0]));
    assert_eq!(
        count.replace(',', "").parse(),
        Ok(attempts),
        "{:?}",
        lines[0]
    );
    assert_eq!(json["requests"]["ok"], 0);
    assert_eq!(json["successful_throughput_rps"], 0.0);
    let elapsed_s = json["elapsed_ms"].as_f64().expect("elapsed_ms") / 1000.0;
    let per_second = attempts as f64 / elapsed_s;
    eprintln!("{attempts} connection attempts in {elapsed_s:.2} s = {per_second:.0} a second");
    assert!(
        per_second < 1000.0,
        "{attempts} connection attempts in {elapsed_s:.2} s = {per_second:.0} a second"
    );
    assert!(
        attempts >= 50,
        "every connection tried at least once: {attempts}"
    );
    assert!(wall < Duration::from_secs(10), "took {wall:?}");
}

#[test]
fn all_error_statuses_exit_3_naming_the_status() {
    let server = crate::common::TestServer::start(crate::common::Behaviour::default());
    let (code, stdout, stderr) = run_loadgen(&["-n", "20", "-c", "2", &server.url("/fail")]);
    assert_eq!(code, Some(NO_SUCCESS), "stderr: {stderr}");
    assert_eq!(
        stderr,
        "loadgen: no request succeeded: every response had status 503\n"
    );
    assert!(
        stdout.contains("0.0 req/s successful"),
        "the text report is printed all the same: {stdout}"
    );
}
