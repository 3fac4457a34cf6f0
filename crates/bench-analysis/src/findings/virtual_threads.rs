//! The findings on virtual threads (the pinning detector's are in
//! [`super::virtual_detector`]): past the 200-thread cap on the /posts/1
//! sweep; with the yielding driver the bottleneck moves to the Postgres
//! pool; the pinning driver caps at the carriers (predicted from another
//! window's query time), at most half the yielding driver's throughput,
//! and delays /health beside it; and no OS thread per idle connection.

use super::checks::{median, pct, ratio_check, where_the_cores_went, Compared};
use super::checks::{Ctx, Kind, Needs, Outcome, Spec};
use super::idle::{at_largest, threads_above_at_largest};
use super::Thresholds;
use crate::stats::{ratio_words, share_words, Line};
use crate::sweep as sw;
use crate::verdict::{Call, Side};
use bench_model::figures::{delivered_round_trip_ms, successful_rps};
use bench_model::Spread;
use bench_model::{ColumnId, GroupId};
use bench_model::{ColumnResult, RoundResult};

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

/// How evidence names the two drivers compared: whose medians, which ratio.
const PINNING_VS_YIELDING: (&str, &str) =
    ("pinning vs yielding, column medians", "pinning / yielding");

/// 1. Virtual threads pass the blocking server's cap on /posts/1.
fn past_thread_cap(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "sweep-virtual-past-cap",
        seed: "beyond the seeds: virtual threads are not capped by a thread count",
        kind: Kind::DesignCheck("a sleeping coroutine is parked, not a thread: no thread count caps it, and the line is far below what the cores allow"),
        claim: format!(
            "on the /posts/1 sweep virtual threads pass the 200-thread cap: their plateau is at least {}x the blocking server's predicted cap (handler threads / 300 ms)",
            t.virtual_plateau_factor
        ),
        needs: Needs::Columns(vec![C::VirtualPostsSweep]),
        check: Box::new(|cx, t| {
            let info = cx.sweep(GroupId::SweepPosts)?;
            let cap = info.cap?;
            let v = cx.col(C::VirtualPostsSweep)?;
            let per_round =
                sw::plateau_per_round(v, &info.steps, t.sweep_plateau_steps, successful_rps);
            let ratio: Vec<f64> = per_round.iter().map(|p| p.1 / cap.rps).collect();
            let evidence = format!(
                "virtual-thread {} / cap {:.0} req/s: {}",
                super::sweeps::plateau_words(v, info, t),
                cap.rps,
                ratio_words(&ratio, Some(Line { at: t.virtual_plateau_factor, margin: t.margin }))
            );
            Some(Outcome::judged(
                &ratio,
                (Side::Above, t.virtual_plateau_factor),
                t,
                evidence,
            ))
        }),
    }
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
        seed: "beyond the seeds: with virtual threads the bottleneck moves to the pool",
        kind: Kind::Prediction("measured throughput against a line from the pool size and the proxy's round trip"),
        claim: format!(
            "with the yielding driver the bottleneck moves to the Postgres pool: in the remote-database group virtual threads serve at least {}x pool size / round trip successful requests per second, the round trip the one the proxy delivered in the window (the setting in a run that did not read it)",
            t.pool_bound_fraction
        ),
        needs: Needs::Columns(vec![C::VirtualYieldingUsersRemote]),
        check: Box::new(|cx, t| {
            let y = cx.col(C::VirtualYieldingUsersRemote)?;
            let s = &cx.results.settings;
            let setting_ms = s.remote_db_round_trip_ms?;
            let pool = f64::from(s.db_pool_size);
            // Each round against its own delivered round trip, when read.
            let round_trip = |r: &RoundResult| delivered_round_trip_ms(r).unwrap_or(setting_ms);
            let ratio: Vec<f64> = y
                .rounds
                .iter()
                .filter_map(|r| Some(successful_rps(r)? / (pool * 1000.0 / round_trip(r).max(1e-6))))
                .collect();
            let delivered = Spread::of(y.rounds.iter().filter_map(delivered_round_trip_ms));
            let (round_trip_ms, words) = match delivered {
                Some(d) => (
                    d.median,
                    format!("{:.2} ms delivered (median of rounds; the setting {setting_ms:.1} ms)", d.median),
                ),
                None => (setting_ms, format!("{setting_ms:.1} ms")),
            };
            let bound = pool * 1000.0 / round_trip_ms.max(1e-6);
            let short = format!(
                "{:.0} req/s (column median) vs pool {} / {words} = {bound:.0} req/s; throughput / that: {}",
                median(y, successful_rps),
                s.db_pool_size,
                ratio_words(&ratio, Some(Line { at: t.pool_bound_fraction, margin: t.margin }))
            );
            let outcome = Outcome::judged(&ratio, (Side::Above, t.pool_bound_fraction), t, String::new());
            // A prediction that did not come true says what held it back.
            let cores = match crate::stats::median_round(y, successful_rps) {
                Some(r) if !outcome.verdict.held() => format!(
                    "; in its median round, {}",
                    where_the_cores_went(r, "server", cx.results.machine.cores as f64)
                ),
                _ => String::new(),
            };
            let evidence = format!("{short}; {}{cores}", pool_wait_words(y));
            Some(Outcome { evidence, ..outcome }.with_short(short))
        }),
    }
}

