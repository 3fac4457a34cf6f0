//! The seeds' conclusions, and this project's own, each stated as a check on
//! this run's rounds.
//!
//! Every threshold lives in [`Thresholds`] and is printed with the report, so
//! a reader sees exactly what "within 15%" or "far below" meant. Each finding
//! names the columns it needs ([`ColumnId`]); one whose columns were not run
//! is NOT MEASURED, never silently dropped. A comparison is a ratio taken
//! round by round ([`crate::stats::ratios`]), and every round is judged
//! against the claim's line by the one rule of [`crate::verdict`]: HELD,
//! NOT HELD, INCONCLUSIVE, or for a comparison of two figures SAME.
//!
//! Each finding is of a kind: a prediction, which real data can fail, or
//! a design check, which confirms what the build guarantees (a thread count
//! a setting fixes, marks only marked code sets); the reports count the
//! predictions' verdicts and list the design checks apart.
//!
//! One module per family: the seeds' groups ([`seeds`]; their capacity
//! claims where the cores decide judged at equal load, [`equal_load`];
//! seed 000's under each of its bursts, [`bursts`]), saturated cores beside
//! /health on every model ([`neighbours`]), the Redis clients, tiny_http,
//! the stall detector, idle connections, the sweeps, virtual threads and
//! their pinning detector, the database drivers and the pool sweep, the
//! calibration against Tomcat and Netty, the real Loom against our virtual
//! threads; what they share is in
//! [`checks`].

mod bursts;
#[cfg(test)]
mod bursts_tests;
mod calibration;
mod checks;
mod database;
#[cfg(test)]
mod database_tests;
mod detector;
#[cfg(test)]
mod detector_tests;
mod equal_load;
#[cfg(test)]
mod equal_load_tests;
mod idle;
mod loom;
#[cfg(test)]
mod loom_tests;
mod meaning;
mod neighbours;
#[cfg(test)]
mod neighbours_tests;
mod pool_sweep;
mod redis_clients;
mod seeds;
mod sweeps;
#[cfg(test)]
mod test_runs;
mod tiny_http;
mod virtual_detector;
#[cfg(test)]
mod virtual_tests;
mod virtual_threads;

use bench_model::Verdict;
use bench_model::{ColumnId, FindingKind, RunResults};
use checks::{Ctx, Spec};

use bench_model::{Finding, Thresholds, THRESHOLDS};
pub use detector::{detector_observations, DetectorObservation, Half};
pub use meaning::meaning;
use meaning::meaning_judged;
pub use neighbours::neighbour_columns;
pub use tiny_http::{cold_start_call, cold_start_verdict};
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

/// Every finding's definition, in report order.
fn specs(t: &Thresholds) -> Vec<Spec> {
    seeds::specs(t)
        .into_iter()
        .chain(neighbours::specs(t))
        .chain(redis_clients::specs(t))
        .chain(tiny_http::specs(t))
        .chain(detector::specs(t))
        .chain(idle::specs(t))
        .chain(sweeps::specs(t))
        .chain(virtual_threads::specs(t))
        .chain(virtual_detector::specs(t))
        .chain(database::specs(t))
        .chain(pool_sweep::specs(t))
        .chain(calibration::specs(t))
        .chain(loom::specs(t))
        .collect()
}

/// Every finding of this build: its id, kind, and why it is of that kind.
pub fn kinds() -> Vec<(&'static str, FindingKind, &'static str)> {
    specs(&THRESHOLDS)
        .into_iter()
        .map(|s| (s.id, s.kind.finding_kind(), s.kind.reason()))
        .collect()
}

/// Findings a saved run may hold that this build no longer has, with their kinds.
pub const RETIRED: &[(&str, FindingKind)] = &[
    // Either half flagging the blocking routes: the counted marks alone
    // decided it.
    ("detector-flags-blocking-routes", FindingKind::DesignCheck),
    // Throughput claims on groups where the cores decide, which a closed
    // loop on a shared machine splits with the load generator: restated at
    // equal load (`*-cheaper-at-equal-load`, `db-spawn-blocking-close-at-equal-load`).
    ("db-async-driver-wins", FindingKind::Prediction),
    ("db-async-deadpool-wins", FindingKind::Prediction),
    ("db-async-pipelined-wins", FindingKind::Prediction),
    ("db-spawn-blocking-recovers", FindingKind::Prediction),
    ("cache-async-wins", FindingKind::Prediction),
    ("baseline-async-wins", FindingKind::Prediction),
    ("ramp-async-wins", FindingKind::Prediction),
    ("ramp-async-deadpool-wins", FindingKind::Prediction),
    ("ramp-async-pipelined-wins", FindingKind::Prediction),
];

