//! The real Loom beside its analogue (the calibration-loom group): Tomcat
//! with a virtual thread per request, pgjdbc 42.5.5 through HikariCP, with
//! Postgres a round trip away. On Java 21 pgjdbc waits for Postgres inside
//! a `synchronized` method, which pins the carrier: Tomcat serves what the
//! carriers serve, carriers / round trip, as our pinning driver does. On
//! Java 25 (JEP 491) the thread unmounts and the pool is the queue, pool /
//! round trip, as with our yielding driver. The JVM's own count of pinned
//! virtual threads (JFR's events, per route) says which happened. Each is
//! a prediction judged against a line from the same window's delivered
//! round trip; our drivers' distances from the same lines are shown beside.

use super::checks::{median, pct, Ctx, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratio_words, share_words, Line};
use crate::verdict::{call, Call, Side};
use bench_model::figures::{delivered_round_trip_ms, successful_rps};
use bench_model::{ColumnId, ColumnResult, RoundResult};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        java21_caps_at_carriers(t),
        java25_reaches_pool(t),
        pins_agree(t),
    ]
}

/// The route whose queries pin.
const USERS_ROUTE: &str = "/users/{id}";

/// A round's throughput over a line of `per_round_trip` requests in
/// flight (carriers, or the pool): `successful / (n / delivered round
/// trip)`; `None` without the proxy's reading.
fn over_line(r: &RoundResult, per_round_trip: f64) -> Option<f64> {
    let line = per_round_trip * 1000.0 / delivered_round_trip_ms(r)?.max(1e-6);
    Some(successful_rps(r)? / line)
}

/// Each round's throughput over its line.
fn over_lines(c: &ColumnResult, per_round_trip: f64) -> Vec<f64> {
    c.rounds
        .iter()
        .filter_map(|r| over_line(r, per_round_trip))
        .collect()
}

/// "our pinning driver's: per round 0.93x, ... (median 0.93x)", or that it
/// was not measured.
fn analogue_words(cx: &Ctx<'_>, id: ColumnId, name: &str, per_round_trip: f64) -> String {
    match cx.col(id) {
        Some(c) => format!(
            "{name} over the same line: {}",
            ratio_words(&over_lines(c, per_round_trip), None)
        ),
        None => format!("{name} not measured"),
    }
}

/// The delivered round trip's median over `c`'s rounds, in words.
fn round_trip_words(c: &ColumnResult) -> String {
    let ms = bench_model::Spread::of(c.rounds.iter().filter_map(delivered_round_trip_ms));
    ms.map_or("the delivered round trip not read".to_owned(), |s| {
        format!("delivered round trip {:.2} ms (median of rounds)", s.median)
    })
}

/// 1. On Java 21, pinned carriers cap Tomcat on virtual threads.
fn java21_caps_at_carriers(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "loom-java21-caps-at-carriers",
        seed: "beyond the seeds: a JDBC driver that waits inside synchronized turns Java 21's virtual threads back into a few threads",
        kind: Kind::Prediction("measured throughput against a line from the cores and the proxy's round trip, in the same window"),
        claim: format!(
            "Tomcat on virtual threads on Java 21, pgjdbc 42.5.5 through HikariCP with Postgres a round trip away, serves within {} of carriers / the round trip the proxy delivered in the same window (carriers: the cores, the JVM's default): every query pins its carrier, as our pinning driver does",
            pct(t.loom_carrier_cap_within)
        ),
        needs: Needs::Columns(vec![C::TomcatVirtualUsersJava21]),
        check: Box::new(|cx, t| {
            let c = cx.col(C::TomcatVirtualUsersJava21)?;
            let carriers = cx.results.machine.cores as f64;
            let over = over_lines(c, carriers);
            c.rounds.iter().find_map(delivered_round_trip_ms)?;
            let off: Vec<f64> = over.iter().map(|x| (x - 1.0).abs()).collect();
            let short = format!(
                "{:.0} req/s (column median) on {carriers:.0} carriers, {}; throughput / (carriers / round trip): {}",
                median(c, successful_rps),
                round_trip_words(c),
                ratio_words(&over, None)
            );
            let evidence = format!(
                "{short}, off by {}; {}",
                share_words(&off),
                analogue_words(cx, C::VirtualPinningUsersLoom, "our pinning driver", carriers)
            );
            Some(
                Outcome::judged(&off, (Side::Below, t.loom_carrier_cap_within), t, evidence)
                    .with_short(short),
            )
        }),
    }
}

