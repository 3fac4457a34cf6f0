//! The seeds' capacity claims on the groups where the cores decide,
//! restated as what a shared machine can measure fairly. "Async serves
//! more requests per second" was measured as a closed loop's throughput,
//! which on shared cores is partly the load generator's: its CPU per
//! request depends on the server it drives. On a dedicated server,
//! capacity is cores / server CPU per request, so each claim here is
//! judged on server CPU per request at one arrival rate for every column
//! ([`bench_model::EqualLoad`]), round by round, with the capacity it
//! implies, p99 at that rate, the load generator's cost and the closed
//! loop's throughput (shared with the client) beside it.

use super::checks::{median, Check, Ctx, Kind, Outcome};
use super::Thresholds;
use crate::stats::{ratio_words, ratios, Line};
use crate::verdict::Side;
use bench_model::figures::{
    load_generator_cpu_us_per_request, p99_ms, server_cpu_us_per_request, successful_rps,
};
use bench_model::{ColumnId, ColumnResult, EqualLoad, Spread};

/// The kind of every finding judged at equal load.
pub(super) const KIND: Kind = Kind::Prediction(
    "two columns' server CPU per request at one arrival rate, compared round by round",
);

/// The seeds of the database lesson judged per async driver, restated.
pub(super) const RESTATED_PER_DRIVER: &str = "seeds 000, 001 and 002 (judged per async driver; their throughput claim restated: on a dedicated server, capacity is cores / server CPU per request)";

/// One column's equal-load windows and its group's equal load.
struct AtEqualLoad<'a> {
    id: ColumnId,
    load: &'a EqualLoad,
    windows: &'a ColumnResult,
}

/// Column `id`'s equal-load windows, when its group has them.
fn at_equal_load<'a>(cx: &Ctx<'a>, id: ColumnId) -> Option<AtEqualLoad<'a>> {
    cx.results
        .groups
        .iter()
        .filter_map(|g| g.equal_load.as_ref())
        .find_map(|load| {
            Some(AtEqualLoad {
                id,
                load,
                windows: load.column(id)?,
            })
        })
}

/// `b`'s server CPU per request over `a`'s, round by round: `a`'s capacity
/// on a dedicated server relative to `b`'s.
fn capacity_ratios(a: &AtEqualLoad<'_>, b: &AtEqualLoad<'_>) -> Vec<f64> {
    ratios(b.windows, a.windows, server_cpu_us_per_request)
}

/// What the two columns' windows say beside the judged ratio: the
/// rate, each one's server CPU per request, and after `judged` the
/// capacity on a dedicated server of the run's cores, p99 at the rate, the
/// load generator's CPU per request, and the closed loop's throughput.
/// The whole evidence, and the short one for a table.
fn evidence(
    cx: &Ctx<'_>,
    (a, b): (&AtEqualLoad<'_>, &AtEqualLoad<'_>),
    judged: &str,
) -> (String, String) {
    let us = |c: &AtEqualLoad<'_>| median(c.windows, server_cpu_us_per_request);
    let cores = cx.results.machine.cores.max(1) as f64;
    let closed = |c: &AtEqualLoad<'_>| cx.col(c.id).map_or(f64::NAN, |c| median(c, successful_rps));
    let short = format!(
        "at {}: server CPU {:.2} vs {:.2} us per request (column medians); {judged}; on a dedicated {cores:.0}-core server (cores / CPU per request) {:.0} vs {:.0} req/s",
        a.load.rate_words(),
        us(a),
        us(b),
        cores * 1e6 / us(a),
        cores * 1e6 / us(b),
    );
    let whole = format!(
        "{short}; p99 at the rate {:.2} vs {:.2} ms; the load generator {:.2} vs {:.2} us per request; closed loop, shared with the load generator: {:.0} vs {:.0} req/s",
        median(a.windows, p99_ms),
        median(b.windows, p99_ms),
        median(a.windows, load_generator_cpu_us_per_request),
        median(b.windows, load_generator_cpu_us_per_request),
        closed(a),
        closed(b),
    );
    (whole, short)
}

