//! The equal-load windows on real servers: after a group's own rounds,
//! every column that does not block by design is loaded again at one
//! rate, half the lowest throughput they reached, and reaches it; each
//! window has its server CPU per request and the load generator's beside
//! it. And the row is ranked by that CPU, not by the closed loop: a
//! route costlier per request ranks below one of the same server that
//! served fewer requests in the closed loop.

use std::time::Duration;

use bench::plan::{Column, EqualLoadPlan, Group, Load, Request, RunPlan, Selection};
use bench::plan::{ColumnId, GroupId, Needs, Network, ServerChoices, Target};
use bench_analysis::equal_load::is_ranked;
use bench_analysis::stats::column_spread;
use bench_model::figures::{
    load_generator_cpu_us_per_request, server_cpu_us_per_request, successful_rps,
};
use bench_model::{ColumnResult, GroupResult, RunResults, SavedRun, THRESHOLDS};
use bench_report::glance::{self, Cell, Figure, Model};

use crate::common::{run_bench, run_flags, start_server};

/// The windows of `g`, checked: a column per ranked column, each round
/// at the rate, the rate half the lowest ranked median.
fn check_windows(g: &GroupResult) {
    let e = g
        .equal_load
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no equal-load windows", g.id));
    let ranked: Vec<ColumnId> = g
        .columns
        .iter()
        .filter(|c| is_ranked(c))
        .map(|c| c.id)
        .collect();
    let windows: Vec<ColumnId> = e.columns.iter().map(|c| c.id).collect();
    assert_eq!(windows, ranked, "{}", g.id);
    let lowest = g
        .columns
        .iter()
        .filter(|c| is_ranked(c))
        .filter_map(|c| column_spread(c, successful_rps))
        .map(|s| s.median)
        .fold(f64::INFINITY, f64::min);
    assert_eq!((e.share, e.rate_rps), (0.5, lowest * 0.5), "{}", g.id);
    for c in &e.columns {
        assert!(c.failure.is_none(), "{}: {:?}", c.id, c.failure);
        assert_eq!(c.rounds.len(), 1, "{}", c.id);
        for r in &c.rounds {
            let achieved = r.load.successful_throughput_rps;
            assert!(
                (achieved / e.rate_rps - 1.0).abs() <= 0.02,
                "{}: {achieved:.1} req/s against a rate of {:.1}",
                c.id,
                e.rate_rps
            );
            let server = server_cpu_us_per_request(r).unwrap_or_default();
            let client = load_generator_cpu_us_per_request(r).unwrap_or_default();
            assert!(server > 0.0 && client > 0.0, "{}: {server} {client}", c.id);
            assert!(r.load.latency_ms.p99_9.is_some(), "{}", c.id);
        }
    }
}

#[test]
fn every_ranked_column_is_loaded_at_the_rows_rate_and_reaches_it() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let more = [
        // One connection: a rate a debug build's load generator keeps
        // on a busy machine.
        "--connections",
        "1",
        // Long enough that the last requests' latency, which the rate
        // is divided by too, is well under 2% of it.
        "--duration",
        "1500ms",
        "--warm-up",
        "100ms",
        "--cold-starts",
        "0",
    ];
    let run = run_bench(&run_flags("tiny", "baseline", "1", &more), &[]);
    let saved = SavedRun::from_json(&run.json.to_string(), "results.json").unwrap();
    for g in &saved.results.groups {
        check_windows(g);
    }
    let report = std::fs::read_to_string(run.dir.join("report.md")).unwrap();
    assert!(report.contains("| Load generator CPU per request (us) |"));
    assert!(run.stderr.contains("at equal load: "), "{}", run.stderr);
}

