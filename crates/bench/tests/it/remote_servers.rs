//! bench against servers it did not start (`--blocking-url`, `--async-url`):
//! the servers run as separate processes, so /proc of bench's children says
//! nothing about them, and the process rows must come from their /metrics.

use crate::common::{run_bench, start_server};

#[test]
fn process_rows_of_servers_bench_did_not_start_come_from_their_metrics() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    // Arrange: both servers as separate processes.
    let blocking = start_server("blocking", &["--skip-setup".to_owned()]);
    let asynchronous = start_server("async", &["--skip-setup".to_owned()]);

    // Act: the baseline group (needs neither Postgres nor Redis), one short round.
    let args = [
        "--groups",
        "baseline",
        "--rounds",
        "1",
        "--duration",
        "500ms",
        "--warm-up",
        "100ms",
        "--connections",
        "4",
        "--blocking-url",
        &blocking.url,
        "--async-url",
        &asynchronous.url,
    ];
    let run = run_bench(&args, &[]);
    let (dir, json) = (&run.dir, &run.json);

    // Assert: every process figure is there, and says where it came from.
    assert_eq!(
        json["settings"]["server_figures_from"],
        "/metrics (servers bench did not start)"
    );
    let columns = json["groups"][0]["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 2);
    // The tiny_http column needs a server bench starts with its flag: skipped, and why.
    assert_eq!(
        json["skipped"][0]["group"],
        "baseline / blocking-health-tiny-http"
    );
    let why = json["skipped"][0]["reason"].as_str().unwrap();
    assert!(why.contains("`--connector tiny-http`"), "{why}");
    for c in columns {
        let r = &c["rounds"][0];
        let p = &r["server_process"];
        for field in [
            "idle_threads",
            "peak_threads",
            "idle_rss_bytes",
            "peak_rss_bytes",
        ] {
            assert!(
                p[field].as_u64().unwrap() > 0,
                "{}: {field} is {}",
                c["id"],
                p[field]
            );
        }
        assert!(p["samples"].as_u64().unwrap() >= 2, "{}: {p}", c["id"]);
        assert!(p["cpu_seconds"].as_f64().unwrap() > 0.0, "{}: {p}", c["id"]);
        assert_eq!(r["machine_cpu_measured"], false);
        // The server's own count, its /metrics polls left out, is the load's.
        let sent = r["load"]["total_requests"].as_u64().unwrap();
        assert_eq!(
            r["server_counted_requests"].as_u64(),
            Some(sent),
            "{}",
            c["id"]
        );
    }
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("server rows from /metrics"), "{report}");
    assert!(report.contains("not measured"), "{report}");
}
