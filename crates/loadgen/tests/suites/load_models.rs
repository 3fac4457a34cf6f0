//! Burst (both ways of connecting), stages and the error split, each
//! against the in-process server.

use std::time::Duration;

use crate::common::{closed_loop, run_to_end, Behaviour, TestServer};
use loadgen::{parse_stages, BurstConnect, LoadModel, Plan, PlanBuilder, StopAt};

#[test]
fn a_burst_opens_every_connection_then_sends_one_request_on_each() {
    // The server answers nobody until it has accepted all 300: then it sees
    // 300 open at once exactly when loadgen keeps each one open until its answer.
    let server = TestServer::start(Behaviour {
        hold_until_connections: 300,
        ..Behaviour::default()
    });
    let plan = Plan::builder(server.url("/health"))
        .load(LoadModel::Burst {
            connections: 300,
            connect: BurstConnect::First,
        })
        .threads(2);

    let report = run_to_end(plan);

    let burst = report.burst.expect("burst details");
    assert_eq!(burst.connected_before_release, 300);
    assert_eq!(report.requests.total, 300);
    assert_eq!(report.requests.errors, 0);
    assert_eq!(server.requests(), 300);
    assert_eq!(server.connections(), 300);
    assert_eq!(
        server.peak_open_connections(),
        300,
        "all connections were open at once"
    );
}

/// A burst of `connections` against a fresh server that listens with a
/// backlog of 1 and accepts nothing for its first 300 ms.
fn burst_against_a_late_acceptor(connections: usize, connect: BurstConnect) -> loadgen::Report {
    let server = TestServer::start(Behaviour {
        listen_backlog: Some(1),
        accept_after: Duration::from_millis(300),
        ..Behaviour::default()
    });
    let plan = Plan::builder(server.url("/health"))
        .load(LoadModel::Burst {
            connections,
            connect,
        })
        .threads(1);
    let report = run_to_end(plan);
    assert_eq!(report.requests.ok, connections as u64, "{report:?}");
    assert_eq!(server.connections(), connections as u64);
    report
}

#[test]
fn a_burst_with_the_connect_in_the_request_times_the_connect_inside_each_latency() {
    // Behind a backlog of 1 the kernel completes two handshakes and drops
    // the other SYNs, which their clients send again after about a second:
    // connecting takes far longer than the answers, and shows where it is
    // counted. With the connect in the request it is inside each latency
    // and inside the window, which starts at the release.
    let report = burst_against_a_late_acceptor(6, BurstConnect::InRequest);
    assert_eq!(report.load.burst_connect, Some(BurstConnect::InRequest));
    let burst = report.burst.expect("burst details");
    assert_eq!(burst.connect, BurstConnect::InRequest);
    assert_eq!(burst.connected_before_release, 0);
    assert!(burst.connect_phase_ms < 500.0, "{burst:?}");
    let connects = burst.connect_ms.expect("each request's connect, timed");
    assert_eq!(connects.count, 6);
    assert!(connects.max >= 900.0, "a SYN sent again: {connects:?}");
    assert!(
        report.latency_ms.max >= connects.max,
        "the connect is inside the latency: {:?} vs {connects:?}",
        report.latency_ms
    );
    assert!(report.elapsed_ms >= connects.max, "{}", report.elapsed_ms);

    // The same server with every connection opened first: the connects are
    // all before the release, and the answers come at once after it.
    let report = burst_against_a_late_acceptor(6, BurstConnect::First);
    let burst = report.burst.expect("burst details");
    assert_eq!(burst.connected_before_release, 6);
    assert!(burst.connect_phase_ms >= 900.0, "{burst:?}");
    let connects = burst.connect_ms.expect("the connects before the release");
    assert_eq!(connects.count, 6);
    assert!(
        report.latency_ms.max < 500.0 && report.elapsed_ms < 500.0,
        "the connects were before the release: {:?}, {} ms",
        report.latency_ms,
        report.elapsed_ms
    );
}

#[test]
fn stages_ramp_the_connection_count_up_and_down() {
    // Every response takes 20 ms, so active connections stay busy and open.
    let server = TestServer::answering_after(Duration::from_millis(20));
    let stages = parse_stages("400ms:6,600ms:6,400ms:0").expect("valid stages");
    let plan = Plan::builder(server.url("/health"))
        .load(LoadModel::Stages { stages })
        .threads(2);

    let report = run_to_end(plan);

    assert_eq!(report.load.model, loadgen::ModelName::Stages);
    assert_eq!(
        server.peak_open_connections(),
        6,
        "never more than the peak stage"
    );
    assert!(
        report.requests.total >= 100,
        "requests {}",
        report.requests.total
    );
    assert_eq!(report.requests.errors, 0);
    assert!(
        (1.3..3.0).contains(&(report.elapsed_ms / 1000.0)),
        "elapsed {} ms",
        report.elapsed_ms
    );
}

