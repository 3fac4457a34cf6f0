//! The saturated-cores findings on runs built from fixed figures: each
//! model's /health p99 next to /cpu against its p99 next to a light
//! neighbour, and the thread pool against the event loop.

use super::test_runs::{assert_evidence_has, judged};
use bench_model::fixtures::mixed_groups;
use bench_model::Verdict;

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

/// The seed run's figures but column `id`'s, whose p99s are `p99s`.
fn seed_like_but(id: &str, p99s: [f64; 3]) -> Vec<(&'static str, &'static str, [f64; 3])> {
    let mut figures = seed_like();
    for f in figures.iter_mut().filter(|f| f.0 == id) {
        f.2 = p99s;
    }
    figures
}

#[test]
fn saturated_cores_hurt_every_model_in_the_seed_runs_figures() {
    let run = mixed_groups(&seed_like());
    for id in [
        "saturated-cores-hurt-thread-pool",
        "saturated-cores-hurt-event-loop",
        "saturated-cores-hurt-virtual-threads",
        "saturated-cores-thread-pool-no-shield",
    ] {
        judged(&run, id, Verdict::Held);
    }
    let f = judged(&run, "saturated-cores-hurt-event-loop", Verdict::Held);
    assert_evidence_has(&f, "/health p99 82.0 ms vs 0.6 ms (column medians)");
    assert_evidence_has(&f, "with /cpu offloaded to rayon: /health p99 2.0 ms");
}

#[test]
fn a_model_whose_neighbour_is_not_hurt_is_not_held() {
    // The thread pool's /health barely moves beside /cpu: 2x its light
    // neighbour's, under the factor in every round.
    let run = mixed_groups(&seed_like_but(
        "blocking-health-next-to-cpu",
        [1.2, 1.1, 1.0],
    ));
    judged(&run, "saturated-cores-hurt-thread-pool", Verdict::NotHeld);
    // ... and then it shields /health better than the event loop inline.
    let f = judged(
        &run,
        "saturated-cores-thread-pool-no-shield",
        Verdict::NotHeld,
    );
    assert_evidence_has(&f, "thread pool / event loop: per round 0.01x");
    // The other models are judged on their own columns.
    judged(&run, "saturated-cores-hurt-event-loop", Verdict::Held);
}

#[test]
fn rounds_on_both_sides_of_the_line_are_inconclusive_and_a_missing_column_not_measured() {
    // Virtual threads: 10x, 4x, 10x its light neighbour's.
    let mut figures = seed_like_but("virtual-health-next-to-cpu", [7.0, 2.8, 6.0]);
    let run = mixed_groups(&figures);
    judged(
        &run,
        "saturated-cores-hurt-virtual-threads",
        Verdict::Inconclusive,
    );
    figures.retain(|(id, ..)| !id.contains("users-remote"));
    let run = mixed_groups(&figures);
    judged(
        &run,
        "saturated-cores-hurt-virtual-threads",
        Verdict::NotMeasured,
    );
}
