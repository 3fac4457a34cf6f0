//! The database findings: what each driver costs a request in round trips
//! to Postgres, counted by the proxy in front of it; the pool as the queue
//! (Little's law, with the round trips per request and the round trip the
//! proxy delivered in the same window); the pipelined driver past the
//! pool's bound; and the seeds' database lesson judged per async driver in
//! the local, ramp and remote groups, each saying which driver made the
//! difference: by throughput a round trip away, where the wait decides,
//! and by server CPU per request at equal load on the local database,
//! where the cores do ([`super::equal_load`]). The pool sweep's finding is
//! in [`super::pool_sweep`].

use super::checks::{across, beats, larger, median, pct, throughput_ratio_above};
use super::checks::{Check, Ctx, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratios, share_words, times_beside, Line};
use crate::verdict::Side;
use bench_model::figures::{
    delivered_round_trip_ms, postgres_round_trips_per_request, successful_rps,
};
use bench_model::{ColumnId, ColumnResult, RoundResult, Spread};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    let mut out = vec![
        round_trips_per_request(t),
        pool_is_the_queue(t),
        pipelined_over_blocking(t),
    ];
    out.extend(driver_lessons());
    out
}

/// One async driver of a group of the database lesson: its name, its
/// column and the id of its finding.
type AsyncDriver = super::equal_load::Driver;

/// A group in which the seeds' database lesson is judged per async driver.
struct Lesson {
    /// What the claim says of the group.
    words: &'static str,
    blocking: ColumnId,
    /// sqlx, deadpool-postgres, pipelined.
    drivers: [AsyncDriver; 3],
    /// Whether the cores decide the group, so that the lesson is judged
    /// by server CPU per request at equal load, not by throughput.
    at_equal_load: bool,
}

/// The seeds' lesson's groups. The sqlx findings of the local and ramp
/// groups are [`super::seeds`]' (ids kept from when sqlx stood for R2DBC);
/// the others are here, deadpool-postgres' the comparison of Spring's
/// defaults.
static LESSONS: [Lesson; 3] = [
    Lesson {
        words: "on the database group (in the seed profile, seed 000's burst with every connection opened first; drivers beyond seed 000's columns are not judged again under its burst as JMeter sent it)",
        blocking: ColumnId::BlockingUsers,
        drivers: [
            (
                "sqlx",
                ColumnId::AsyncUsers,
                "db-async-driver-cheaper-at-equal-load",
            ),
            (
                "deadpool",
                ColumnId::AsyncUsersDeadpool,
                "db-async-deadpool-cheaper-at-equal-load",
            ),
            (
                "pipelined",
                ColumnId::AsyncUsersPipelined,
                "db-async-pipelined-cheaper-at-equal-load",
            ),
        ],
        at_equal_load: true,
    },
    Lesson {
        words: "on a database read under ramping load",
        blocking: ColumnId::BlockingUsersRamp,
        drivers: [
            (
                "sqlx",
                ColumnId::AsyncUsersRamp,
                "ramp-async-cheaper-at-equal-load",
            ),
            (
                "deadpool",
                ColumnId::AsyncUsersDeadpoolRamp,
                "ramp-async-deadpool-cheaper-at-equal-load",
            ),
            (
                "pipelined",
                ColumnId::AsyncUsersPipelinedRamp,
                "ramp-async-pipelined-cheaper-at-equal-load",
            ),
        ],
        at_equal_load: true,
    },
    Lesson {
        words: "with Postgres a round trip away (the remote-database group)",
        blocking: ColumnId::BlockingUsersRemote,
        drivers: [
            ("sqlx", ColumnId::AsyncUsersRemote, "remote-db-async-wins"),
            (
                "deadpool",
                ColumnId::AsyncUsersDeadpoolRemote,
                "remote-db-async-deadpool-wins",
            ),
            (
                "pipelined",
                ColumnId::AsyncUsersPipelinedRemote,
                "remote-db-async-pipelined-wins",
            ),
        ],
        at_equal_load: false,
    },
];

