//! Saturated cores and the requests beside them, on every model: the mixed
//! group's `/health` probe next to `/cpu` (the same background and probe
//! on each server) against its p99 next to a light neighbour of the same
//! model, and the thread pool against the event loop with the work inline.
//! The seeds blame the event loop alone; a thread pool's threads are
//! preempted, but the cores are as busy, and `/health` waits for one too.

use super::checks::{compare_columns, median, ratio_check, Compared};
use super::checks::{Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::Line;
use crate::verdict::Side;
use bench_model::figures::p99_ms;
use bench_model::ColumnId;

/// A p99 measured next to two loads: what real data can fail.
const NEXT_TO_TWO: Kind =
    Kind::Prediction("a p99 measured next to two loads, compared round by round");

/// Each model: its id's end, its words, /health next to /cpu, and next to
/// a light neighbour (a background that only waits: /posts/1's 300-ms
/// downstream; on virtual threads, where the matrix has no /posts/1 beside
/// /health, the yielding driver's read of a database a round trip away).
const MODELS: [(&str, &str, ColumnId, ColumnId); 3] = [
    (
        "saturated-cores-hurt-thread-pool",
        "the thread pool (200 handler threads, each preempted by the kernel)",
        ColumnId::BlockingHealthNextToCpu,
        ColumnId::BlockingHealthNextToPosts,
    ),
    (
        "saturated-cores-hurt-event-loop",
        "the event loop (the work inline on its workers)",
        ColumnId::AsyncHealthNextToCpu,
        ColumnId::AsyncHealthNextToPosts,
    ),
    (
        "saturated-cores-hurt-virtual-threads",
        "virtual threads (the work on the carriers, which never preempt it)",
        ColumnId::VirtualHealthNextToCpu,
        ColumnId::VirtualYieldingHealthNextToUsersRemote,
    ),
];

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    let mut out: Vec<Spec> = MODELS
        .iter()
        .map(|&(id, model, beside_cpu, light)| per_model(t, (id, model), beside_cpu, light))
        .collect();
    out.push(thread_pool_no_shield());
    out
}

/// The columns whose /health p99 says how one model's neighbours fare
/// beside saturated cores and beside a light neighbour: the column next
/// to /cpu first.
pub fn neighbour_columns() -> impl Iterator<Item = (&'static str, ColumnId, ColumnId)> {
    MODELS.iter().map(|&(id, _, cpu, light)| (id, cpu, light))
}

/// "Saturated cores hurt `model`'s neighbours": /health p99 next to /cpu
/// at least the factor times its p99 next to a light neighbour.
fn per_model(
    t: &Thresholds,
    (id, model): (&'static str, &str),
    cpu: ColumnId,
    light: ColumnId,
) -> Spec {
    Spec {
        id,
        seed: "beyond the seeds: saturated cores hurt the requests beside them on every model, not on the event loop alone",
        kind: NEXT_TO_TWO,
        claim: format!(
            "on {model}, /health p99 next to /cpu saturating the cores is at least {}x its p99 next to a light neighbour ({})",
            t.mixed_p99_factor,
            light_words(light)
        ),
        needs: Needs::Columns(vec![cpu, light]),
        check: Box::new(move |cx, t| {
            let (factor, evidence) = compare_columns(
                (cx.col(cpu)?, cx.col(light)?),
                Compared::HealthP99,
                ("column medians", &format!("next to {cpu} / next to {light}")),
                Line {
                    at: t.mixed_p99_factor,
                    margin: t.margin,
                },
            );
            // The event loop's own way out, shown beside its figure.
            let offloaded = cx
                .col(ColumnId::AsyncHealthNextToCpuRayon)
                .filter(|_| cpu == ColumnId::AsyncHealthNextToCpu)
                .map_or(String::new(), |c| {
                    format!("; with /cpu offloaded to rayon: /health p99 {:.1} ms", median(c, p99_ms))
                });
            Some(Outcome::compared(
                &factor,
                (Side::Above, t.mixed_p99_factor),
                t,
                evidence + &offloaded,
            ))
        }),
    }
}

/// The light neighbour, in words.
fn light_words(light: ColumnId) -> &'static str {
    match light {
        ColumnId::VirtualYieldingHealthNextToUsersRemote => {
            "/users/1 on the yielding driver, the database a round trip away"
        }
        _ => "/posts/1, a 300-ms downstream wait",
    }
}

/// The thread pool against the event loop with the work inline, beside
/// the same /cpu: do preempted threads keep /health faster?
fn thread_pool_no_shield() -> Spec {
    let pair = (
        ColumnId::BlockingHealthNextToCpu,
        ColumnId::AsyncHealthNextToCpu,
    );
    Spec {
        id: "saturated-cores-thread-pool-no-shield",
        seed: "beyond the seeds: does a thread pool shield the requests beside saturated cores better than an event loop?",
        kind: NEXT_TO_TWO,
        claim: "next to /cpu saturating the cores, the thread pool keeps /health no faster than the event loop with the work inline: its /health p99 is at least the event loop's".into(),
        needs: Needs::both(pair),
        check: ratio_check(
            pair,
            Compared::HealthP99,
            ("thread pool vs event loop, column medians", "thread pool / event loop"),
            (Side::Above, |_| 1.0),
        ),
    }
}
