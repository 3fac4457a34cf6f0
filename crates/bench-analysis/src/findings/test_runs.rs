//! What the findings' unit tests share: the rounds of a run saved under
//! docs/results, one finding of a run as this build judges it (and the
//! check of its verdict), and the check of a part of its evidence. (Runs
//! built from fixed figures, and the saved runs, are bench-model's
//! fixtures.)

use bench_model::{Finding, RunResults, Verdict, THRESHOLDS};

/// The rounds of the run saved in docs/results/`name`.
pub(super) fn saved_run(name: &str) -> RunResults {
    bench_model::fixtures::saved_run(name).results
}

/// The finding `id` of `run`, judged with today's thresholds.
pub(super) fn finding(run: &RunResults, id: &str) -> Finding {
    super::check(run, &THRESHOLDS)
        .into_iter()
        .find(|f| f.id == id)
        .unwrap()
}

/// The finding `id` of `run`, failing with its evidence unless this
/// build judges it `expected`.
#[track_caller]
pub(super) fn judged(run: &RunResults, id: &str, expected: Verdict) -> Finding {
    let f = finding(run, id);
    assert_eq!(f.verdict, expected, "{id}: {}", f.evidence);
    f
}

/// Fails, showing the whole evidence, unless `f`'s evidence holds `part`.
#[track_caller]
pub(super) fn assert_evidence_has(f: &Finding, part: &str) {
    assert!(f.evidence.contains(part), "no {part:?} in: {}", f.evidence);
}
