//! A group's equal-load windows, after its own rounds: the rate is a
//! share of the lowest throughput its ranked columns reached in those
//! rounds ([`bench_analysis::equal_load::rate`]); then every ranked
//! column is loaded at that rate, open model, once per round, each round
//! on a fresh server warmed up at the same rate first, the order rotated
//! between rounds like any other ([`super::rounds`]). A column that could
//! not set a rate (nothing succeeded) still gets its windows.

use super::launch::{Launch, RoundServer};
use super::rounds::{every_column_round, ColumnRound, Measured};
use super::window::{measure_round, RoundLoad};
use super::Ctx;
use crate::measure::jvm_warm_up::warm_up_jvm;
use crate::measure::load::ColumnError;
use crate::measure::open_load::run_open;
use crate::plan::{Column, EqualLoadPlan, GroupPlan};
use bench_analysis::equal_load::{is_ranked, rate, Rate};
use bench_model::figures::{
    load_generator_cpu_us_per_request, server_cpu_us_per_request, successful_rps,
};
use bench_model::{ColumnResult, EqualLoad, RoundResult};

/// The equal-load windows of `group`, whose own rounds gave `closed`;
/// `kept` is shown the windows so far after each column round. `None`
/// when no ranked column served anything, so that there is no rate.
pub(super) fn measure_equal_load(
    group: &GroupPlan,
    plan: &EqualLoadPlan,
    closed: &[ColumnResult],
    cx: &Ctx<'_>,
    mut kept: impl FnMut(&EqualLoad),
) -> anyhow::Result<Option<EqualLoad>> {
    let Some(rate) = rate(closed, plan.share) else {
        cx.progress.say(
            "  no equal-load windows: no column that does not block by design served a request",
        );
        return Ok(None);
    };
    let ranked: Vec<&Column> = group
        .group
        .columns
        .iter()
        .zip(closed)
        .filter(|(_, c)| is_ranked(c))
        .map(|(column, _)| column)
        .collect();
    let mut load = EqualLoad {
        share: plan.share,
        rate_rps: rate.rate_rps,
        lowest: rate.lowest,
        lowest_rps: rate.lowest_rps,
        window_seconds: plan.window.as_secs_f64(),
        warm_up_seconds: plan.warm_up.unwrap_or_default().as_secs_f64(),
        columns: ranked
            .iter()
            .map(|c| c.empty_result(cx.options.paths))
            .collect(),
    };
    cx.progress.say(&format!(
        "  at an equal load: {}, {} column{} in {} round{}",
        load.rate_words(),
        ranked.len(),
        if ranked.len() == 1 { "" } else { "s" },
        plan.rounds,
        if plan.rounds == 1 { "" } else { "s" },
    ));
    let measure = |at: &ColumnRound<'_>| {
        let column = ranked[at.column];
        let server = cx.launch.start_column(column)?;
        let r = equal_load_round((cx.launch, &server), cx, column, (plan, rate), at);
        server.kill();
        let r = r?;
        Ok(Measured {
            lines: vec![round_line(at, &r, rate.rate_rps)],
            rounds: vec![r],
        })
    };
    let shown = load.clone();
    let keep = |so_far: &[ColumnResult]| {
        kept(&EqualLoad {
            columns: so_far.to_vec(),
            ..shown.clone()
        })
    };
    every_column_round(&mut load.columns, plan.rounds, (cx.progress, keep), measure)?;
    Ok(Some(load))
}

/// One column round at the rate on `server`, started for it: the JVM's
/// warm-up on a Java server, then the rate for the warm-up's length, then
/// the window.
fn equal_load_round(
    (launch, server): (&Launch, &RoundServer),
    cx: &Ctx<'_>,
    column: &Column,
    (plan, rate): (&EqualLoadPlan, Rate),
    at: &ColumnRound<'_>,
) -> Result<RoundResult, ColumnError> {
    let options = cx.options;
    let warm = |addr| {
        let jvm = warm_up_jvm(addr, column, options)?;
        if let Some(length) = plan.warm_up {
            run_open(addr, column, (rate.rate_rps, length), options)?;
        }
        Ok(jvm)
    };
    let window = |addr, starts: &mut dyn FnMut()| {
        starts();
        Ok((
            run_open(addr, column, (rate.rate_rps, plan.window), options)?,
            None,
        ))
    };
    let how = RoundLoad {
        warm_up: &warm,
        window: &window,
    };
    measure_round((launch, server), column, &how, (at.round, at.position))
}

/// One equal-load round's progress line: the rate it reached of the
/// target, the server's and the load generator's CPU per request, p99.
fn round_line(at: &ColumnRound<'_>, r: &RoundResult, rate_rps: f64) -> String {
    let us = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.2} us"));
    let achieved = successful_rps(r).unwrap_or(0.0);
    format!(
        "  [{}/{}] {} at equal load: {achieved:.0} req/s ({:.1}% of the rate), server CPU {} per request, load generator {}, p99 {:.2} ms, {} errors",
        at.round,
        at.of,
        at.label,
        achieved / rate_rps * 100.0,
        us(server_cpu_us_per_request(r)),
        us(load_generator_cpu_us_per_request(r)),
        r.load.latency_ms.p99,
        r.load.errors
    )
}
