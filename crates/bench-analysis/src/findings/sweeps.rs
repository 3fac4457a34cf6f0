//! The concurrency sweeps' findings: the blocking server's plateau at
//! Little's law's cap, async past it, and where async overtakes on a
//! database read.

use super::checks::{pct, where_the_cores_went, Ctx, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratio_words, share_words, Line};
use crate::sweep as sw;
use crate::verdict::Side;
use bench_model::figures::successful_rps;
use bench_model::{ColumnId, GroupId};
use bench_model::{ColumnResult, SweepInfo};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        blocking_plateau_at_cap(t),
        async_past_cap(t),
        users_async_crossover(t),
    ]
}

/// What a column's throughput is at the top steps of a sweep, in words:
/// "plateau (at 1600 and 3200 connections)", or where those steps do not
/// agree within the margin "top steps (1600 and 3200 connections: still
/// rising, no plateau)" ([`sw::top_of`]).
pub(super) fn plateau_words(c: &ColumnResult, info: &SweepInfo, t: &Thresholds) -> String {
    let steps = top_steps(info, t.sweep_plateau_steps);
    let shape = sw::top_of(
        c,
        &info.steps,
        (t.sweep_plateau_steps, t.margin),
        (successful_rps, successful_rps),
    )
    .and_then(|top| top.shape.words());
    match shape {
        Some(words) => format!("top steps ({steps} connections: {words}, no plateau)"),
        None => format!("plateau (at {steps} connections)"),
    }
}

/// "1600 and 3200" for the top `n` steps.
pub(super) fn top_steps(info: &SweepInfo, n: usize) -> String {
    let mut top: Vec<String> = info
        .steps
        .iter()
        .rev()
        .take(n.max(1))
        .map(|s| s.to_string())
        .collect();
    top.reverse();
    top.join(" and ")
}

/// "async/blocking per step (medians over rounds) 50: 1.00x, ...".
fn per_step_words(a: &ColumnResult, b: &ColumnResult, info: &SweepInfo) -> String {
    let list: Vec<String> = info
        .steps
        .iter()
        .filter_map(|&n| {
            let r = sw::step_ratio(a, b, n, successful_rps)?;
            Some(format!("{n}: {:.2}x", r.median))
        })
        .collect();
    format!(
        "async/blocking per step (medians over rounds) {}",
        list.join(", ")
    )
}

/// Each round's crossover in words: "crossover per round: from 400, from
/// 400, none".
fn crossovers_words(per_round: &[(u32, Vec<(usize, f64)>)], margin: f64) -> String {
    let each: Vec<String> = per_round
        .iter()
        .map(|(_, ratios)| match sw::crossover(ratios, margin) {
            Some(n) => format!("from {n}"),
            None => "none".to_owned(),
        })
        .collect();
    format!(
        "crossover (async ahead by more than {} from that step to the highest, over {} steps or more) per round: {}",
        pct(margin),
        sw::CROSSOVER_MIN_STEPS,
        each.join(", ")
    )
}

/// What the machine was doing at the top step of `a`'s sweep, for a round
/// without a crossover (CPU-bound or not).
fn top_step_cores(cx: &Ctx<'_>, a: &ColumnResult, info: &SweepInfo) -> String {
    let cores = cx.results.machine.cores as f64;
    info.steps
        .last()
        .and_then(|n| Some((*n, sw::at_step(a, *n).next()?)))
        .map_or_else(
            || "no step measured".to_owned(),
            |(n, r)| {
                format!(
                    "at {n} connections, {}",
                    where_the_cores_went(r, "async server", cores)
                )
            },
        )
}

