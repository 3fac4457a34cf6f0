//! Issue 22's findings on virtual threads (the pinning detector's are in
//! [`super::virtual_detector`]): past the 200-thread cap on the /posts/1
//! sweep; with the yielding driver the bottleneck moves to the Postgres
//! pool; the pinning driver caps at the carriers, at most half the
//! yielding driver's throughput, and delays /health beside it; and no OS
//! thread per idle connection.

use super::checks::{median, pct, where_the_cores_went, Ctx, Spec};
use super::Thresholds;
use crate::stats::{describe_ratio, ratio_spread, verdict, Side};
use crate::sweep::{self as sw, successful_rps};
use bench_model::{ColumnId, GroupId};
use bench_model::{ColumnResult, IdleCell, IdleRound, IdleStep, RoundResult};
use bench_model::{Spread, Verdict};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        past_thread_cap(t),
        yielding_reaches_pool(t),
        pinning_caps_at_carriers(t),
        pinning_half_of_yielding(t),
        pinning_delays_health(t),
        idle_no_threads(t),
    ]
}

/// The route the remote-database group loads, as `/metrics` labels it.
const USERS_ROUTE: &str = "/users/{id}";

/// 1. Virtual threads pass the blocking server's cap on /posts/1.
fn past_thread_cap(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "sweep-virtual-past-cap",
        seed: "none (issue 22: virtual threads are not capped by a thread count)",
        claim: format!(
            "on the /posts/1 sweep virtual threads pass the 200-thread cap: their plateau is at least {}x the blocking server's predicted cap (handler threads / 300 ms)",
            t.virtual_plateau_factor
        ),
        needs: vec![C::VirtualPostsSweep],
        check: Box::new(|cx, t| {
            let info = cx.sweep(GroupId::SweepPosts)?;
            let cap = info.cap?;
            let v = cx.col(C::VirtualPostsSweep)?;
            let per_round =
                sw::plateau_per_round(v, &info.steps, t.sweep_plateau_steps, successful_rps);
            let ratio = Spread::of(per_round.iter().map(|p| p.1 / cap.rps))?;
            let plateau = Spread::of(per_round.iter().map(|p| p.1))?;
            let mut top: Vec<String> = info
                .steps
                .iter()
                .rev()
                .take(t.sweep_plateau_steps.max(1))
                .map(ToString::to_string)
                .collect();
            top.reverse();
            Some((
                ratio,
                verdict(&ratio, Side::Above, t.virtual_plateau_factor, t.margin),
                format!(
                    "virtual-thread plateau {:.0} req/s (median over rounds of the median at {} connections) vs cap {:.0} req/s = {}",
                    plateau.median,
                    top.join(" and "),
                    cap.rps,
                    describe_ratio(&ratio)
                ),
            ))
        }),
    }
}

/// Successful requests per second of a round.
fn ok_rps(r: &RoundResult) -> Option<f64> {
    Some(r.load.successful_throughput_rps)
}

/// The Postgres pool's mean wait per checkout over a column's rounds, in words.
fn pool_wait_words(c: &ColumnResult) -> String {
    let pools: Vec<_> = c
        .rounds
        .iter()
        .filter_map(|r| r.detector.as_ref()?.pool("postgres"))
        .collect();
    let mean = Spread::of(pools.iter().filter_map(|p| p.mean_wait_ms()));
    let total = Spread::of(pools.iter().map(|p| p.wait_seconds));
    match (mean, total) {
        (Some(m), Some(s)) => format!(
            "the Postgres pool's wait: {:.2} ms per checkout, {:.2} s over the window (medians; pool_acquire_wait_seconds_total)",
            m.median, s.median
        ),
        _ => "the Postgres pool's wait not measured (no pool_acquire_wait_seconds_total)".into(),
    }
}