/// 3a. The pinning driver caps at carriers / query time, the query time
/// measured in another window.
fn pinning_caps_at_carriers(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "remote-db-pinning-caps-at-carriers",
        seed: "beyond the seeds: a driver that pins turns virtual threads back into a few threads",
        kind: Kind::Prediction("one window's throughput predicted from the query time measured in another window, on another server process"),
        claim: format!(
            "the pinning driver caps at the carriers: in the remote-database group its successful throughput is within {} of carriers / query time, the query time (how long each query held its carrier, from the server's blocking-call marks) measured in another window, the remote-mixed group's load on the same driver",
            pct(t.carrier_cap_within)
        ),
        needs: Needs::Columns(vec![
            C::VirtualPinningUsersRemote,
            C::VirtualPinningHealthNextToUsersRemote,
        ]),
        check: Box::new(carrier_cap_outcome),
    }
}

/// How long each `/users/{id}` query held its carrier in a round, in ms.
fn query_ms(r: &RoundResult) -> Option<f64> {
    r.detector
        .as_ref()?
        .route(USERS_ROUTE)?
        .ms_per_blocking_call()
}

/// [`pinning_caps_at_carriers`]'s check: each round of the remote-database
/// column against the cap from the remote-mixed column's median query
/// time. The column's own query time is shown beside it, not judged: the
/// cap it gives is the carriers' busy share of the same window, an
/// identity rather than a prediction.
fn carrier_cap_outcome(cx: &Ctx<'_>, t: &Thresholds) -> Option<Outcome> {
    let p = cx.col(ColumnId::VirtualPinningUsersRemote)?;
    let other = cx.col(ColumnId::VirtualPinningHealthNextToUsersRemote)?;
    let carriers = f64::from(cx.results.settings.virtual_carriers?);
    let got: Vec<f64> = p.rounds.iter().filter_map(successful_rps).collect();
    let each: Vec<String> = got.iter().map(|x| format!("{x:.0}")).collect();
    let Some(query) = Spread::of(other.rounds.iter().filter_map(query_ms)) else {
        return Some(Outcome::of_calls(
            &got,
            [Call::NoFigure],
            format!(
                "{} req/s per round, but no query time: the remote-mixed group's blocking-call marks were not read",
                each.join(", ")
            ),
        ));
    };
    let cap = carriers * 1000.0 / query.median;
    let off: Vec<f64> = got.iter().map(|x| (x / cap - 1.0).abs()).collect();
    let short = format!(
        "{} req/s per round vs {carriers:.0} carriers / {:.2} ms per query (remote-mixed, median) = {cap:.0} req/s: off by {}",
        each.join(", "),
        query.median,
        share_words(&off)
    );
    let own = Spread::of(p.rounds.iter().filter_map(query_ms))
        .map_or("not read".to_owned(), |q| format!("{:.2} ms", q.median));
    let evidence = format!(
        "{short}; this window's own marks, not judged: {own} per query; round trip {}",
        cx.results
            .settings
            .remote_db_round_trip_ms
            .map_or("unknown".to_owned(), |ms| format!("{ms:.1} ms"))
    );
    Some(Outcome::judged(&off, (Side::Below, t.carrier_cap_within), t, evidence).with_short(short))
}