/// What each driver is, in a claim: sqlx for what it does (no Spring
/// default has its ping), deadpool-postgres as the event loop's Spring
/// default's analogue, pipelining as beyond Spring's defaults.
fn driver_words(driver: &str) -> &'static str {
    match driver {
        "sqlx" => "sqlx, whose pool pings each connection it takes back: two round trips a request",
        "deadpool" => "WebFlux's default's analogue: tokio-postgres in a deadpool-postgres pool of 10, r2dbc-pool's exclusive checkout without a round trip; against MVC's, the sync driver in a pool of HikariCP's 10",
        _ => "beyond Spring's defaults: a few shared tokio-postgres clients with the queries pipelined, no pool",
    }
}

/// Where each driver's lesson comes from: the seeds' own claim on Spring's
/// defaults is deadpool-postgres' (WebFlux with R2DBC and r2dbc-pool
/// against MVC with JDBC and HikariCP); the others judge it per driver.
fn driver_seed(driver: &str) -> &'static str {
    match driver {
        "deadpool" => "seeds 000, 001 and 002 (WebFlux with R2DBC against MVC with JDBC, each on Spring Boot's defaults)",
        _ => "seeds 000, 001 and 002 (judged per async driver)",
    }
}

/// The seeds' database lesson, "with a non-blocking driver async serves
/// more than blocking", per async driver in each group but the two sqlx
/// findings that are the seeds' own ([`super::seeds`]); where the cores
/// decide, restated as "spends less server CPU per request at equal load".
fn driver_lessons() -> Vec<Spec> {
    let mut out = Vec::new();
    for lesson in &LESSONS {
        for &(driver, column, id) in &lesson.drivers {
            if driver == "sqlx" && lesson.at_equal_load {
                continue;
            }
            let (seed, kind, serves) = if lesson.at_equal_load {
                (
                    super::equal_load::RESTATED_PER_DRIVER,
                    super::equal_load::KIND,
                    "spends less server CPU per request than blocking at equal load",
                )
            } else {
                (
                    driver_seed(driver),
                    Kind::Prediction("two columns' measured figures compared round by round"),
                    "serves more requests per second than blocking",
                )
            };
            out.push(Spec {
                id,
                seed,
                kind,
                claim: format!(
                    "with a non-blocking driver ({}) async {serves} {}",
                    driver_words(driver),
                    lesson.words
                ),
                needs: Needs::Columns(vec![column, lesson.blocking]),
                check: lesson_check(column),
            });
        }
    }
    out
}

/// The check of the database lesson for `column`, an async driver's: at
/// equal load where the cores decide the lesson's group
/// ([`super::equal_load::cheaper_naming_the_driver`]), by throughput
/// elsewhere ([`beats_naming_the_driver`]).
pub(super) fn lesson_check(column: ColumnId) -> Check {
    match LESSONS
        .iter()
        .find(|l| l.at_equal_load && l.drivers.iter().any(|d| d.1 == column))
    {
        Some(l) => super::equal_load::cheaper_naming_the_driver(column, l.blocking, &l.drivers),
        None => beats_naming_the_driver(column),
    }
}

/// "`driver` beats blocking" for a column of [`LESSONS`], the evidence
/// naming every async driver of its group against blocking and the one
/// that made the difference (the best); plain [`beats`] for another.
pub(super) fn beats_naming_the_driver(column: ColumnId) -> Check {
    let Some(lesson) = LESSONS
        .iter()
        .find(|l| l.drivers.iter().any(|d| d.1 == column))
    else {
        return beats(column, ColumnId::BlockingUsers);
    };
    let ratio = beats(column, lesson.blocking);
    Box::new(move |cx, t| {
        let outcome = ratio(cx, t)?;
        let words = every_driver_words(cx, lesson, t.margin);
        let short = outcome.evidence.clone();
        let evidence = outcome.evidence.clone() + &words;
        let outcome = Outcome {
            evidence,
            ..outcome
        };
        Some(if words.is_empty() {
            outcome
        } else {
            outcome.with_short(short)
        })
    })
}

