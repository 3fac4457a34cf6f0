//! `/metrics` of both servers after a fixed set of requests, read as a
//! Prometheus user would: `promtool check metrics` (Prometheus's own linter,
//! Debian's prometheus package) finds nothing to say, the contract's
//! families have their exact `# HELP` and `# TYPE` lines, and the request
//! histogram `http_server_requests_seconds` has exactly one series per
//! route template, method and status asked, with Spring Boot's labels,
//! sixteen cumulative buckets and `+Inf` equal to `_count`, which equals
//! the requests sent (and agrees with `http_requests_total`).
//! The exact text for fixed durations is server_metrics::metrics's own test.
//! The promtool check is a test of its own, ignored where promtool may be
//! missing (`cargo test`); `-- --include-ignored` runs it, and fails it
//! when promtool is missing.

use std::io::Write;
use std::process::{Command, Stdio};

use harness::{spawn_app, Server, TestApp};

/// The `le` labels of every series, in order.
const LES: [&str; 17] = [
    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
    "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
];

/// The requests sent, and the series each lands in: (method, path,
/// times, uri, status, outcome, error). `/cpu` and `/users/abc` because the
/// harness itself asks for `/health` while the server starts.
const ASKED: [(&str, &str, u64, &str, u16, &str, &str); 6] = [
    ("GET", "/cpu?n=1000", 3, "/cpu", 200, "SUCCESS", "none"),
    ("HEAD", "/cpu?n=1000", 1, "/cpu", 200, "SUCCESS", "none"),
    (
        "POST",
        "/cpu",
        1,
        "/cpu",
        405,
        "CLIENT_ERROR",
        "MethodNotAllowed",
    ),
    (
        "GET",
        "/no/such/route",
        2,
        "unmatched",
        404,
        "CLIENT_ERROR",
        "NotFound",
    ),
    (
        "GET",
        "/users/abc",
        1,
        "/users/{id}",
        400,
        "CLIENT_ERROR",
        "BadRequest",
    ),
    ("POST", "/echo", 1, "/echo", 200, "SUCCESS", "none"),
];

/// The `# HELP` and `# TYPE` lines every server writes for the contract's
/// families, exactly.
const FAMILIES: [(&str, &str, &str); 10] = [
    ("process_threads", "gauge", "Number of OS threads in the process."),
    ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes."),
    ("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds."),
    ("process_open_fds", "gauge", "Number of open file descriptors."),
    ("process_max_fds", "gauge", "Maximum number of open file descriptors."),
    ("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds."),
    ("http_requests_in_flight", "gauge", "Requests being handled now."),
    ("http_requests_total", "counter", "Requests answered, by route and status."),
    (
        "http_server_requests_seconds",
        "histogram",
        "Requests by route template, method and status: time from the end of the head to the answer.",
    ),
    (
        "http_request_body_timeouts_total",
        "counter",
        "Requests answered 408 because their body did not arrive within --body-read-timeout-ms of the end of their head.",
    ),
];

fn ask_the_fixed_requests(app: &TestApp) {
    for (method, path, times, _, status, _, _) in ASKED {
        for _ in 0..times {
            let body: &[u8] = if path == "/echo" {
                br#"{"FirstName":"a","LastName":"b","Age":1}"#
            } else {
                b""
            };
            let headers = [("Content-Type", "application/json")];
            let r = app.request(method, path, &headers, body);
            assert_eq!(r.status, status, "{method} {path}");
        }
    }
}

/// `promtool check metrics` on `text`: its exit code and what it said.
fn promtool_check(text: &str) -> (Option<i32>, String) {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run promtool ({e}): apt-get install prometheus"));
    child
        .stdin
        .take()
        .expect("promtool's stdin")
        .write_all(text.as_bytes())
        .expect("write to promtool");
    let output = child.wait_with_output().expect("promtool output");
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), said)
}

/// The value of the line that starts with `series ` exactly.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.parse().ok())
}

