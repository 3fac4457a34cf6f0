//! What the findings' unit tests share: a run saved under docs/results,
//! read as bench reads it, one finding of a run as this build judges it,
//! and the check of a part of its evidence. (Runs built from fixed
//! figures are bench-model's fixtures.)

use std::path::Path;

use bench_model::{Finding, RunResults, SavedRun, THRESHOLDS};

/// The rounds of the run saved in docs/results/`name`.
pub(super) fn saved_run(name: &str) -> RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/results")
        .join(name)
        .join("results.json");
    let text = std::fs::read_to_string(&path).unwrap();
    SavedRun::from_json(&text, name).unwrap().results
}

/// The finding `id` of `run`, judged with today's thresholds.
pub(super) fn finding(run: &RunResults, id: &str) -> Finding {
    super::check(run, &THRESHOLDS)
        .into_iter()
        .find(|f| f.id == id)
        .unwrap()
}

/// Fails, showing the whole evidence, unless `f`'s evidence holds `part`.
#[track_caller]
pub(super) fn assert_evidence_has(f: &Finding, part: &str) {
    assert!(f.evidence.contains(part), "no {part:?} in: {}", f.evidence);
}