/// A crafted group of two columns on the server at `url`, a blocking one
/// bench did not start: /cpu, costly per request and quick in a closed
/// loop, against /posts/1, a 300-ms sleep that serves few requests but
/// costs next to nothing each; one round of each window. Both columns'
/// figures include the cost of the server's /metrics, which bench polls
/// every 50 ms on a server it did not start.
fn crafted_run(url: &str) -> RunResults {
    let request = Request {
        selection: Selection {
            groups: Some(vec!["baseline".into()]),
            ..Selection::profile("tiny")
        },
        servers: ServerChoices {
            blocking_url: Some(url.into()),
            ..ServerChoices::default()
        },
        ..Request::default()
    };
    let mut plan = RunPlan::new(&request).unwrap();
    let group = &mut plan.groups[0];
    group.group = Group {
        id: GroupId::Baseline,
        title: "costly per request against a sleep",
        needs: Needs {
            postgres: false,
            redis: false,
        },
        network: Network::Local,
        // /cpu: some 3.5 ms of CPU per request on a debug build.
        columns: vec![
            Column::get(ColumnId::BlockingCpu, Target::Blocking, "/cpu?n=350000"),
            Column::get(ColumnId::BlockingPosts, Target::Blocking, "/posts/1"),
        ],
        cold_start_probe: Vec::new(),
    };
    // Eight connections: /posts/1 serves 27 requests a second, /cpu more
    // with a tenth of a core. Both windows at twice the former (the rule's
    // share is a half: a rate the slowest column serves on a busy machine
    // beside the load generator; /posts/1 is not slowed by one), where the
    // polls of /metrics (some 35 ms a second on a debug build) cost less
    // than a millisecond per request of either.
    group.load = Load::Closed {
        connections: 8,
        duration: Duration::from_secs(1),
    };
    group.rounds = 1;
    group.warm_up = Some(Duration::from_millis(200));
    group.cold_start = None;
    group.equal_load = Some(EqualLoadPlan {
        share: 2.0,
        window: Duration::from_secs(3),
        warm_up: Some(Duration::from_millis(300)),
        rounds: 1,
        columns: 2,
    });
    let dir = tempfile::tempdir().unwrap();
    bench::run::run(&plan, dir.path()).unwrap()
}

#[test]
fn a_column_costlier_per_request_ranks_below_at_equal_load_whatever_it_served() {
    let _machine = harness::exclusive();
    let server = start_server("blocking", &[]);
    let results = crafted_run(&server.url);
    let g = &results.groups[0];
    let median =
        |c: Option<&ColumnResult>, metric| column_spread(c.unwrap(), metric).unwrap().median;
    let served = |id| median(g.columns.iter().find(|c| c.id == id), successful_rps);
    let (cpu, sleep) = (
        served(ColumnId::BlockingCpu),
        served(ColumnId::BlockingPosts),
    );
    // In the closed loop the costly route served more: ranked by
    // throughput, it would be the thread pool's best.
    assert!(
        cpu > sleep,
        "closed loop: /cpu {cpu:.1} req/s, /posts/1 {sleep:.1}"
    );
    let e = g.equal_load.as_ref().unwrap();
    assert_eq!(e.lowest, ColumnId::BlockingPosts);
    let us = |id| median(e.column(id), server_cpu_us_per_request);
    let (cpu, sleep) = (us(ColumnId::BlockingCpu), us(ColumnId::BlockingPosts));
    assert!(
        cpu > 2.0 * sleep,
        "at equal load: /cpu {cpu:.0} us, /posts/1 {sleep:.0} us"
    );
    let findings = bench_analysis::findings::check(&results, &THRESHOLDS);
    let matrix = glance::build(&results, &findings, &THRESHOLDS);
    let row = &matrix.rows[0];
    assert_eq!(row.figure, Figure::CapacityAtEqualLoad);
    match &row
        .cells
        .iter()
        .find(|c| c.0 == Model::ThreadPool)
        .unwrap()
        .1
    {
        Cell::Best { pick, .. } => assert_eq!(pick.column, ColumnId::BlockingPosts),
        other => panic!("the thread pool is not ranked: {other:?}"),
    }
}