/// The blocking server's plateau on /posts/1 sits at its predicted cap.
pub(super) fn blocking_plateau_at_cap(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-blocking-plateau-at-cap",
            seed: "beyond the seeds: Little's law for a thread per request",
            kind: Kind::DesignCheck("handler threads held by a fixed 300-ms sleep: the cap is arithmetic on two settings, which only a machine out of cores could miss"),
            claim: format!(
                "the blocking server's throughput plateau on /posts/1 (300 ms) is within {} of its predicted cap, handler threads / 300 ms",
                pct(t.sweep_cap_within)
            ),
            needs: Needs::Columns(vec![C::BlockingPostsSweep]),
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let b = cx.col(C::BlockingPostsSweep)?;
                let per_round = sw::plateau_per_round(b, &info.steps, t.sweep_plateau_steps, successful_rps);
                let off: Vec<f64> = per_round.iter().map(|p| (p.1 / cap.rps - 1.0).abs()).collect();
                let plateaus: Vec<String> = per_round.iter().map(|p| format!("{:.0}", p.1)).collect();
                let evidence = format!(
                    "{} per round {} req/s (each the median at those steps) vs cap {:.0} req/s ({} threads / {:.0} ms): off by {}",
                    plateau_words(b, info, t),
                    plateaus.join(", "),
                    cap.rps,
                    cap.handler_threads,
                    cap.latency_ms,
                    share_words(&off)
                );
                Some(Outcome::judged(&off, (Side::Below, t.sweep_cap_within), t, evidence))
            }),
    }
}

/// The async server's plateau on /posts/1 goes past the blocking cap.
pub(super) fn async_past_cap(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-async-past-cap",
            seed: "beyond the seeds: an event loop is not capped by a thread count",
            kind: Kind::DesignCheck("a timer holds no thread, so no thread count caps it; the line, the blocking server's cap, is far below what the cores allow"),
            claim: "the async server's plateau on /posts/1 goes past the blocking server's predicted cap; the report names each round's step from which async beats blocking by more than the margin".into(),
            needs: Needs::Columns(vec![C::AsyncPostsSweep, C::BlockingPostsSweep]),
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let (a, b) = (cx.col(C::AsyncPostsSweep)?, cx.col(C::BlockingPostsSweep)?);
                let per_round = sw::plateau_per_round(a, &info.steps, t.sweep_plateau_steps, successful_rps);
                let ratio: Vec<f64> = per_round.iter().map(|p| p.1 / cap.rps).collect();
                let rounds = sw::round_step_ratios(a, b, &info.steps, successful_rps);
                let line = Some(Line { at: 1.0, margin: t.margin });
                let short = format!(
                    "async plateau / cap {:.0} req/s: {}",
                    cap.rps,
                    ratio_words(&ratio, line)
                );
                let evidence = format!(
                    "async {} / cap {:.0} req/s: {}; {}; {}",
                    plateau_words(a, info, t),
                    cap.rps,
                    ratio_words(&ratio, line),
                    crossovers_words(&rounds, t.margin),
                    per_step_words(a, b, info)
                );
                Some(Outcome::judged(&ratio, (Side::Above, 1.0), t, evidence).with_short(short))
            }),
    }
}

/// On /users/1, async beats blocking from some concurrency on.
pub(super) fn users_async_crossover(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-users-async-crossover",
            seed: "beyond the seeds: where each model wins on a database read",
            kind: Kind::Prediction("two servers' measured throughput compared at each step of a sweep"),
            claim: format!("on /users/1, each model on its Spring default's analogue, the event loop (deadpool-postgres: r2dbc-pool's exclusive checkout without a round trip) serves more successful requests per second than the thread pool (the sync driver in a pool of HikariCP's size) by more than the margin from some concurrency of the sweep on, at every step up to its highest: in each round, a crossover spanning at least {} steps", sw::CROSSOVER_MIN_STEPS),
            needs: Needs::Columns(vec![C::AsyncUsersDeadpoolSweep, C::BlockingUsersSweep]),
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepUsers)?;
                let (a, b) = (cx.col(C::AsyncUsersDeadpoolSweep)?, cx.col(C::BlockingUsersSweep)?);
                let rounds = sw::round_step_ratios(a, b, &info.steps, successful_rps);
                if rounds.iter().all(|(_, r)| r.is_empty()) {
                    return None;
                }
                // The interval: each round's ratio at the highest step, which
                // every crossover includes.
                let top: Vec<f64> = rounds.iter().filter_map(|(_, r)| r.last().map(|x| x.1)).collect();
                let calls = rounds.iter().map(|(_, r)| sw::crossover_call(r, t.margin));
                let crossed = rounds.iter().all(|(_, r)| sw::crossover(r, t.margin).is_some());
                let why = if crossed {
                    String::new()
                } else {
                    format!(" ({})", top_step_cores(cx, a, info))
                };
                let short = format!("{}{why}", crossovers_words(&rounds, t.margin));
                let evidence = format!("{short}; {}", per_step_words(a, b, info));
                Some(Outcome::of_calls(&top, calls, evidence).with_short(short))
            }),
    }
}
