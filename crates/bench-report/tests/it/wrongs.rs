//! What goes wrong, from fixed results: saturated cores beside /health as
//! a row per model (the thread pool, the event loop, virtual threads),
//! each next to the same model's light neighbour and judged by that
//! model's finding, beside the rows of the wrong variants.

use bench_analysis::findings::check;
use bench_model::fixtures::mixed_groups;
use bench_model::{ColumnId, RunResults, Verdict, THRESHOLDS};
use bench_report::glance::{self, wrongs::WrongKind};

/// The mixed and remote-mixed groups with the seed run's figures, rounded.
fn mixed_run() -> RunResults {
    mixed_groups(&[
        ("blocking-health-next-to-cpu", "blocking", [126.0; 3]),
        ("async-health-next-to-cpu", "async", [82.5; 3]),
        ("async-health-next-to-cpu-rayon", "async", [2.0; 3]),
        ("blocking-health-next-to-posts", "blocking", [0.5; 3]),
        ("async-health-next-to-posts", "async", [0.6; 3]),
        ("virtual-health-next-to-cpu", "virtual-pinning", [200.0; 3]),
        (
            "virtual-yielding-health-next-to-users-remote",
            "virtual-yielding",
            [0.7; 3],
        ),
    ])
}

#[test]
fn saturated_cores_are_a_row_per_model_next_to_its_light_neighbour() {
    let run = mixed_run();
    let findings = check(&run, &THRESHOLDS);
    let g = glance::build(&run, &findings, &THRESHOLDS);
    let rows: Vec<_> = g
        .wrongs
        .iter()
        .filter(|w| w.kind == WrongKind::SaturatedCores)
        .map(|w| {
            let verdict = w.verdict.as_ref().map(|v| (v.finding.as_str(), v.verdict));
            (w.column, w.what.as_str(), w.p99_ms, w.right, verdict)
        })
        .collect();
    use ColumnId as C;
    assert_eq!(
        rows,
        [
            (
                C::BlockingHealthNextToCpu,
                "/cpu on the thread pool",
                Some(126.0),
                Some((C::BlockingHealthNextToPosts, 0.5)),
                Some(("saturated-cores-hurt-thread-pool", Verdict::Held)),
            ),
            (
                C::AsyncHealthNextToCpu,
                "/cpu on the event loop",
                Some(82.5),
                Some((C::AsyncHealthNextToPosts, 0.6)),
                Some(("saturated-cores-hurt-event-loop", Verdict::Held)),
            ),
            (
                C::VirtualHealthNextToCpu,
                "/cpu on virtual threads",
                Some(200.0),
                Some((C::VirtualYieldingHealthNextToUsersRemote, 0.7)),
                Some(("saturated-cores-hurt-virtual-threads", Verdict::Held)),
            ),
        ]
    );
    // After the wrong variants, before a thread per connection; and in the
    // Markdown matrix, a line each.
    let kinds: Vec<WrongKind> = g.wrongs.iter().map(|w| w.kind).collect();
    let first = kinds.iter().position(|k| *k == WrongKind::SaturatedCores);
    assert!(
        first
            > kinds
                .iter()
                .position(|k| *k == WrongKind::BlockingTheEventLoop)
    );
    let md = glance::markdown::render(&g, None);
    let line = "| Saturated cores, on every model | `blocking-health-next-to-cpu`: /cpu on the thread pool | /health p99 126 ms beside it, 0.50 ms beside blocking-health-next-to-posts | HELD `saturated-cores-hurt-thread-pool` |";
    assert!(md.contains(line), "{md}");
}
