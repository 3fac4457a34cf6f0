//! Bad input through the built binary: each case exits with code 2, prints
//! one line naming what is wrong, and opens no connection to the target.

use std::net::TcpListener;

use crate::common::run_loadgen;

/// A listener that counts connection attempts without answering them.
struct SilentListener {
    listener: TcpListener,
}

impl SilentListener {
    fn bind() -> SilentListener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind listener");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        SilentListener { listener }
    }

    fn url(&self) -> String {
        format!(
            "http://{}/health",
            self.listener.local_addr().expect("listener address")
        )
    }

    /// Connections queued so far (accepting drains them).
    fn accepted(&self) -> usize {
        let mut count = 0;
        while self.listener.accept().is_ok() {
            count += 1;
        }
        count
    }
}

/// Every bad input against `url` (whose port is `port`): (name, arguments,
/// a word the one error line must contain). The first get the URL itself
/// wrong; most give a bad flag before the good URL; one gives no URL.
fn bad_inputs(url: &str, port: &str) -> Vec<(&'static str, Vec<String>, &'static str)> {
    let bad_urls = [
        (
            "malformed URL",
            format!("http//127.0.0.1:{port}/health"),
            "URL",
        ),
        (
            "unsupported scheme",
            format!("https://127.0.0.1:{port}/"),
            "https",
        ),
        (
            "bad placeholder",
            format!("http://127.0.0.1:{port}/{{rand:9-1}}"),
            "placeholder",
        ),
    ];
    let bad_flags: [(&'static str, &[&str], &'static str); 9] = [
        ("unknown flag", &["--frobnicate"], "--frobnicate"),
        ("bad stage syntax", &["--stages", "15s:50,thirty"], "stage"),
        ("bad stage count", &["--stages", "15s:many"], "stage"),
        ("bad threshold", &["--threshold", "p95<soon"], "threshold"),
        (
            "unknown threshold metric",
            &["--threshold", "p42<1s"],
            "metric",
        ),
        ("bad duration", &["-d", "10 parsecs"], "duration"),
        ("bad header", &["-H", "no colon here"], "header"),
        (
            "two load models",
            &["--burst", "10", "--rate", "5"],
            "cannot be used",
        ),
        (
            "missing body file",
            &["--body-file", "/nonexistent/body.json"],
            "body file",
        ),
    ];
    let before_the_url = bad_flags.into_iter().map(|(name, flags, needle)| {
        let args = flags.iter().map(|f| f.to_string());
        (name, args.chain([url.to_owned()]).collect(), needle)
    });
    bad_urls
        .into_iter()
        .map(|(name, bad_url, needle)| (name, vec![bad_url], needle))
        .chain(before_the_url)
        .chain([("missing URL", vec!["-c".into(), "5".into()], "URL")])
        .collect()
}

#[test]
fn bad_input_exits_2_with_one_line_and_sends_nothing() {
    let target = SilentListener::bind();
    let url = target.url();
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/health")
        .to_string();
    for (name, args, needle) in bad_inputs(&url, &port) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run_loadgen(&args);
        assert_eq!(code, Some(2), "{name}: exit code; stderr: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: one line expected, got {stderr:?}");
        assert!(lines[0].starts_with("loadgen: "), "{name}: {stderr:?}");
        assert!(
            lines[0].contains(needle),
            "{name}: '{needle}' not in {stderr:?}"
        );
        assert!(
            stdout.is_empty(),
            "{name}: nothing on stdout, got {stdout:?}"
        );
    }
    assert_eq!(
        target.accepted(),
        0,
        "no connection may be opened for bad input"
    );
}

#[test]
fn a_burst_beyond_the_open_file_limit_fails_before_sending() {
    let target = SilentListener::bind();
    let (code, _, stderr) = run_loadgen(&["--burst", "100000000", &target.url()]);
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(stderr.contains("ulimit -n"), "{stderr:?}");
    assert!(stderr.contains("limit is"), "{stderr:?}");
    assert_eq!(target.accepted(), 0);
}

#[test]
fn a_failed_threshold_is_named_and_exits_1() {
    let server = crate::common::TestServer::start(crate::common::Behaviour::default());
    let (code, stdout, stderr) = run_loadgen(&[
        "-n",
        "50",
        "-c",
        "2",
        "--threshold",
        "rps>1000000000",
        "--threshold",
        "errors<1%",
        &server.url("/health"),
    ]);
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(
        stdout.contains("rps>1000000000") && stdout.contains("FAILED"),
        "{stdout}"
    );
    assert!(
        stdout.contains("errors<1%") && stdout.contains("passed"),
        "{stdout}"
    );
    assert!(
        stderr.contains("thresholds failed: rps>1000000000"),
        "{stderr}"
    );
    assert!(!stderr.contains("errors<1%"), "{stderr}");
}

#[test]
fn out_writes_the_report_to_a_file() {
    let server = crate::common::TestServer::start(crate::common::Behaviour::default());
    let path = std::env::temp_dir().join(format!("loadgen-out-{}.json", std::process::id()));
    let path_text = path.to_string_lossy().into_owned();
    let (code, stdout, stderr) = run_loadgen(&[
        "-n",
        "20",
        "-c",
        "2",
        "--json",
        "--out",
        &path_text,
        &server.url("/"),
    ]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(stdout.is_empty());
    let written = std::fs::read_to_string(&path).expect("report file");
    let _ = std::fs::remove_file(&path);
    let json: serde_json::Value = serde_json::from_str(&written).expect("JSON report");
    assert_eq!(json["requests"]["total"], 20);
}
