//! The saturated-cores findings on runs built from fixed figures: each
//! model's /health p99 next to /cpu against its p99 next to a light
//! neighbour, and the thread pool against the event loop.

use super::test_runs::assert_evidence_has;
use bench_model::fixtures::{column, group, results};
use bench_model::{RunResults, Verdict, THRESHOLDS};

/// A mixed run whose /health p99s per round are `p99s` (id, server,
/// three rounds of p99 in ms), the light neighbour of virtual threads in
/// the remote-mixed group, as the matrix has it.
fn mixed_run(p99s: &[(&str, &str, [f64; 3])]) -> RunResults {
    let of = |group_id: &str| {
        let columns = p99s
            .iter()
            .filter(|(id, ..)| id.contains("users-remote") == (group_id == "remote-mixed"))
            .map(|(id, server, p)| {
                column(id, server, &[(50.0, p[0]), (50.0, p[1]), (50.0, p[2])], 20)
            })
            .collect();
        group(group_id, columns)
    };
    results(vec![of("mixed"), of("remote-mixed")])
}

fn verdict(run: &RunResults, id: &str) -> (Verdict, String) {
    let f = super::check(run, &THRESHOLDS)
        .into_iter()
        .find(|f| f.id == id)
        .unwrap();
    (f.verdict, f.evidence)
}

/// The seed run's figures, rounded: every model's /health hurt beside
/// /cpu, the thread pool the worst.
fn seed_like() -> Vec<(&'static str, &'static str, [f64; 3])> {
    vec![
        (
            "blocking-health-next-to-cpu",
            "blocking",
            [111.0, 152.0, 126.0],
        ),
        ("blocking-health-next-to-posts", "blocking", [0.6, 0.6, 0.5]),
        ("async-health-next-to-cpu", "async", [82.0, 82.0, 84.0]),
        ("async-health-next-to-cpu-rayon", "async", [2.0, 2.0, 2.1]),
        ("async-health-next-to-posts", "async", [0.6, 0.5, 0.6]),
        (
            "virtual-health-next-to-cpu",
            "virtual-pinning",
            [200.0, 194.0, 207.0],
        ),
        (
            "virtual-yielding-health-next-to-users-remote",
            "virtual-yielding",
            [0.7, 0.7, 0.6],
        ),
    ]
}

#[test]
fn saturated_cores_hurt_every_model_in_the_seed_runs_figures() {
    let run = mixed_run(&seed_like());
    for id in [
        "saturated-cores-hurt-thread-pool",
        "saturated-cores-hurt-event-loop",
        "saturated-cores-hurt-virtual-threads",
        "saturated-cores-thread-pool-no-shield",
    ] {
        assert_eq!(verdict(&run, id).0, Verdict::Held, "{id}");
    }
    let f = super::check(&run, &THRESHOLDS)
        .into_iter()
        .find(|f| f.id == "saturated-cores-hurt-event-loop")
        .unwrap();
    assert_evidence_has(&f, "/health p99 82.0 ms vs 0.6 ms (column medians)");
    assert_evidence_has(&f, "with /cpu offloaded to rayon: /health p99 2.0 ms");
}

#[test]
fn a_model_whose_neighbour_is_not_hurt_is_not_held() {
    // The thread pool's /health barely moves beside /cpu: 2x its light
    // neighbour's, under the factor in every round.
    let mut figures = seed_like();
    figures[0].2 = [1.2, 1.1, 1.0];
    let run = mixed_run(&figures);
    assert_eq!(
        verdict(&run, "saturated-cores-hurt-thread-pool").0,
        Verdict::NotHeld
    );
    // ... and then it shields /health better than the event loop inline.
    let (v, evidence) = verdict(&run, "saturated-cores-thread-pool-no-shield");
    assert_eq!(v, Verdict::NotHeld, "{evidence}");
    assert!(
        evidence.contains("thread pool / event loop: per round 0.01x"),
        "{evidence}"
    );
    // The other models are judged on their own columns.
    assert_eq!(
        verdict(&run, "saturated-cores-hurt-event-loop").0,
        Verdict::Held
    );
}

#[test]
fn rounds_on_both_sides_of_the_line_are_inconclusive_and_a_missing_column_not_measured() {
    let mut figures = seed_like();
    // Virtual threads: 10x, 4x, 10x its light neighbour's.
    figures[5].2 = [7.0, 2.8, 6.0];
    let run = mixed_run(&figures);
    assert_eq!(
        verdict(&run, "saturated-cores-hurt-virtual-threads").0,
        Verdict::Inconclusive
    );
    figures.retain(|(id, ..)| !id.contains("users-remote"));
    let run = mixed_run(&figures);
    assert_eq!(
        verdict(&run, "saturated-cores-hurt-virtual-threads").0,
        Verdict::NotMeasured
    );
}