/// 2. With the yielding driver the pool is the bottleneck.
fn yielding_reaches_pool(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "remote-db-yielding-reaches-pool",
        seed: "none (issue 22: with virtual threads the bottleneck moves to the pool)",
        claim: format!(
            "with the yielding driver the bottleneck moves to the Postgres pool: in the remote-database group virtual threads serve at least {}x pool size / round trip successful requests per second",
            t.pool_bound_fraction
        ),
        needs: vec![C::VirtualYieldingUsersRemote],
        check: Box::new(|cx, t| {
            let y = cx.col(C::VirtualYieldingUsersRemote)?;
            let s = &cx.results.settings;
            let round_trip_ms = s.remote_db_round_trip_ms?;
            let bound = f64::from(s.db_pool_size) * 1000.0 / round_trip_ms.max(1e-6);
            let ratio = Spread::of(y.rounds.iter().filter_map(|r| Some(ok_rps(r)? / bound)))?;
            let verdict = verdict(&ratio, Side::Above, t.pool_bound_fraction, t.margin);
            // A prediction that did not come true says what held it back.
            let cores = match (verdict, crate::stats::median_round(y, ok_rps)) {
                (Verdict::Held, _) | (_, None) => String::new(),
                (_, Some(r)) => format!(
                    "; in its median round, {}",
                    where_the_cores_went(r, "server", cx.results.machine.cores as f64)
                ),
            };
            Some((
                ratio,
                verdict,
                format!(
                    "{:.0} req/s (median) vs pool {} / {round_trip_ms:.1} ms = {bound:.0} req/s: {}; {}{cores}",
                    median(y, ok_rps),
                    s.db_pool_size,
                    describe_ratio(&ratio),
                    pool_wait_words(y)
                ),
            ))
        }),
    }
}

/// 3a. The pinning driver caps at carriers / query time.
fn pinning_caps_at_carriers(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "remote-db-pinning-caps-at-carriers",
        seed: "none (issue 22: a driver that pins turns virtual threads back into N)",
        claim: format!(
            "the pinning driver caps at the carriers: in the remote-database group its successful throughput is within {} of carriers / query time (the time each query held its carrier, from the server's blocking-call marks)",
            pct(t.carrier_cap_within)
        ),
        needs: vec![C::VirtualPinningUsersRemote],
        check: Box::new(carrier_cap_outcome),
    }
}

/// [`pinning_caps_at_carriers`]'s check.
fn carrier_cap_outcome(cx: &Ctx<'_>, t: &Thresholds) -> Option<super::checks::Outcome> {
    let p = cx.col(ColumnId::VirtualPinningUsersRemote)?;
    let carriers = f64::from(cx.results.settings.virtual_carriers?);
    let query_ms = |r: &RoundResult| {
        r.detector
            .as_ref()?
            .route(USERS_ROUTE)?
            .ms_per_blocking_call()
    };
    let per_round: Vec<(f64, f64)> = p
        .rounds
        .iter()
        .filter_map(|r| Some((ok_rps(r)?, carriers * 1000.0 / query_ms(r)?)))
        .collect();
    let Some(off) = Spread::of(per_round.iter().map(|(got, cap)| (got / cap - 1.0).abs())) else {
        let rps = Spread::of(p.rounds.iter().filter_map(ok_rps))?;
        return Some((
            rps,
            Verdict::Inconclusive,
            format!(
                "{:.0} req/s (median), but no query time: the server's blocking-call marks were not read",
                rps.median
            ),
        ));
    };
    let cap = Spread::of(per_round.iter().map(|p| p.1))?;
    let query = Spread::of(p.rounds.iter().filter_map(query_ms))?;
    Some((
        off,
        verdict(&off, Side::Below, t.carrier_cap_within, t.margin),
        format!(
            "{:.0} req/s (median) vs {carriers:.0} carriers / {:.2} ms per query = {:.0} req/s (medians): off by {:.1}% ({:.1}-{:.1}% over {} rounds); round trip {}",
            median(p, ok_rps),
            query.median,
            cap.median,
            off.median * 100.0,
            off.min * 100.0,
            off.max * 100.0,
            off.n,
            cx.results
                .settings
                .remote_db_round_trip_ms
                .map_or("unknown".to_owned(), |ms| format!("{ms:.1} ms"))
        ),
    ))
}

/// 3b. Pinning serves at most half of yielding's throughput.
fn pinning_half_of_yielding(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "remote-db-pinning-half-of-yielding",
        seed: "none (issue 22: the pinning trap)",
        claim: format!(
            "in the remote-database group the pinning driver serves at most {}x the yielding driver's successful requests per second",
            t.pinning_share_of_yielding
        ),
        needs: vec![C::VirtualPinningUsersRemote, C::VirtualYieldingUsersRemote],
        check: Box::new(|cx, t| {
            let (p, y) = (
                cx.col(C::VirtualPinningUsersRemote)?,
                cx.col(C::VirtualYieldingUsersRemote)?,
            );
            let ratio = ratio_spread(p, y, ok_rps)?;
            Some((
                ratio,
                verdict(&ratio, Side::Below, t.pinning_share_of_yielding, t.margin),
                format!(
                    "{:.0} vs {:.0} req/s (pinning vs yielding, medians) = {}",
                    median(p, ok_rps),
                    median(y, ok_rps),
                    describe_ratio(&ratio)
                ),
            ))
        }),
    }
}

