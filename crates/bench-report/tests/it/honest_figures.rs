//! Figures that say what they are, in every view: a p99 cut off by its
//! window (requests without an answer as many as its tail holds) reads as
//! a lower bound, "≥", and a sweep column whose top steps disagree is
//! still rising, never a plateau made of their mean; in the terminal's and
//! the page's matrix, the sweep's and a group's tables, the charts and
//! `bench compare`. The runs are crafted from bench-model's fixtures.

use bench_analysis::findings::check;
use bench_model::fixtures::*;
use bench_model::*;
use bench_report::compare::compare;
use bench_report::glance::{self, Cell, Model};

/// The /posts/1 sweep at 50, 400 and 800 connections: blocking flat at its
/// cap from 400 on, its top step cut off (800 requests of 2200 without an
/// answer, its p99 counted at their wait: 2736 ms; the plateau's p99, the
/// median over its two top steps, 1370 ms); the event loop and
/// virtual threads at connections / 0.3 s, still rising, every request
/// answered.
fn cut_off_sweep() -> RunResults {
    let steps = [50, 400, 800];
    let mut g = sweep_group(
        "sweep-posts",
        &steps,
        |c, _, n| {
            if c.starts_with("blocking") {
                (n as f64 / 0.3).min(666.0)
            } else {
                n as f64 / 0.3
            }
        },
        &[
            ("blocking-posts-sweep", "blocking"),
            ("async-posts-sweep", "async"),
            ("virtual-posts-sweep", "virtual-pinning"),
        ],
    );
    for r in &mut g.columns[0].rounds {
        let s = r.step.as_mut().unwrap();
        if s.connections == 800 {
            s.unfinished = 800;
            s.latency_lower_bound_ms.p99 = 2736.0;
            r.load.total_requests = 2200;
        }
    }
    results(vec![g])
}

fn glance_of(run: &RunResults) -> glance::Glance {
    glance::build(run, &check(run, &THRESHOLDS), &THRESHOLDS)
}

#[test]
fn a_cut_off_p99_is_a_lower_bound_and_a_rising_sweep_no_plateau() {
    let run = cut_off_sweep();
    let g = glance_of(&run);
    let row = &g.rows[0];
    let cell = |m: Model| row.cells.iter().find(|c| c.0 == m).unwrap().1.clone();
    let Cell::Best { pick: pool, .. } = cell(Model::ThreadPool) else {
        panic!("no thread pool cell");
    };
    assert!(pool.measure.p99_lower_bound);
    assert_eq!(pool.measure.main.median, 666.0);
    let Cell::Best { pick: event, .. } = cell(Model::EventLoop) else {
        panic!("no event loop cell");
    };
    assert!(!event.measure.p99_lower_bound);
    // The highest step's 2667 req/s, not the mean of 1333 and 2667.
    assert!((event.measure.main.median - 800.0 / 0.3).abs() < 1e-6);
    let text = glance::text::render(&g);
    assert!(text.contains("p99 ≥1370 ms"), "{text}");
    assert!(text.contains("2667 req/s, still"), "{text}");
    assert!(!text.contains("2000 req/s"), "a mean of two steps: {text}");
    let md = glance::markdown::render(&g, None);
    assert!(
        md.contains("p99 ≥1370 ms") && md.contains("still rising"),
        "{md}"
    );
    let html = glance::html::section(&g);
    // The page puts the shape on the variant's line, so the figure's stays one.
    assert!(
        html.contains("p99 ≥1370 ms") && html.contains("timer, still rising"),
        "{html}"
    );
    // The sweep's own table marks the cut-off step's p99, and only it.
    let page = bench_report::html::render(&run, &check(&run, &THRESHOLDS), &THRESHOLDS);
    assert!(
        page.contains("≥2736"),
        "no lower bound in the page's sweep table"
    );
    let report = bench_report::text::render(&run, &check(&run, &THRESHOLDS), &THRESHOLDS);
    assert!(report.contains("≥2736"), "{report}");
    assert!(
        !report.contains("≥5.00"),
        "a step every request of which was answered: {report}"
    );
}

#[test]
fn a_p99_with_a_percent_of_requests_timed_out_is_a_lower_bound_in_a_groups_table() {
    let mut col = steady("blocking-health", "blocking", 1000.0, 40.0, 210);
    let mut run = results(vec![group(
        "baseline",
        vec![col.clone(), steady("async-health", "async", 1000.0, 5.0, 5)],
    )]);
    let table = |run: &RunResults| {
        bench_report::text::render_table(&bench_report::table::compact_table(&run.groups[0]))
    };
    assert!(!table(&run).contains('≥'), "{}", table(&run));
    // 10 of 1000 requests timed out in one round: 1%, as many as a p99's tail.
    col.rounds[1].load.total_requests = 1000;
    col.rounds[1]
        .load
        .errors_by_kind
        .insert(ErrorKind::Timeout, 10);
    run.groups[0].columns[0] = col.clone();
    let t = table(&run);
    let p99 = t.lines().find(|l| l.starts_with("p99")).unwrap();
    assert!(p99.contains("≥40.0"), "{p99}");
    assert!(
        !t.lines()
            .find(|l| l.starts_with("p50"))
            .unwrap()
            .contains('≥'),
        "{t}"
    );
    // Its chart says so above the bar.
    let charts = bench_report::charts::all(&run);
    let (_, p99_chart) = charts
        .iter()
        .find(|(n, _)| n == "baseline-p99.svg")
        .unwrap();
    assert!(p99_chart.contains(">≥40</text>"), "{p99_chart}");
    // 9 of 1000 is under the tail: exact.
    col.rounds[1]
        .load
        .errors_by_kind
        .insert(ErrorKind::Timeout, 9);
    run.groups[0].columns[0] = col;
    assert!(!table(&run).contains('≥'));
}

#[test]
fn compare_marks_a_lower_bound_and_calls_no_change_it_cannot_show() {
    let run = cut_off_sweep();
    let saved = |r: &RunResults| SavedRun {
        results: r.clone(),
        thresholds: THRESHOLDS,
        findings: check(r, &THRESHOLDS),
    };
    let old = saved(&run);
    let mut faster = run.clone();
    // The new run's cut-off step reads a lower p99 bound: no improvement
    // can be told from that.
    for r in &mut faster.groups[0].columns[0].rounds {
        let s = r.step.as_mut().unwrap();
        if s.connections == 800 {
            s.latency_lower_bound_ms.p99 = 1000.0;
        }
    }
    let c = compare(
        &old,
        &saved(&faster),
        ("old/results.json", "new/results.json"),
    );
    let row = c
        .groups
        .iter()
        .flat_map(|g| &g.rows)
        .find(|r| {
            r.column == "blocking-posts-sweep @ 800"
                && r.figure == bench_report::compare::Figure::P99
        })
        .unwrap();
    assert_eq!(row.lower_bound, (true, true));
    assert_eq!(row.word, bench_report::compare::Word::LowerBound);
    let text = bench_report::compare::text::render(&c);
    assert!(text.contains("≥2736") && text.contains("≥1000"), "{text}");
}