#[test]
fn errors_are_split_by_kind() {
    let server = TestServer::start(Behaviour::default());
    let run = |url: String, timeout: Duration| {
        let plan = closed_loop(url, 2, StopAt::Requests(10))
            .timeout(timeout)
            .threads(1);
        run_to_end(plan)
    };

    let status = run(server.url("/fail"), Duration::from_secs(5));
    assert_eq!(status.errors.status, 10);
    assert_eq!(status.errors.by_status.get("503"), Some(&10));
    assert_eq!(status.error_rate_percent, 100.0);
    assert!(status.throughput_rps > 0.0);
    assert_eq!(
        status.successful_throughput_rps, 0.0,
        "503s are not successful throughput"
    );
    assert_eq!(
        status.no_success_cause().as_deref(),
        Some("no request succeeded: every response had status 503")
    );

    // A port that was just free: nothing listens there any more.
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let connect = run(
        format!("http://127.0.0.1:{closed_port}/"),
        Duration::from_secs(5),
    );
    assert_eq!(connect.errors.connect, 10);
    assert_eq!(connect.latency_ms.count, 0);

    let stalling = TestServer::answering_after(Duration::from_secs(5));
    let plan = closed_loop(stalling.url("/"), 2, StopAt::Requests(2))
        .timeout(Duration::from_millis(200))
        .threads(1);
    let timeout = run_to_end(plan);
    assert_eq!(timeout.errors.timeout, 2);
    assert_eq!(timeout.requests.errors, 2);
}

/// A closed loop of `connections` on `server`, on one thread, that lasts
/// 300 ms and abandons the requests still in flight at its deadline.
fn cut_after_300_ms(server: &TestServer, connections: usize) -> PlanBuilder {
    let stop = StopAt::Duration(Duration::from_millis(300));
    closed_loop(server.url("/"), connections, stop)
        .abandon_in_flight(true)
        .threads(1)
}

#[test]
fn abandoning_in_flight_requests_ends_the_run_at_its_deadline_and_counts_them() {
    // Every answer takes 2 s; the run lasts 300 ms with 3 connections, so
    // all three requests are still in flight at the deadline.
    let server = TestServer::answering_after(Duration::from_secs(2));
    let plan = cut_after_300_ms(&server, 3).timeout(Duration::from_secs(30));
    let started = std::time::Instant::now();
    let report = run_to_end(plan);
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "the run waited for answers: {:?}",
        started.elapsed()
    );
    assert_eq!(report.errors.unfinished, 3);
    assert_eq!(report.requests.total, 3);
    assert_eq!(report.requests.errors, 3);
    assert_eq!(report.requests.ok, 0);
    assert!(
        (report.elapsed_ms - 300.0).abs() < 50.0,
        "{}",
        report.elapsed_ms
    );
    // Nothing was answered, so the ordinary percentiles have nothing; the
    // lower bounds count the three at their age at the deadline (~300 ms).
    assert_eq!(report.latency_ms.count, 0);
    let bound = report
        .latency_lower_bound_ms
        .expect("a run cut at its deadline");
    assert_eq!(bound.count, 3);
    assert!(bound.p50 >= 250.0 && bound.max < 1000.0, "{bound:?}");
    assert_eq!(
        report.no_success_cause().as_deref(),
        Some("no request succeeded: none of 3 requests finished before the deadline")
    );

    // Only a closed loop stopped by duration can be cut at its deadline.
    let counted = closed_loop(server.url("/"), 1, StopAt::Requests(5))
        .abandon_in_flight(true)
        .build();
    assert!(counted.is_err());
}

#[test]
fn an_unrecorded_lead_warms_up_on_the_same_connections_without_counting() {
    // 100 ms per answer on one connection: about 4 answers end in the
    // 450 ms lead (not counted), about 3 in the 300 ms window, and one is in
    // flight at the deadline.
    let server = TestServer::answering_after(Duration::from_millis(100));
    let plan = cut_after_300_ms(&server, 1).unrecorded_lead(Duration::from_millis(450));
    let report = run_to_end(plan);
    assert_eq!(report.errors.unfinished, 1);
    assert!(
        (1..=4).contains(&report.requests.ok),
        "{:?}",
        report.requests
    );
    // The answered ones and the one in flight, nothing from the lead.
    let bound = report
        .latency_lower_bound_ms
        .expect("a run cut at its deadline");
    assert_eq!(bound.count, report.requests.total);
    assert!(
        server.requests() >= report.requests.total + 3,
        "the lead sent requests too"
    );
    assert_eq!(
        server.connections(),
        1,
        "the window kept the lead's connection"
    );
    assert!(
        (report.elapsed_ms - 300.0).abs() < 50.0,
        "{}",
        report.elapsed_ms
    );
}