fn histogram_series_are_the_ones_asked(server: Server, text: &str) {
    let name = server.name();
    let app_label = server.metrics_label();
    for (method, _, times, uri, status, outcome, error) in ASKED {
        let labels = format!(
            "application=\"{app_label}\",error=\"{error}\",method=\"{method}\",\
             outcome=\"{outcome}\",status=\"{status}\",uri=\"{uri}\""
        );
        let count = value(
            text,
            &format!("http_server_requests_seconds_count{{{labels}}}"),
        );
        assert_eq!(count, Some(times as f64), "{name}: {labels}");
        let buckets: Vec<f64> = LES
            .iter()
            .map(|le| {
                let series = format!("http_server_requests_seconds_bucket{{{labels},le=\"{le}\"}}");
                value(text, &series).unwrap_or_else(|| panic!("{name}: no {series}"))
            })
            .collect();
        assert!(
            buckets.windows(2).all(|w| w[0] <= w[1]),
            "{name}: {buckets:?}"
        );
        assert_eq!(buckets.last(), Some(&(times as f64)), "{name}: +Inf");
        let sum = value(
            text,
            &format!("http_server_requests_seconds_sum{{{labels}}}"),
        );
        assert!(
            sum.is_some_and(|s| s >= 0.0),
            "{name}: {labels} sum {sum:?}"
        );
    }
    // Exactly those series (and /health's, from the harness's start-up probes).
    let series: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("http_server_requests_seconds_count{"))
        .filter(|l| !l.contains("uri=\"/health\""))
        .collect();
    assert_eq!(series.len(), ASKED.len(), "{name}: {series:#?}");
    let total = value(
        text,
        &format!("http_requests_total{{server=\"{app_label}\",route=\"/cpu\",status=\"200\"}}"),
    );
    assert_eq!(total, Some(4.0), "{name}: GET and HEAD together");
}

/// `server`'s `/metrics` after [`ASKED`].
fn metrics_after_the_fixed_requests(server: Server) -> String {
    let app = spawn_app(server);
    ask_the_fixed_requests(&app);
    app.get("/metrics").text()
}

fn metrics_read_as_prometheus_reads_them(server: Server) {
    let name = server.name();
    let text = metrics_after_the_fixed_requests(server);
    for (family, kind, help) in FAMILIES {
        let header = format!("# HELP {family} {help}\n# TYPE {family} {kind}\n");
        assert!(text.contains(&header), "{name}: no\n{header}in\n{text}");
    }
    histogram_series_are_the_ones_asked(server, &text);
    let label = server.metrics_label();
    let started = value(
        &text,
        &format!("process_start_time_seconds{{server=\"{label}\"}}"),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        started.is_some_and(|s| s <= now + 1.0 && s > now - 86_400.0),
        "{name}: start time {started:?}, now {now}"
    );
}

harness::test_cases! {
    metrics_read_as_prometheus_reads_them;
    blocking_server_metrics_read_as_prometheus_reads_them(Server::Blocking);
    async_server_metrics_read_as_prometheus_reads_them(Server::Async);
    virtual_threads_metrics_read_as_prometheus_reads_them(Server::Virtual);
    virtual_threads_yielding_metrics_read_as_prometheus_reads_them(Server::VirtualYielding);
    tiny_http_connector_metrics_read_as_prometheus_reads_them(Server::BlockingTinyHttp);
}

#[test]
#[ignore = "needs promtool: apt-get install prometheus"]
fn promtool_finds_nothing_to_say_about_any_servers_metrics() {
    let servers = Server::ALL.into_iter().chain([Server::BlockingTinyHttp]);
    harness::each_server_at_once(servers, |server| {
        let text = metrics_after_the_fixed_requests(server);
        let (code, said) = promtool_check(&text);
        assert_eq!(
            (code, said.as_str()),
            (Some(0), ""),
            "{}: promtool check metrics",
            server.name()
        );
    });
}