/// The kind of `f`: as saved, or for a run saved before kinds this
/// build's kind of its id; `None` for an id this build never had.
pub fn kind_of(f: &Finding) -> Option<FindingKind> {
    f.kind.or_else(|| {
        kinds()
            .into_iter()
            .map(|(id, kind, _)| (id, kind))
            .chain(RETIRED.iter().copied())
            .find(|(id, _)| *id == f.id)
            .map(|(_, kind)| kind)
    })
}

/// The line each finding of `findings` was judged against: as saved, or
/// for a run saved before findings kept it, this build's line for its id
/// judged on the run's own rounds and thresholds (`None` where a finding
/// has none, or this build no longer has it).
pub fn lines_of(findings: &[Finding], results: &RunResults, t: &Thresholds) -> Vec<Option<f64>> {
    let again = if findings.iter().any(|f| f.line.is_none()) {
        check(results, t)
    } else {
        Vec::new()
    };
    findings
        .iter()
        .map(|f| {
            f.line
                .or_else(|| again.iter().find(|a| a.id == f.id).and_then(|a| a.line))
        })
        .collect()
}

/// Checks every conclusion against `results`.
pub fn check(results: &RunResults, t: &Thresholds) -> Vec<Finding> {
    let cx = Ctx { results };
    specs(t)
        .into_iter()
        .map(|spec| {
            let columns = spec.needs.of(results);
            let Some(o) = (spec.check)(&cx, t) else {
                return not_measured(spec, columns);
            };
            let zero = zero_success_words(results, &columns);
            Finding {
                id: spec.id.to_owned(),
                seed: spec.seed.to_owned(),
                kind: Some(spec.kind.finding_kind()),
                claim: spec.claim,
                verdict: o.verdict,
                interval: o.interval,
                line: o.line,
                evidence: o.evidence + &zero,
                short_evidence: o.short.map(|s| s + &zero).unwrap_or_default(),
                columns,
                meaning: meaning_judged(spec.id, o.verdict, o.why.as_ref()),
            }
        })
        .collect()
}

/// A finding whose columns were not run.
fn not_measured(spec: Spec, columns: Vec<ColumnId>) -> Finding {
    let verdict = Verdict::NotMeasured;
    Finding {
        id: spec.id.to_owned(),
        seed: spec.seed.to_owned(),
        kind: Some(spec.kind.finding_kind()),
        claim: spec.claim,
        verdict,
        interval: None,
        line: None,
        evidence: "not measured in this run".to_owned(),
        short_evidence: String::new(),
        columns,
        meaning: meaning(spec.id, verdict).unwrap_or_default().to_owned(),
    }
}

/// The rounds of `columns` in which no request succeeded, which a finding
/// counts at 0 requests per second: "; counted at 0 req/s: async-users
/// round 3 (10000 errors: connect 10000)", or nothing.
fn zero_success_words(results: &RunResults, columns: &[ColumnId]) -> String {
    let rounds: Vec<String> = results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .filter(|c| columns.contains(&c.id))
        .flat_map(|c| c.rounds.iter().map(move |r| (c, r)))
        .filter(|(_, r)| r.step.is_none() && r.load.ok_requests == 0)
        .map(|(c, r)| {
            let kinds: Vec<String> = r
                .load
                .errors_by_kind
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            format!(
                "{} round {} ({} errors: {})",
                c.id,
                r.round,
                r.load.errors,
                kinds.join(", ")
            )
        })
        .collect();
    if rounds.is_empty() {
        String::new()
    } else {
        format!(
            "; no request succeeded, counted at 0 req/s: {}",
            rounds.join("; ")
        )
    }
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
