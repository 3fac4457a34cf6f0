//! The idle-connection measurement end to end, at 500 connections, on each
//! of the three servers of the idle group (real processes, `bench serve`):
//! tiny_http's threads rise by about one per connection, nio's and the
//! event loop's not at all; every connection is really held by the server
//! while open (its open files rise with them) and really closed after.

use std::time::{Duration, Instant};

use bench::measure::idle_cost::measure_round;
use bench::plan::LoadOptions;
use bench::plan::{groups, ColumnId, GroupId, IdleLoad};
use bench_model::{IdleRound, IDLE_FDS_SLACK};

const CONNECTIONS: usize = 500;

/// One idle round at [`CONNECTIONS`] on a fresh server of `column`, started
/// with the column's own flags; the server is returned still running.
fn one_round(column: ColumnId) -> (IdleRound, crate::common::ServerProcess) {
    let group = groups()
        .into_iter()
        .find(|g| g.id == GroupId::Idle)
        .unwrap();
    let column = group.columns.into_iter().find(|c| c.id == column).unwrap();
    let mut args: Vec<String> = column.server_args.iter().map(|a| a.to_string()).collect();
    args.push("--skip-setup".into());
    let server = crate::common::start_server(column.target.name(), &args);
    let load = IdleLoad {
        sizes: vec![CONNECTIONS],
        probe_connections: 2,
        probe_for: Duration::from_millis(200),
        open_within: Duration::from_secs(60),
    };
    let options = LoadOptions {
        timeout: Duration::from_secs(10),
        threads: 1,
        paths: bench::plan::PathValues {
            cpu_n: 1,
            stall_cpu_n: 1,
        },
        mixed_lead: LoadOptions::MIN_MIXED_LEAD,
        jvm_warm_up: None,
    };
    let round = measure_round(
        server.addr(),
        server.pid(),
        &column,
        &load,
        &options,
        (1, 0),
    )
    .unwrap_or_else(|e| panic!("{}: {e:#}", column.id));
    (round, server)
}

/// What every server must show: all 500 opened and still open after the
/// probe, each one a socket the server holds, /health answered beside
/// them, and every socket closed again soon after bench closed its side.
fn held_and_closed(round: &IdleRound) -> f64 {
    assert_eq!(round.steps.len(), 1, "{round:?}");
    let step = &round.steps[0];
    assert_eq!(step.failure, None);
    assert_eq!(step.opened, CONNECTIONS);
    assert_eq!(step.still_open, CONNECTIONS, "the server closed some");
    let fds = step.fds_per_connection(&round.idle).unwrap();
    assert!(
        fds >= 0.99,
        "the server holds {fds} open files per connection"
    );
    let probe = step
        .probe
        .expect("/health probed beside the idle connections");
    assert!(probe.requests > 0 && probe.errors == 0, "{probe:?}");
    let after = round
        .after_close
        .expect("the server closed its side within 5 s");
    assert!(
        after.open_fds <= round.idle.open_fds + IDLE_FDS_SLACK,
        "{after:?} vs {:?}",
        round.idle
    );
    step.threads_per_connection(&round.idle).unwrap()
}

#[test]
fn tiny_http_adds_a_thread_per_idle_connection_and_retires_them_after_close() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let (round, server) = one_round(ColumnId::BlockingIdleTinyHttp);
    let per = held_and_closed(&round);
    assert!(per >= 0.9, "tiny_http: {per} threads per idle connection");
    // Its pool threads outlive their connection by 5 s idle, then exit.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let threads = process_stats::sample(server.pid()).unwrap().threads;
        if threads <= round.idle.threads + 8 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "tiny_http still has {threads} threads 20 s after the connections closed (idle: {})",
            round.idle.threads
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One round of `column`'s server holding idle connections, then closing
/// them: fails unless it held them without a thread each (`who` names it).
fn assert_holds_idle_connections_without_threads(column: ColumnId, who: &str) {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let (round, _server) = one_round(column);
    let per = held_and_closed(&round);
    // Wide margin: a thread per connection would be 1.0.
    assert!(per <= 0.02, "{who}: {per} threads per idle connection");
}

#[test]
fn nio_holds_idle_connections_without_threads() {
    assert_holds_idle_connections_without_threads(ColumnId::BlockingIdle, "nio");
}

#[test]
fn the_event_loop_holds_idle_connections_without_threads() {
    assert_holds_idle_connections_without_threads(ColumnId::AsyncIdle, "async");
}