/// 3c. /health next to the pinning driver waits for a carrier.
fn pinning_delays_health(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "remote-mixed-pinning-delays-health",
        seed: "none (issue 22: a pinned carrier delays everyone on it)",
        claim: format!(
            "a pinning driver delays unrelated requests: with the database a round trip away, /health p99 next to /users/1 on the pinning driver is at least {}x its p99 next to the yielding driver",
            t.mixed_p99_factor
        ),
        needs: vec![
            C::VirtualPinningHealthNextToUsersRemote,
            C::VirtualYieldingHealthNextToUsersRemote,
        ],
        check: Box::new(|cx, t| {
            let (p, y) = (
                cx.col(C::VirtualPinningHealthNextToUsersRemote)?,
                cx.col(C::VirtualYieldingHealthNextToUsersRemote)?,
            );
            let p99 = |r: &RoundResult| Some(r.load.latency_ms.p99.max(0.001));
            let factor = ratio_spread(p, y, p99)?;
            Some((
                factor,
                verdict(&factor, Side::Above, t.mixed_p99_factor, t.margin),
                format!(
                    "/health p99 {:.1} ms vs {:.1} ms (pinning vs yielding, medians) = {}",
                    median(p, p99),
                    median(y, p99),
                    describe_ratio(&factor)
                ),
            ))
        }),
    }
}

/// The rounds of an idle server that opened all of `size` connections.
fn steps_at(cx: &Ctx<'_>, id: ColumnId, size: usize) -> Vec<(IdleRound, IdleStep)> {
    match cx.idle(id).map(|(s, _)| s.cell(size)) {
        Some(IdleCell::Measured(steps)) => steps
            .into_iter()
            .map(|(r, s)| (r.clone(), s.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// KiB above idle per connection at `server`'s largest size, in words.
fn kib_words(cx: &Ctx<'_>, id: ColumnId, name: &str) -> Option<String> {
    let (server, sizes) = cx.idle(id)?;
    let size = server.largest_measured(sizes)?;
    let kib = Spread::of(
        steps_at(cx, id, size)
            .iter()
            .filter_map(|(r, s)| s.kib_per_connection(&r.idle)),
    )?;
    Some(format!("{name} {:.1} KiB (at {size} open)", kib.median))
}

/// 4. Virtual threads hold no OS thread per idle connection.
fn idle_no_threads(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "idle-virtual-no-threads",
        seed: "none (issue 22: an idle connection is a parked coroutine)",
        claim: format!(
            "virtual threads hold no OS thread per idle keep-alive connection: with the largest size opened, at most {:.0} threads above idle; the report gives the resident memory per connection (coroutine stack and buffers) beside the event loop's and tiny_http's",
            t.idle_threads_allowance
        ),
        needs: vec![C::VirtualIdle],
        check: Box::new(|cx, t| {
            let (server, sizes) = cx.idle(C::VirtualIdle)?;
            let size = server.largest_measured(sizes)?;
            let steps = steps_at(cx, C::VirtualIdle, size);
            let above = Spread::of(steps.iter().map(|(r, s)| s.threads_above(&r.idle) as f64))?;
            let kib: Vec<String> = [
                (C::VirtualIdle, "virtual threads"),
                (C::AsyncIdle, "event loop"),
                (C::BlockingIdleTinyHttp, "tiny_http"),
            ]
            .into_iter()
            .filter_map(|(id, name)| kib_words(cx, id, name))
            .collect();
            Some((
                above,
                verdict(&above, Side::Below, t.idle_threads_allowance, t.margin),
                format!(
                    "{:+.0} threads with {size} open ({:+.0} to {:+.0} over {} rounds); per idle connection (medians): {}",
                    above.median,
                    above.min,
                    above.max,
                    above.n,
                    kib.join(", ")
                ),
            ))
        }),
    }
}