/// "; every async driver / blocking (medians of the per-round ratios):
/// sqlx 0.65x, deadpool 0.98x, pipelined 2.10x; the one that makes the
/// difference: pipelined", or nothing when the run has one of them only;
/// each written beside the line its own finding judges, 1.0.
fn every_driver_words(cx: &Ctx<'_>, lesson: &Lesson, margin: f64) -> String {
    let Some(blocking) = cx.col(lesson.blocking) else {
        return String::new();
    };
    let each: Vec<(&str, f64)> = lesson
        .drivers
        .iter()
        .filter_map(|(name, id, _)| {
            let c = cx.col(*id)?;
            Some((
                *name,
                Spread::of(ratios(c, blocking, successful_rps))?.median,
            ))
        })
        .collect();
    if each.len() < 2 {
        return String::new();
    }
    let best = each
        .iter()
        .fold(each[0], |b, d| if d.1 > b.1 { *d } else { b });
    let list: Vec<String> = each
        .iter()
        .map(|(name, m)| {
            format!(
                "{name} {}",
                times_beside(*m, Some(Line { at: 1.0, margin }))
            )
        })
        .collect();
    format!(
        "; every async driver / blocking (medians of the per-round ratios): {}; the one that makes the difference: {}",
        list.join(", "),
        best.0
    )
}

/// The pooled drivers of the remote-database group: each one's name, its
/// column, and its round trips per request by design.
const POOLED_REMOTE: [(&str, ColumnId, f64); 5] = [
    ("blocking", ColumnId::BlockingUsersRemote, 1.0),
    ("sqlx", ColumnId::AsyncUsersRemote, 2.0),
    ("deadpool", ColumnId::AsyncUsersDeadpoolRemote, 1.0),
    ("virtual pinning", ColumnId::VirtualPinningUsersRemote, 1.0),
    (
        "virtual yielding",
        ColumnId::VirtualYieldingUsersRemote,
        1.0,
    ),
];

/// A round's round trips per request; not a number for a round with a
/// proxy reading and no success (judged unclear, never left out).
fn round_trips(r: &RoundResult) -> Option<f64> {
    let proxy = r.postgres_proxy?;
    Some(
        proxy
            .round_trips_per(r.load.ok_requests)
            .unwrap_or(f64::NAN),
    )
}

/// `f` of each round of `c` that has it, with its round number.
fn each_round(c: &ColumnResult, f: impl Fn(&RoundResult) -> Option<f64>) -> Vec<(u32, f64)> {
    c.rounds
        .iter()
        .filter_map(|r| Some((r.round, f(r)?)))
        .collect()
}

/// The column medians of `metric` by driver: "blocking 1.00, sqlx 2.01".
fn medians_words(of: &[(&str, &ColumnResult)], metric: bench_model::Metric, unit: &str) -> String {
    let each: Vec<String> = of
        .iter()
        .map(|(name, c)| format!("{name} {:.2}{unit}", median(c, metric)))
        .collect();
    each.join(", ")
}

/// 1. Round trips per request, counted by the proxy: sqlx two, the other
///    pooled drivers one.
fn round_trips_per_request(t: &Thresholds) -> Spec {
    Spec {
        id: "remote-db-round-trips-per-request",
        seed: "beyond the seeds: the driver, not the model, decides the round trips a request costs",
        kind: Kind::Prediction("round trips counted by the proxy in each window against each driver's design"),
        claim: format!(
            "in the remote-database group the proxy in front of Postgres counts two round trips per request on sqlx (the ping it sends on every connection it takes back) and one on every other pooled driver (the sync driver, both virtual-thread drivers, deadpool-postgres), each within {}; the pipelined driver's, fewer than one where requests share a round trip, is shown",
            pct(t.round_trips_within)
        ),
        needs: Needs::Columns(POOLED_REMOTE.iter().map(|d| d.1).collect()),
        check: Box::new(|cx, t| {
            let mut columns = Vec::new();
            let mut per_driver = Vec::new();
            for (name, id, design) in POOLED_REMOTE {
                let c = cx.col(id)?;
                // A run that did not read the proxy cannot count them.
                c.rounds.iter().find_map(round_trips)?;
                let off = each_round(c, |r| Some((round_trips(r)? / design - 1.0).abs()));
                per_driver.push(off);
                columns.push((name, c));
            }
            let off = across(&per_driver, larger);
            let pipelined = cx
                .col(ColumnId::AsyncUsersPipelinedRemote)
                .map_or(String::new(), |c| {
                    format!("; pipelined {:.2} (not judged)", median(c, round_trips))
                });
            let short = format!(
                "round trips per request (column medians): {}{pipelined}; the largest distance from the design: {}",
                medians_words(&columns, round_trips, ""),
                share_words(&off)
            );
            Some(Outcome::judged(&off, (Side::Below, t.round_trips_within), t, short))
        }),
    }
}