/// 2. On Java 25 the pool is the queue.
fn java25_reaches_pool(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "loom-java25-reaches-pool",
        seed: "beyond the seeds: Java 24 unmounts a virtual thread blocked in a monitor (JEP 491)",
        kind: Kind::Prediction("measured throughput against a line from the pool size and the proxy's round trip, in the same window"),
        claim: format!(
            "Tomcat on virtual threads on Java 25, the same pgjdbc and pool, serves at least {}x pool size / the round trip the proxy delivered in the same window: the pool, not the carriers, is the queue, as with our yielding driver",
            t.pool_bound_fraction
        ),
        needs: Needs::Columns(vec![C::TomcatVirtualUsersJava25]),
        check: Box::new(|cx, t| {
            let c = cx.col(C::TomcatVirtualUsersJava25)?;
            let pool = f64::from(cx.results.settings.db_pool_size);
            c.rounds.iter().find_map(delivered_round_trip_ms)?;
            let over = over_lines(c, pool);
            let short = format!(
                "{:.0} req/s (column median) with a pool of {pool:.0}, {}; throughput / (pool / round trip): {}",
                median(c, successful_rps),
                round_trip_words(c),
                ratio_words(
                    &over,
                    Some(Line {
                        at: t.pool_bound_fraction,
                        margin: t.margin
                    })
                )
            );
            let java21 = cx.col(C::TomcatVirtualUsersJava21).map_or(String::new(), |j| {
                format!(
                    "; Java 21's over the same line: {}",
                    ratio_words(&over_lines(j, pool), None)
                )
            });
            let evidence = format!(
                "{short}; {}{java21}",
                analogue_words(cx, C::VirtualYieldingUsersLoom, "our yielding driver", pool)
            );
            Some(
                Outcome::judged(&over, (Side::Above, t.pool_bound_fraction), t, evidence)
                    .with_short(short),
            )
        }),
    }
}

/// A round's pinned virtual threads on `/users/{id}` per successful
/// request, as the JVM counted them; not a number where it did not count
/// (`--no-pin-events`, a JVM without the event) or nothing succeeded.
fn pins_per_request(r: &RoundResult) -> f64 {
    match &r.jvm {
        Some(j) if j.pins_watched && r.load.ok_requests > 0 => {
            j.pins_of(USERS_ROUTE) as f64 / r.load.ok_requests as f64
        }
        _ => f64::NAN,
    }
}

/// 3. The JVM's own pin counts agree: some on every query on Java 21,
///    none on Java 25.
fn pins_agree(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "loom-pins-agree",
        seed: "beyond the seeds: JFR's jdk.VirtualThreadPinned says which runtime pins",
        kind: Kind::Prediction("pinned virtual threads counted by the JVM in each window, which either runtime could fail"),
        claim: format!(
            "the JVM's own count of pinned virtual threads (JFR's jdk.VirtualThreadPinned, per route) agrees: on Java 21 at least {} per /users/{{id}} request, on Java 25 fewer than {} per request, in the same round",
            t.loom_pins_per_request, t.loom_unpinned_pins_per_request
        ),
        needs: Needs::Columns(vec![C::TomcatVirtualUsersJava21, C::TomcatVirtualUsersJava25]),
        check: Box::new(|cx, t| {
            let (j21, j25) = (
                cx.col(C::TomcatVirtualUsersJava21)?,
                cx.col(C::TomcatVirtualUsersJava25)?,
            );
            let mut calls = Vec::new();
            let mut shown = Vec::new();
            for r in &j21.rounds {
                let pinned = pins_per_request(r);
                let unpinned = j25
                    .rounds
                    .iter()
                    .find(|o| o.round == r.round)
                    .map_or(f64::NAN, pins_per_request);
                let both = [
                    call(pinned, Side::Above, t.loom_pins_per_request, t.margin),
                    call(unpinned, Side::Below, t.loom_unpinned_pins_per_request, t.margin),
                ];
                calls.push(if both.contains(&Call::Misses) {
                    Call::Misses
                } else if both.iter().all(|c| *c == Call::Clears) {
                    Call::Clears
                } else {
                    Call::Unclear
                });
                shown.push(format!("round {}: {pinned:.2} vs {unpinned:.3}", r.round));
            }
            let evidence = format!(
                "pins per /users/{{id}} request, Java 21 vs Java 25 (NaN: not counted): {}",
                shown.join(", ")
            );
            let per_round: Vec<f64> = j21.rounds.iter().map(pins_per_request).collect();
            Some(Outcome::of_calls(&per_round, calls, evidence))
        }),
    }
}
