//! Open mode: requests leave at the requested rate whatever the server does,
//! and latency measured from the intended send time exposes a server stall
//! that latency from the actual send time hides (coordinated omission).

use std::time::Duration;

use crate::common::{run_to_end, Behaviour, TestServer};
use loadgen::{LoadModel, Plan, StopAt};

fn open_plan(url: String, rate_rps: f64, seconds: u64, max_connections: usize) -> Plan {
    Plan::builder(url)
        .load(LoadModel::Open {
            rate_rps,
            stop: StopAt::Duration(Duration::from_secs(seconds)),
            initial_connections: 1,
            max_connections,
        })
        .threads(2)
        .build()
        .expect("valid plan")
}

#[test]
fn open_mode_sends_at_the_requested_rate() {
    let server = TestServer::start(Behaviour::default());
    let report =
        loadgen::run_blocking(&open_plan(server.url("/health"), 200.0, 2, 50)).expect("run");

    let open = report.open_loop.expect("open-loop details");
    assert_eq!(open.scheduled, 400, "200 req/s for 2 s");
    assert_eq!(report.requests.total, 400);
    assert_eq!(server.requests(), 400);
    assert!(
        (1.9..3.0).contains(&(report.elapsed_ms / 1000.0)),
        "elapsed {} ms",
        report.elapsed_ms
    );
    // Arrivals are spread over time, not sent as fast as possible.
    let first_two: Vec<u64> = report.timeline.iter().take(2).map(|r| r.requests).collect();
    for count in &first_two {
        assert!(
            (120..=280).contains(count),
            "per-second counts {first_two:?}"
        );
    }
    assert!(report.latency_uncorrected_ms.is_some());
}

#[test]
fn corrected_latency_includes_a_stall_that_uncorrected_latency_hides() {
    // One connection at most, 100 req/s for 3 s; the server stalls request 50
    // for 800 ms. The ~80 requests due during the stall wait in the client.
    let stall = Duration::from_millis(800);
    let server = TestServer::start(Behaviour {
        stall_request: Some(50),
        stall_for: stall,
        ..Behaviour::default()
    });
    let report =
        loadgen::run_blocking(&open_plan(server.url("/health"), 100.0, 3, 1)).expect("run");

    let corrected = report.latency_ms;
    let uncorrected = report
        .latency_uncorrected_ms
        .expect("uncorrected figures in open mode");
    let open = report.open_loop.expect("open-loop details");
    assert_eq!(report.requests.total, 300);

    // Both see the stalled request itself...
    assert!(corrected.max >= 700.0, "corrected max {}", corrected.max);
    assert!(
        uncorrected.max >= 700.0,
        "uncorrected max {}",
        uncorrected.max
    );
    // ...but only the corrected figures count the requests queued behind it:
    // by hand, p99 is the 3rd worst (~780 ms) and p95 the 15th (~660 ms),
    // while uncorrected they are ordinary round trips of a millisecond or so.
    assert!(corrected.p99 >= 500.0, "corrected p99 {}", corrected.p99);
    assert!(corrected.p95 >= 300.0, "corrected p95 {}", corrected.p95);
    assert!(
        uncorrected.p99 < 250.0,
        "uncorrected p99 {}",
        uncorrected.p99
    );
    assert!(open.late_sends >= 50, "late sends {}", open.late_sends);
    assert!(
        open.pool_cap_hits >= 50,
        "pool cap hits {}",
        open.pool_cap_hits
    );
    assert_eq!(open.connections_used, 1);
}

#[test]
fn tickets_that_waited_past_the_timeout_fail_without_being_sent() {
    // Every response takes 300 ms, one connection, 50 req/s for 1 s, 500 ms
    // timeout: most tickets wait in the client longer than the timeout.
    let server = TestServer::answering_after(Duration::from_millis(300));
    let plan = Plan::builder(server.url("/health"))
        .load(LoadModel::Open {
            rate_rps: 50.0,
            stop: StopAt::Duration(Duration::from_secs(1)),
            initial_connections: 1,
            max_connections: 1,
        })
        .timeout(Duration::from_millis(500))
        .threads(2);

    let report = run_to_end(plan);

    assert_eq!(report.requests.total, 50);
    assert!(
        report.errors.timeout >= 30,
        "timeouts {}",
        report.errors.timeout
    );
    assert!(server.requests() <= 10, "server saw {}", server.requests());
    // The run ends about one timeout after the last ticket, not 50 x 300 ms later.
    assert!(
        report.elapsed_ms < 4000.0,
        "elapsed {} ms",
        report.elapsed_ms
    );
}
