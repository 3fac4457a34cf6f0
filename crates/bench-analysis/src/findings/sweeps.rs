//! The concurrency sweeps' findings: the blocking server's plateau at
//! Little's law's cap, async past it, and where async overtakes on a
//! database read.

use super::checks::{pct, where_the_cores_went, Ctx, Spec};
use super::Thresholds;
use crate::stats::{describe_ratio, verdict, Side};
use crate::sweep::{self as sw, successful_rps};
use bench_model::Spread;
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

/// "1600 and 3200" for the top `n` steps.
fn top_steps(info: &SweepInfo, n: usize) -> String {
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

/// Per step, `a`'s successful throughput over `b`'s, round by round.
fn step_ratios(a: &ColumnResult, b: &ColumnResult, info: &SweepInfo) -> Vec<(usize, Spread)> {
    info.steps
        .iter()
        .filter_map(|&n| Some((n, sw::step_ratio(a, b, n, successful_rps)?)))
        .collect()
}

/// Where `a` first beat `b` by more than the margin, or that it never did
/// and what the machine was doing at the top step (CPU-bound or not).
fn crossover_words(
    cx: &Ctx<'_>,
    a: &ColumnResult,
    ratios: &[(usize, Spread)],
    margin: f64,
) -> String {
    let list: Vec<String> = ratios
        .iter()
        .map(|(n, r)| format!("{n}: {:.2}x", r.median))
        .collect();
    let per_step = format!("async/blocking per step (medians) {}", list.join(", "));
    match sw::crossover(ratios, margin) {
        Some(n) => format!(
            "async first beats blocking by more than {} in every round at {n} connections, and at every step above; {per_step}",
            pct(margin)
        ),
        None => {
            let cores = cx.results.machine.cores as f64;
            let why = ratios
                .last()
                .and_then(|(n, _)| Some((*n, sw::at_step(a, *n).next()?)))
                .map_or_else(
                    || "no step measured both".to_owned(),
                    |(n, r)| {
                        format!(
                            "at {n} connections, {}",
                            where_the_cores_went(r, "async server", cores)
                        )
                    },
                );
            format!(
                "async never beat blocking by more than {} in every round from one step through the highest ({why}); {per_step}",
                pct(margin)
            )
        }
    }
}

/// The blocking server's plateau on /posts/1 sits at its predicted cap.
pub(super) fn blocking_plateau_at_cap(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-blocking-plateau-at-cap",
            seed: "none (issue 9: Little's law for a thread per request)",
            claim: format!(
                "the blocking server's throughput plateau on /posts/1 (300 ms) is within {} of its predicted cap, handler threads / 300 ms",
                pct(t.sweep_cap_within)
            ),
            needs: vec![C::BlockingPostsSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let b = cx.col(C::BlockingPostsSweep)?;
                let per_round = sw::plateau_per_round(b, &info.steps, t.sweep_plateau_steps, successful_rps);
                let plateau = Spread::of(per_round.iter().map(|p| p.1))?;
                let off = Spread::of(per_round.iter().map(|p| (p.1 / cap.rps - 1.0).abs()))?;
                Some((
                    off,
                    verdict(&off, Side::Below, t.sweep_cap_within, t.margin),
                    format!(
                        "plateau {:.0} req/s (median over rounds of the median at {} connections; rounds {:.0}-{:.0}) vs cap {:.0} req/s ({} threads / {:.0} ms): off by {:.1}% ({:.1}-{:.1}% over {} round{})",
                        plateau.median,
                        top_steps(info, t.sweep_plateau_steps),
                        plateau.min,
                        plateau.max,
                        cap.rps,
                        cap.handler_threads,
                        cap.latency_ms,
                        off.median * 100.0,
                        off.min * 100.0,
                        off.max * 100.0,
                        off.n,
                        if off.n == 1 { "" } else { "s" }
                    ),
                ))
            }),
    }
}

/// The async server's plateau on /posts/1 goes past the blocking cap.
pub(super) fn async_past_cap(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-async-past-cap",
            seed: "none (issue 9: an event loop is not capped by a thread count)",
            claim: "the async server's plateau on /posts/1 goes past the blocking server's predicted cap; the report names the step from which async beats blocking by more than the margin".into(),
            needs: vec![C::AsyncPostsSweep, C::BlockingPostsSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let (a, b) = (cx.col(C::AsyncPostsSweep)?, cx.col(C::BlockingPostsSweep)?);
                let per_round = sw::plateau_per_round(a, &info.steps, t.sweep_plateau_steps, successful_rps);
                let ratio = Spread::of(per_round.iter().map(|p| p.1 / cap.rps))?;
                let plateau = Spread::of(per_round.iter().map(|p| p.1))?;
                let ratios = step_ratios(a, b, info);
                Some((
                    ratio,
                    verdict(&ratio, Side::Above, 1.0, t.margin),
                    format!(
                        "async plateau {:.0} req/s (at {} connections) vs cap {:.0} req/s = {}; {}",
                        plateau.median,
                        top_steps(info, t.sweep_plateau_steps),
                        cap.rps,
                        describe_ratio(&ratio),
                        crossover_words(cx, a, &ratios, t.margin)
                    ),
                ))
            }),
    }
}

/// On /users/1, async beats blocking from some concurrency on.
pub(super) fn users_async_crossover(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "sweep-users-async-crossover",
            seed: "none (issue 9: where each model wins on a database read)",
            claim: "on /users/1, async (sqlx) serves more successful requests per second than blocking by more than the margin from some concurrency of the sweep on, at every step up to its highest".into(),
            needs: vec![C::AsyncUsersSweep, C::BlockingUsersSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepUsers)?;
                let (a, b) = (cx.col(C::AsyncUsersSweep)?, cx.col(C::BlockingUsersSweep)?);
                let ratios = step_ratios(a, b, info);
                let at = sw::crossover(&ratios, t.margin)
                    .and_then(|n| ratios.iter().find(|r| r.0 == n))
                    .or(ratios.last())?;
                Some((
                    at.1,
                    sw::crossover_verdict(&ratios, t.margin),
                    crossover_words(cx, a, &ratios, t.margin),
                ))
            }),
    }
}
