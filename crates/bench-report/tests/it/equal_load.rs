//! A group with equal-load windows: its row at a glance ranked by server
//! CPU per request at the one rate (what a core of a dedicated server
//! would serve), not by the closed loop's throughput, which the load
//! generator shares; a run saved without them ranked by throughput as
//! before; and the windows' table in every printer.

use super::assert_lines;
use bench_analysis::findings::check;
use bench_model::fixtures::*;
use bench_model::*;
use bench_report::equal_load_table::equal_load_table;
use bench_report::glance::{self, Cell, Figure, Model};
use bench_report::text::render_table;

/// /health: blocking serves more in the closed loop (1500 vs 1200 req/s),
/// but at 600 req/s each async spends 8 us of server CPU per request and
/// blocking 10 (the medians).
fn baseline(windows: bool) -> RunResults {
    let mut g = health_at_equal_load([10.0, 11.0, 9.0], [8.0, 8.0, 8.4]);
    if !windows {
        g.equal_load = None;
    }
    results(vec![g])
}

/// The /health row's relative figure of `model`, and the row's figure.
fn ranked(run: &RunResults, model: Model) -> (f64, Figure) {
    let g = glance::build(run, &check(run, &THRESHOLDS), &THRESHOLDS);
    let row = g
        .rows
        .iter()
        .find(|r| r.workload.name == "/health")
        .unwrap();
    match &row.cells.iter().find(|c| c.0 == model).unwrap().1 {
        Cell::Best { relative, .. } => (relative.unwrap().median, row.figure),
        other => panic!("not ranked: {other:?}"),
    }
}

#[test]
fn an_equal_load_row_is_ranked_by_cpu_per_request_at_the_rate() {
    let run = baseline(true);
    let (event_loop, figure) = ranked(&run, Model::EventLoop);
    assert_eq!((event_loop, figure), (1.0, Figure::CapacityAtEqualLoad));
    // The best CPU per request over the thread pool's: 8 / 10.
    let (thread_pool, _) = ranked(&run, Model::ThreadPool);
    assert!((thread_pool - 0.8).abs() < 1e-12, "{thread_pool}");
    let text = bench_report::glance::text::render(&glance::build(
        &run,
        &check(&run, &THRESHOLDS),
        &THRESHOLDS,
    ));
    assert!(text.contains("1.00 · 125000 req/s/core"), "{text}");
    assert!(text.contains("p99 1.00 ms · 8.00 us/req"), "{text}");
    assert!(
        text.contains("HELD baseline-async-cheaper-at-equal-load"),
        "{text}"
    );
}

#[test]
fn a_run_saved_without_equal_load_windows_is_ranked_by_throughput() {
    let run = baseline(false);
    assert_eq!(ranked(&run, Model::ThreadPool), (1.0, Figure::Throughput));
    let (event_loop, _) = ranked(&run, Model::EventLoop);
    assert!((event_loop - 0.8).abs() < 1e-12, "{event_loop}");
}

#[test]
fn the_windows_table_gives_the_rate_the_cost_and_the_client_beside_it() {
    let run = baseline(true);
    let g = &run.groups[0];
    let text = render_table(&equal_load_table(g, g.equal_load.as_ref().unwrap()));
    // The fixture's rounds: 6000 requests in 10 s, every one a success,
    // the load generator 1 s of CPU and Postgres 0.5 s per window.
    assert_lines(
        &text,
        &[
            "                                                     blocking-health  async-health",
            "----------------------------------------------------------------------------------",
            "Rounds                                                             3             3",
            "Target rate (req/s)                                              600           600",
            "Achieved (req/s)                                        600 (100.0%)  600 (100.0%)",
            "Server CPU per request (us)                               10.00 ±10%      8.00 ±5%",
            "Relative, cheapest = 1.00                                       0.80          1.00",
            "Req/s per core of a dedicated server                     100000 ±11%    125000 ±5%",
            "p50 (ms)                                                    0.50 ±0%      0.50 ±0%",
            "p99 (ms)                                                    1.00 ±0%      1.00 ±0%",
            "p99.9 (ms)                                                  1.50 ±0%      1.50 ±0%",
            "Errors                                                             0             0",
            "Load generator CPU per request (us)                       166.67 ±0%    166.67 ±0%",
            "Postgres CPU per request (us)                              83.33 ±0%     83.33 ±0%",
            "Closed loop, shared with the load generator (req/s)         1500 ±0%      1200 ±0%",
            "",
        ],
    );
    let findings = check(&run, &THRESHOLDS);
    let md = bench_report::markdown::render(&run, &findings, &THRESHOLDS);
    assert!(
        md.contains("At an equal load, where the cores decide: each column that does not block by design again, at 600 req/s (0.5 x async-health's 1200 req/s, the lowest)"),
        "{md}"
    );
    assert!(md.contains("| Server CPU per request (us) | 10.00 ±10% | 8.00 ±5% |"));
    let html = bench_report::html::render(&run, &findings, &THRESHOLDS);
    assert!(html.contains("<h3>At an equal load</h3>"));
    assert!(html.contains("class=\"equal-load\""), "{html}");
}
