//! Both servers watched by a real Prometheus, as a Spring team watches
//! theirs: Prometheus (Debian's package) scrapes both every second; a
//! bounded loadgen load runs against both — 3 s of `/posts/1` on 20
//! connections each, a few paths no route has (404s), the event-loop
//! blocking variants, `/cpu`, and a Redis outage through the fault proxy
//! (503s, requests waiting for the pool) — then the test reads the result
//! through Prometheus's HTTP API:
//!
//! - `sum(http_server_requests_seconds_count{uri!="/metrics"})` after the
//!   load minus before it is within 1% of the requests loadgen had answered;
//! - the histogram's p99 of `/posts/{id}` (`histogram_quantile`) lies between
//!   loadgen's p50 and twice its p99;
//! - every query of the Grafana dashboard (observe/grafana/dashboards/
//!   servers.json), Grafana's variables substituted as Grafana would
//!   (`$__rate_interval` by 5 s, `$server` by every server), parses and
//!   returns data.
//!
//! Ignored where Prometheus may be missing (`cargo test`); run with
//! `-- --include-ignored`, where a missing Prometheus fails the test.

use std::net::SocketAddr;
use std::time::Duration;

use harness::prometheus::Prometheus;
use harness::{spawn_app_with, AppOptions, Server, TestApp};
use loadgen::{LoadModel, Plan, Report, StopAt};
use net_tools::proxy::{FaultProxy, Mode};

const SCRAPE_EVERY: Duration = Duration::from_secs(1);
/// Long enough for two scrapes after the servers went quiet.
const SETTLE: Duration = Duration::from_millis(2500);

fn app(server: Server) -> TestApp {
    let mut extra_args = Vec::new();
    if server == Server::Async {
        // The pool the async server reports waiters for (the shared
        // connection has none to report).
        extra_args.extend(["--redis-client".to_owned(), "pool".to_owned()]);
    }
    spawn_app_with(
        server,
        AppOptions {
            through_proxies: true,
            extra_args,
            ..AppOptions::default()
        },
    )
}

/// Runs a closed loop on the server at `addr`: `connections`, stopping at `stop`.
fn load(addr: SocketAddr, path: &str, connections: usize, stop: StopAt) -> Report {
    let plan = Plan::builder(format!("http://{addr}{path}"))
        .load(LoadModel::Closed { connections, stop })
        .threads(1)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a valid plan");
    loadgen::run_blocking(&plan).expect("loadgen run")
}

/// Requests that got an answer, whatever its status.
fn answered(report: &Report) -> u64 {
    report.status_codes.values().sum()
}

/// The load against one server: its /posts report, and how many requests
/// were answered in all.
fn load_one(addr: SocketAddr) -> (Report, u64) {
    let posts = load(
        addr,
        "/posts/1",
        20,
        StopAt::Duration(Duration::from_secs(3)),
    );
    let mut total = answered(&posts);
    for (path, connections, n) in [
        ("/no/such/route", 2, 20),
        ("/users/1/blocking", 2, 10),
        ("/cpu?n=2000000", 1, 4),
        ("/users/1", 2, 20),
    ] {
        total += answered(&load(addr, path, connections, StopAt::Requests(n)));
    }
    (posts, total)
}

/// Redis refuses: `/users/{id}/cache` answers 503 once the pool gives up
/// (the harness's 1-s acquire timeout), five requests at once for a pool
/// of three.
fn redis_outage(addr: SocketAddr, proxy: &FaultProxy) -> u64 {
    proxy.set_mode(Mode::Refuse);
    let report = load(addr, "/users/1/cache", 5, StopAt::Requests(10));
    proxy.set_mode(Mode::Pass);
    assert!(
        report.status_codes.contains_key("503"),
        "{:?}",
        report.status_codes
    );
    answered(&report)
}