/// "`a` spends less server CPU per request than `b` at equal load": `a`'s
/// CPU per request over `b`'s below 1, round by round.
pub(super) fn cheaper(a: ColumnId, b: ColumnId) -> Check {
    Box::new(move |cx, t| {
        let (ca, cb) = (at_equal_load(cx, a)?, at_equal_load(cx, b)?);
        let per_round = ratios(ca.windows, cb.windows, server_cpu_us_per_request);
        let line = Line {
            at: 1.0,
            margin: t.margin,
        };
        let judged = format!("{a} / {b}: {}", ratio_words(&per_round, Some(line)));
        Some(judged_with(
            evidence(cx, (&ca, &cb), &judged),
            &per_round,
            (Side::Below, 1.0),
            t,
        ))
    })
}

/// "`a` comes within `offload_within` of `b`'s capacity on a dedicated
/// server": `b`'s CPU per request over `a`'s at equal load above 1 less it.
pub(super) fn within_capacity(a: ColumnId, b: ColumnId) -> Check {
    Box::new(move |cx, t| {
        let (ca, cb) = (at_equal_load(cx, a)?, at_equal_load(cx, b)?);
        let per_round = capacity_ratios(&ca, &cb);
        let line = (Side::Above, 1.0 - t.offload_within);
        let judged = format!(
            "capacity {a} / {b} ({b}'s CPU per request over {a}'s): {}",
            ratio_words(
                &per_round,
                Some(Line {
                    at: line.1,
                    margin: t.margin
                })
            )
        );
        Some(judged_with(
            evidence(cx, (&ca, &cb), &judged),
            &per_round,
            line,
            t,
        ))
    })
}

/// The evidence `(whole, short)`, judged by the one rule on `per_round`
/// against `line`.
fn judged_with(
    (whole, short): (String, String),
    per_round: &[f64],
    line: (Side, f64),
    t: &Thresholds,
) -> Outcome {
    Outcome::compared(per_round, line, t, whole).with_short(short)
}

/// One async driver of a group: its name, its column and its finding's id.
pub(super) type Driver = (&'static str, ColumnId, &'static str);

/// "`column` spends less server CPU per request than `blocking` at equal
/// load", the evidence naming every async driver of `drivers` the run
/// measured against blocking and the cheapest, the one that makes the
/// difference.
pub(super) fn cheaper_naming_the_driver(
    column: ColumnId,
    blocking: ColumnId,
    drivers: &'static [Driver],
) -> Check {
    let ratio = cheaper(column, blocking);
    Box::new(move |cx, t| {
        let outcome = ratio(cx, t)?;
        let words = every_driver_words(cx, blocking, drivers);
        Some(Outcome {
            evidence: outcome.evidence + &words,
            ..outcome
        })
    })
}

/// "; every async driver's server CPU per request / blocking's at equal
/// load (medians of the per-round ratios): sqlx 0.95x, deadpool 0.88x,
/// pipelined 0.60x; the one that makes the difference: pipelined", or
/// nothing when the run has one of them only.
fn every_driver_words(cx: &Ctx<'_>, blocking: ColumnId, drivers: &[Driver]) -> String {
    let Some(b) = at_equal_load(cx, blocking) else {
        return String::new();
    };
    let each: Vec<(&str, f64)> = drivers
        .iter()
        .filter_map(|(name, id, _)| {
            let c = at_equal_load(cx, *id)?;
            let per_round = ratios(c.windows, b.windows, server_cpu_us_per_request);
            Some((*name, Spread::of(per_round)?.median))
        })
        .collect();
    let Some(cheapest) = each.iter().min_by(|x, y| x.1.total_cmp(&y.1)) else {
        return String::new();
    };
    if each.len() < 2 {
        return String::new();
    }
    let list: Vec<String> = each
        .iter()
        .map(|(name, m)| format!("{name} {m:.2}x"))
        .collect();
    format!(
        "; every async driver's server CPU per request / blocking's at equal load (medians of the per-round ratios): {}; the one that makes the difference: {}",
        list.join(", "),
        cheapest.0
    )
}
