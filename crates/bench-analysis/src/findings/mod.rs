//! The seeds' conclusions, and this project's own, each stated as a check on
//! this run's rounds.
//!
//! Every threshold lives in [`Thresholds`] and is printed with the report, so
//! a reader sees exactly what "within 15%" or "far below" meant. Each finding
//! names the columns it needs ([`ColumnId`]); one whose columns were not run
//! is NOT MEASURED, never silently dropped. A comparison is a ratio taken
//! round by round ([`crate::stats::ratio_spread`]) and judged on its whole
//! interval ([`crate::stats::verdict`]): HELD, NOT HELD or INCONCLUSIVE.
//!
//! One module per family: the seeds' groups ([`seeds`]), the Redis clients,
//! tiny_http, the stall detector, idle connections, the sweeps, virtual
//! threads and their pinning detector; what they share is in [`checks`].

mod checks;
mod detector;
#[cfg(test)]
mod detector_tests;
mod idle;
mod meaning;
mod redis_clients;
mod seeds;
mod sweeps;
mod tiny_http;
mod virtual_detector;
#[cfg(test)]
mod virtual_tests;
mod virtual_threads;

use bench_model::ColumnId;
use bench_model::RunResults;
use bench_model::Verdict;
use checks::Ctx;

use bench_model::{Finding, Thresholds};
pub use detector::{detector_observations, exact_flags_verdict, DetectorObservation, Half};
pub use meaning::meaning;
pub use tiny_http::cold_start_verdict;
pub use virtual_detector::{carrier_blocking_calls, carrier_stalls, virtual_observations};

/// The sentence of `f` for a reader: the one it was saved with, or this
/// build's for its id and verdict.
pub fn meaning_of(f: &Finding) -> Option<&str> {
    if f.meaning.is_empty() {
        meaning(&f.id, f.verdict)
    } else {
        Some(&f.meaning)
    }
}

/// Checks every conclusion against `results`.
pub fn check(results: &RunResults, t: &Thresholds) -> Vec<Finding> {
    let cx = Ctx { results };
    seeds::specs(t)
        .into_iter()
        .chain(redis_clients::specs(t))
        .chain(tiny_http::specs(t))
        .chain(detector::specs(t, results))
        .chain(idle::specs(t))
        .chain(sweeps::specs(t))
        .chain(virtual_threads::specs(t))
        .chain(virtual_detector::specs(t, results))
        .map(|spec| {
            let (interval, verdict, evidence) = match (spec.check)(&cx, t) {
                Some((interval, verdict, evidence)) => (Some(interval), verdict, evidence),
                None => (
                    None,
                    Verdict::NotMeasured,
                    "not measured in this run".to_owned(),
                ),
            };
            Finding {
                id: spec.id.to_owned(),
                seed: spec.seed.to_owned(),
                claim: spec.claim,
                verdict,
                interval,
                evidence,
                columns: spec.needs.clone(),
                meaning: meaning(spec.id, verdict).unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

/// The windows in which the machine was not quiet: (column id, round,
/// cores used by everything else).
pub fn busy_windows(results: &RunResults, t: &Thresholds) -> Vec<(ColumnId, u32, f64)> {
    results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .flat_map(|c| c.rounds.iter().map(move |r| (c, r)))
        .filter(|(_, r)| r.cpu.other_cores() > t.quiet_other_cores)
        .map(|(c, r)| (c.id, r.round, r.cpu.other_cores()))
        .collect()
}