/// Every query of every panel of the dashboard, with Grafana's variables
/// substituted: (panel title, query).
fn dashboard_queries() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../observe/grafana/dashboards/servers.json"
    );
    let text = std::fs::read_to_string(path).expect("read the dashboard");
    let dashboard: serde_json::Value = serde_json::from_str(&text).expect("dashboard JSON");
    let panels = dashboard["panels"].as_array().expect("panels");
    assert!(!panels.is_empty(), "a dashboard without panels");
    panels
        .iter()
        .flat_map(|panel| {
            let title = panel["title"].as_str().unwrap_or("?").to_owned();
            let targets = panel["targets"].as_array().cloned().unwrap_or_default();
            assert!(!targets.is_empty(), "panel {title} has no query");
            targets.into_iter().map(move |t| {
                let expr = t["expr"].as_str().expect("a query").to_owned();
                (title.clone(), expr)
            })
        })
        .map(|(title, expr)| {
            // Grafana's `$__rate_interval` is at least four scrape intervals;
            // a multi-value `$server` with every value is a regex of them.
            let expr = expr
                .replace("$__rate_interval", "5s")
                .replace("$server", "(blocking|async)");
            (title, expr)
        })
        .collect()
}

#[test]
#[ignore = "needs Prometheus: apt-get install prometheus"]
fn prometheus_counts_what_loadgen_sent_and_every_dashboard_panel_has_data() {
    let _gate = harness::exclusive();
    let (blocking, asynchronous) = (app(Server::Blocking), app(Server::Async));
    let prometheus =
        Prometheus::start(&[blocking.addr, asynchronous.addr], SCRAPE_EVERY).expect("prometheus");
    prometheus
        .wait_for_targets(2, Duration::from_secs(30))
        .expect("both servers scraped");
    std::thread::sleep(SETTLE);
    let count = "sum(http_server_requests_seconds_count{uri!=\"/metrics\"})";
    let before = prometheus.scalar(count).expect("query").expect("a count");

    let (posts, mut sent) = std::thread::scope(|scope| {
        let runs: Vec<_> = [&blocking, &asynchronous]
            .map(|app| {
                let addr = app.addr;
                scope.spawn(move || load_one(addr))
            })
            .into_iter()
            .collect();
        let outages: Vec<_> = [&blocking, &asynchronous]
            .map(|app| {
                let (addr, proxy) = (app.addr, app.redis_proxy.as_ref().expect("a Redis proxy"));
                scope.spawn(move || redis_outage(addr, proxy))
            })
            .into_iter()
            .collect();
        let runs: Vec<(Report, u64)> = runs.into_iter().map(|r| r.join().unwrap()).collect();
        let outage: u64 = outages.into_iter().map(|r| r.join().unwrap()).sum();
        let sent = runs.iter().map(|(_, n)| n).sum::<u64>() + outage;
        (runs.into_iter().map(|(r, _)| r).collect::<Vec<_>>(), sent)
    });
    std::thread::sleep(SETTLE);
    let after = prometheus.scalar(count).expect("query").expect("a count");
    sent = sent.max(1);
    let counted = after - before;
    assert!(
        (counted - sent as f64).abs() <= sent as f64 * 0.01,
        "Prometheus counted {counted} requests, loadgen had {sent} answered"
    );

    let p99 = prometheus
        .scalar("histogram_quantile(0.99, sum by (le) (http_server_requests_seconds_bucket{uri=\"/posts/{id}\"}))")
        .expect("query")
        .expect("a p99")
        * 1000.0;
    let p50_floor = posts
        .iter()
        .map(|r| r.latency_ms.p50)
        .fold(f64::MAX, f64::min);
    let p99_ceiling = posts.iter().map(|r| r.latency_ms.p99).fold(0.0, f64::max) * 2.0;
    assert!(
        (p50_floor..=p99_ceiling).contains(&p99),
        "the histogram's /posts p99 {p99:.1} ms, loadgen's p50 {p50_floor:.1} ms, 2 x p99 {p99_ceiling:.1} ms"
    );

    let failures: Vec<String> = dashboard_queries()
        .into_iter()
        .filter_map(|(title, expr)| match prometheus.query(&expr) {
            Ok(result) if !result.is_empty() => None,
            Ok(_) => Some(format!("{title}: no data for {expr}")),
            Err(e) => Some(format!("{title}: {e:#}")),
        })
        .collect();
    assert!(
        failures.is_empty(),
        "dashboard panels:\n{}",
        failures.join("\n")
    );
    println!(
        "Prometheus counted {counted} of {sent} answered requests; /posts p99 {p99:.1} ms \
         (loadgen p50 from {p50_floor:.1} ms, 2 x p99 up to {p99_ceiling:.1} ms)"
    );
}
