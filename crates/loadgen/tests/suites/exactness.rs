//! `-n 1000 -c 10` sends exactly 1000 requests: the server counts them and
//! the report agrees, through the library and through the binary.

use std::process::Command;

use crate::common::{closed_loop, run_to_end, Behaviour, TestServer};
use loadgen::StopAt;

#[test]
fn n_1000_on_10_connections_sends_exactly_1000_requests() {
    let server = TestServer::start(Behaviour::default());
    let plan = closed_loop(
        server.url("/items/{rand:1-100}"),
        10,
        StopAt::Requests(1000),
    )
    .threads(2);

    let report = run_to_end(plan);

    assert_eq!(server.requests(), 1000, "requests the server saw");
    assert_eq!(report.requests.total, 1000);
    assert_eq!(report.requests.ok, 1000);
    assert_eq!(report.successful_throughput_rps, report.throughput_rps);
    assert_eq!(report.no_success_cause(), None);
    assert_eq!(report.status_codes.get("200"), Some(&1000));
    assert_eq!(report.latency_ms.count, 1000);
    // Every answer is the test server's fixed 200: its bytes, 1000 times.
    let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";
    assert_eq!(report.transfer.received_bytes, 1000 * answer.len() as u64);
    // Each request at least its request line, at most a few headers more.
    let shortest = "GET /items/1 HTTP/1.1\r\n\r\n".len() as u64;
    let sent = report.transfer.sent_bytes;
    assert!(
        (1000 * shortest..1000 * 256).contains(&sent),
        "{:?}",
        report.transfer
    );
    assert!(report.transfer.received_bytes_per_second > 0.0);
    assert!(
        server.connections() <= 10,
        "keep-alive reuses connections: {}",
        server.connections()
    );
    let timeline_total: u64 = report.timeline.iter().map(|r| r.requests).sum();
    assert_eq!(
        timeline_total, 1000,
        "the timeline accounts for every request"
    );
}

#[test]
fn the_binary_reports_the_same_count_in_json() {
    let server = TestServer::start(Behaviour::default());
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args([
            "-n",
            "1000",
            "-c",
            "10",
            "-t",
            "2",
            "--json",
            &server.url("/health"),
        ])
        .output()
        .expect("run loadgen");

    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "no progress output on a pipe");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    assert_eq!(json["requests"]["total"], 1000);
    assert_eq!(json["schema_version"], 2);
    assert!(json["latency_ms"]["p99"].as_f64().is_some());
    let cpu = &json["client_cpu"];
    assert!(cpu["cpu_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{cpu}");
    assert!(
        cpu.get("user_ms").is_none(),
        "schema 2 has no user/system split: {cpu}"
    );
    assert_eq!(server.requests(), 1000);
}

#[test]
fn keep_alive_off_opens_a_connection_per_request() {
    let server = TestServer::start(Behaviour::default());
    let plan = closed_loop(server.url("/health"), 4, StopAt::Requests(200))
        .keep_alive(false)
        .threads(2);

    let report = run_to_end(plan);

    assert_eq!(report.requests.ok, 200);
    assert_eq!(server.requests(), 200);
    assert_eq!(server.connections(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_works_inside_the_callers_runtime() {
    let server = TestServer::start(Behaviour::default());
    let plan = closed_loop(server.url("/health"), 3, StopAt::Requests(300))
        .build()
        .expect("valid plan");

    let report = loadgen::run(&plan).await.expect("run");

    assert_eq!(report.requests.total, 300);
    assert_eq!(server.requests(), 300);
}
