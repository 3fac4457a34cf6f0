//! `--log-format json` on both servers' real binaries: every line the
//! server writes from start-up to shutdown is one JSON object from
//! tracing's JSON formatter (`timestamp`, `level`, `fields.message`,
//! `target`), a log collector's input. The default, `text`, stays lines for
//! people (not JSON).

use std::time::Duration;

use harness::process::ChildServer;
use harness::{http, Server};

/// Starts `binary`, asks for /health, stops it with SIGTERM: its whole log.
fn log_of_a_short_life(server: Server, binary: &str, args: &[&str]) -> String {
    let mut child = ChildServer::start(server, binary, args);
    let r = http::send(child.addr(), "GET", "/health", &[], b"").expect("/health");
    assert_eq!(r.status, 200);
    child.sigterm();
    let status = child
        .wait_exit(Duration::from_secs(15))
        .expect("exit after SIGTERM");
    assert!(status.success(), "{status}:\n{}", child.log_text());
    child.log_text()
}

fn json_logs_are_one_object_per_line(server: Server, binary: &str, ready: &str) {
    let name = server.name();
    let log = log_of_a_short_life(server, binary, &["--log-format", "json"]);
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 3, "{name}: {log}");
    let mut messages = Vec::new();
    for line in &lines {
        let event: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{name}: not a JSON line ({e}): {line}"));
        for field in ["timestamp", "level", "target"] {
            assert!(event[field].is_string(), "{name}: no {field} in {line}");
        }
        messages.extend(event["fields"]["message"].as_str().map(str::to_owned));
    }
    assert!(
        messages.iter().any(|m| m == ready),
        "{name}: no {ready:?} among {messages:?}"
    );

    let text = log_of_a_short_life(server, binary, &[]);
    let first = text.lines().next().expect("a first log line");
    assert!(
        serde_json::from_str::<serde_json::Value>(first).is_err() && first.contains("INFO"),
        "{name}: the default is not text: {first}"
    );
}

harness::test_cases! {
    json_logs_are_one_object_per_line;
    the_blocking_server_logs_json_lines_when_asked(
        Server::Blocking,
        env!("CARGO_BIN_EXE_test-blocking-server"),
        "blocking server ready",
    );
    the_async_server_logs_json_lines_when_asked(
        Server::Async,
        env!("CARGO_BIN_EXE_test-async-server"),
        "serving",
    );
}