/// 3b. Pinning serves at most half of yielding's throughput.
fn pinning_half_of_yielding(t: &Thresholds) -> Spec {
    let pair = (
        ColumnId::VirtualPinningUsersRemote,
        ColumnId::VirtualYieldingUsersRemote,
    );
    Spec {
        id: "remote-db-pinning-half-of-yielding",
        seed: "beyond the seeds: the pinning trap",
        kind: Kind::Prediction("two drivers' measured throughput compared round by round"),
        claim: format!(
            "in the remote-database group the pinning driver serves at most {}x the yielding driver's successful requests per second",
            t.pinning_share_of_yielding
        ),
        needs: Needs::both(pair),
        check: ratio_check(
            pair,
            Compared::Throughput,
            PINNING_VS_YIELDING,
            (Side::Below, |t| t.pinning_share_of_yielding),
        ),
    }
}

/// 3c. /health next to the pinning driver waits for a carrier.
fn pinning_delays_health(t: &Thresholds) -> Spec {
    let pair = (
        ColumnId::VirtualPinningHealthNextToUsersRemote,
        ColumnId::VirtualYieldingHealthNextToUsersRemote,
    );
    Spec {
        id: "remote-mixed-pinning-delays-health",
        seed: "beyond the seeds: a pinned carrier delays every request on it",
        kind: Kind::Prediction("a p99 measured next to two drivers, compared round by round"),
        claim: format!(
            "a pinning driver delays unrelated requests: with the database a round trip away, /health p99 next to /users/1 on the pinning driver is at least {}x its p99 next to the yielding driver",
            t.mixed_p99_factor
        ),
        needs: Needs::both(pair),
        check: ratio_check(
            pair,
            Compared::HealthP99,
            PINNING_VS_YIELDING,
            (Side::Above, |t| t.mixed_p99_factor),
        ),
    }
}

/// KiB above idle per connection at `server`'s largest size, in words.
fn kib_words(cx: &Ctx<'_>, id: ColumnId, name: &str) -> Option<String> {
    let (size, steps) = at_largest(cx, id)?;
    let kib = Spread::of(
        steps
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
        seed: "beyond the seeds: an idle connection is a parked coroutine",
        kind: Kind::DesignCheck("the carriers are fixed by a setting, and an idle connection's coroutine is parked, not a thread"),
        claim: format!(
            "virtual threads hold no OS thread per idle keep-alive connection: with the largest size opened, at most {:.0} threads above idle; the report gives the resident memory per connection (coroutine stack and buffers) beside the event loop's and tiny_http's",
            t.idle_threads_allowance
        ),
        needs: Needs::Columns(vec![C::VirtualIdle]),
        check: Box::new(|cx, t| {
            let (above, short) = threads_above_at_largest(cx, C::VirtualIdle)?;
            let above: Vec<f64> = above.into_iter().map(|(_, n)| n).collect();
            let kib: Vec<String> = [
                (C::VirtualIdle, "virtual threads"),
                (C::AsyncIdle, "event loop"),
                (C::BlockingIdleTinyHttp, "tiny_http"),
            ]
            .into_iter()
            .filter_map(|(id, name)| kib_words(cx, id, name))
            .collect();
            let evidence = format!("{short}; per idle connection (medians): {}", kib.join(", "));
            Some(
                Outcome::judged(&above, (Side::Below, t.idle_threads_allowance), t, evidence)
                    .with_short(short),
            )
        }),
    }
}