/// The pooled drivers whose pool is the queue in the remote-database
/// group: the pinning driver's is its carriers.
const POOL_IS_THE_QUEUE: [(&str, ColumnId); 4] = [
    ("blocking", ColumnId::BlockingUsersRemote),
    ("virtual yielding", ColumnId::VirtualYieldingUsersRemote),
    ("sqlx", ColumnId::AsyncUsersRemote),
    ("deadpool", ColumnId::AsyncUsersDeadpoolRemote),
];

/// Little's law for a pool in one round: pool / (round trips per request x
/// delivered round trip), in requests per second.
fn pool_bound(r: &RoundResult, pool: f64) -> Option<f64> {
    let per_request = postgres_round_trips_per_request(r)?;
    let round_trip_s = delivered_round_trip_ms(r)? / 1000.0;
    Some(pool / (per_request * round_trip_s))
}

/// 2. A pooled driver whose pool is the queue serves at its bound.
fn pool_is_the_queue(t: &Thresholds) -> Spec {
    Spec {
        id: "remote-db-pool-is-the-queue",
        seed: "beyond the seeds: the pool is the queue (Little's law)",
        kind: Kind::Prediction("each window's throughput against a bound from its own pool size, round trips and delivered round trip"),
        claim: format!(
            "the pool is the queue: in the remote-database group each pooled driver whose pool is the queue (the sync driver, virtual threads' yielding driver, sqlx, deadpool-postgres) serves within {} of pool size / (round trips per request x delivered round trip), both counted by the proxy in the same window",
            pct(t.pool_queue_within)
        ),
        needs: Needs::Columns(POOL_IS_THE_QUEUE.iter().map(|d| d.1).collect()),
        check: Box::new(|cx, t| {
            let pool = f64::from(cx.results.settings.db_pool_size);
            let mut per_driver = Vec::new();
            let mut each = Vec::new();
            for (name, id) in POOL_IS_THE_QUEUE {
                let c = cx.col(id)?;
                c.rounds.iter().find_map(|r| pool_bound(r, pool))?;
                per_driver.push(each_round(c, |r| {
                    Some((successful_rps(r)? / pool_bound(r, pool)? - 1.0).abs())
                }));
                let bound = Spread::of(c.rounds.iter().filter_map(|r| pool_bound(r, pool)));
                each.push(format!(
                    "{name} {:.0} vs {:.0} req/s",
                    median(c, successful_rps),
                    bound.map_or(f64::NAN, |b| b.median)
                ));
            }
            let off = across(&per_driver, larger);
            let evidence = format!(
                "successful vs pool {pool:.0} / (round trips per request x delivered round trip), column medians: {}; off by, the largest per round: {}",
                each.join(", "),
                share_words(&off)
            );
            Some(Outcome::judged(&off, (Side::Below, t.pool_queue_within), t, evidence))
        }),
    }
}

/// 3. The pipelined driver passes the pool's bound: at least twice the
///    blocking server.
fn pipelined_over_blocking(t: &Thresholds) -> Spec {
    use ColumnId as C;
    let ratio = throughput_ratio_above(C::AsyncUsersPipelinedRemote, C::BlockingUsersRemote, |t| {
        t.pipelined_over_blocking
    });
    Spec {
        id: "remote-db-pipelined-over-blocking",
        seed: "beyond the seeds: where an event loop wins on a database, many queries in flight on one connection",
        kind: Kind::Prediction("two columns' measured figures compared round by round"),
        claim: format!(
            "the pipelined async driver passes the pool's bound: in the remote-database group it serves at least {}x the blocking server's successful requests per second",
            t.pipelined_over_blocking
        ),
        needs: Needs::Columns(vec![C::AsyncUsersPipelinedRemote, C::BlockingUsersRemote]),
        check: Box::new(move |cx, t| {
            let outcome = ratio(cx, t)?;
            let p = cx.col(C::AsyncUsersPipelinedRemote)?;
            let proxy = Spread::of(p.rounds.iter().filter_map(round_trips))
                .zip(Spread::of(p.rounds.iter().filter_map(delivered_round_trip_ms)))
                .map_or(String::new(), |(n, ms)| {
                    format!(
                        "; the pipelined driver's round trips per request {:.2}, delivered round trip {:.2} ms (medians)",
                        n.median, ms.median
                    )
                });
            let evidence = outcome.evidence.clone() + &proxy;
            Some(Outcome { evidence, ..outcome })
        }),
    }
}
