//! The seeds' own conclusions (seeds 000 to 003), and the lesson they imply
//! about mixed loads, each as a check on this run's rounds. Seed 000's are
//! judged under both of its bursts ([`Burst`]), each finding naming its own.

use super::bursts::Burst;
use super::checks::{across, beats, comes_close, median, paired, paired_rounds, pct};
use super::checks::{ratio_check, Compared};
use super::checks::{Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratio_words, Line};
use crate::verdict::Side;
use bench_model::figures::{p99_ms, peak_threads, successful_rps};
use bench_model::ColumnId;
use bench_model::ColumnResult;

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    let seed_000: [fn(&Thresholds, Burst) -> Spec; 5] = [
        cpu_inline_hurts_async,
        cpu_offload_recovers,
        db_async_driver_wins,
        db_inline_driver_worst,
        db_spawn_blocking_recovers,
    ];
    let under = |burst| seed_000.map(|finding| finding(t, burst));
    let mut out = Vec::from(under(Burst::OpenedFirst));
    out.push(async_far_fewer_threads(t));
    out.extend(mixed(t));
    out.extend(async_cheaper_at_equal_load());
    out.push(baseline_cpu_per_request(t));
    // Seed 000's again under its burst as JMeter sent it, after the others
    // so that the seeds' findings keep their order.
    out.extend(under(Burst::ConnectInRequest));
    out
}

/// Two servers' measured figures compared: what real data can fail.
const COMPARISON: Kind = Kind::Prediction("two columns' measured figures compared round by round");

/// "A blocked event loop stalls everyone", for CPU work, a blocking driver
/// and a blocking sleep.
fn mixed(t: &Thresholds) -> Vec<Spec> {
    use ColumnId as C;
    let mut out = Vec::new();
    for (id, inline, offloaded, what) in [
        (
            "mixed-cpu",
            C::AsyncHealthNextToCpu,
            C::AsyncHealthNextToCpuRayon,
            "CPU work",
        ),
        (
            "mixed-db-driver",
            C::AsyncHealthNextToUsersBlocking,
            C::AsyncHealthNextToUsers,
            "a blocking database driver",
        ),
        (
            "mixed-sleep",
            C::AsyncHealthNextToPostsBlocking,
            C::AsyncHealthNextToPosts,
            "a blocking sleep",
        ),
    ] {
        out.push(Spec {
            id,
            seed: "seed 000 (what its conclusion implies: blocking work on the event loop delays every request on it)",
            kind: Kind::Prediction("a p99 measured next to two loads, compared round by round"),
            claim: format!("{what} on the event loop delays unrelated requests: /health p99 next to it is at least {}x its p99 next to the non-blocking version", t.mixed_p99_factor),
            needs: Needs::Columns(vec![inline, offloaded]),
            check: Box::new(move |cx, t| {
                let (i, o) = (cx.col(inline)?, cx.col(offloaded)?);
                // A p99 below 1 us would make the factor meaningless; floor it.
                let factor = paired(i, o, |ri, ro| Some(p99_ms(ri)? / p99_ms(ro)?.max(0.001)));
                let evidence = format!(
                    "/health p99 {:.1} ms vs {:.1} ms (column medians); next to {inline} / next to {offloaded}: {}",
                    median(i, p99_ms),
                    median(o, p99_ms),
                    ratio_words(&factor, Some(Line { at: t.mixed_p99_factor, margin: t.margin }))
                );
                Some(Outcome::compared(&factor, (Side::Above, t.mixed_p99_factor), t, evidence))
            }),
        });
    }
    out
}

/// "Async serves more requests per second", on Redis reads, /health and a
/// ramp: groups where the cores decide, so restated by what a dedicated
/// server's capacity is, cores / server CPU per request, measured at one
/// arrival rate for both ([`super::equal_load`]).
fn async_cheaper_at_equal_load() -> Vec<Spec> {
    use ColumnId as C;
    let mut out = Vec::new();
    for (id, seed, a, b, what) in [
        (
            "cache-async-cheaper-at-equal-load",
            "seed 001",
            C::AsyncCache,
            C::BlockingCache,
            "a Redis read (two GETs)",
        ),
        (
            "baseline-async-cheaper-at-equal-load",
            "seed 001",
            C::AsyncHealth,
            C::BlockingHealth,
            "an immediate answer (/health)",
        ),
        (
            "ramp-async-cheaper-at-equal-load",
            "seed 002",
            C::AsyncUsersRamp,
            C::BlockingUsersRamp,
            "a database read of the ramp (random ids), with sqlx (Spring's defaults' comparison is ramp-async-deadpool-cheaper-at-equal-load)",
        ),
    ] {
        out.push(Spec {
            id,
            seed: if seed == "seed 001" {
                "seed 001 (its throughput claim restated: on a dedicated server, capacity is cores / server CPU per request)"
            } else {
                "seed 002 (its throughput claim restated: on a dedicated server, capacity is cores / server CPU per request)"
            },
            kind: super::equal_load::KIND,
            claim: format!("async spends less server CPU per request than blocking on {what} at equal load (one arrival rate for both): on a dedicated server it would serve more"),
            needs: Needs::Columns(vec![a, b]),
            // The ramp's is the database lesson, judged per driver too.
            check: if id == "ramp-async-cheaper-at-equal-load" {
                super::database::lesson_check(a)
            } else {
                super::equal_load::cheaper(a, b)
            },
        });
    }
    out
}

/// Seed 000: CPU work inline on the event loop hurts async.
fn cpu_inline_hurts_async(_t: &Thresholds, burst: Burst) -> Spec {
    let (blocking, inline) = (
        burst.col(ColumnId::BlockingCpu),
        burst.col(ColumnId::AsyncCpu),
    );
    Spec {
        id: burst.id(["cpu-inline-hurts-async", "cpu-inline-hurts-async-connect"]),
        seed: "seed 000",
        kind: COMPARISON,
        claim: format!(
            "CPU work inline on the event loop: async has lower throughput or a higher p99 than blocking, {}",
            burst.words("cpu")
        ),
        needs: Needs::Columns(vec![blocking, inline]),
        check: Box::new(move |cx, t| {
            let (b, a) = (cx.col(blocking)?, cx.col(inline)?);
            // How much worse async is, per round: the larger of the two ratios.
            let worse = paired(a, b, |ra, rb| {
                let slower = successful_rps(rb)? / successful_rps(ra)?;
                let later = p99_ms(ra)? / p99_ms(rb)?;
                Some(slower.max(later))
            });
            let evidence = format!(
                "throughput {:.0} vs {:.0} req/s, p99 {:.1} vs {:.1} ms (async inline vs blocking, column medians); worse by (the larger of blocking/async throughput and async/blocking p99): {}",
                median(a, successful_rps), median(b, successful_rps), median(a, p99_ms), median(b, p99_ms), ratio_words(&worse, Some(Line { at: 1.0, margin: t.margin }))
            );
            Some(Outcome::compared(&worse, (Side::Above, 1.0), t, evidence))
        }),
    }
}

/// Seed 000: an offload brings async close to blocking on CPU work.
fn cpu_offload_recovers(t: &Thresholds, burst: Burst) -> Spec {
    use ColumnId as C;
    let [blocking, rayon, spawn_blocking] =
        [C::BlockingCpu, C::AsyncCpuRayon, C::AsyncCpuSpawnBlocking].map(|c| burst.col(c));
    Spec {
        id: burst.id(["cpu-offload-recovers", "cpu-offload-recovers-connect"]),
        seed: "seed 000",
        kind: COMPARISON,
        claim: format!("moving CPU work off the event loop (the better of rayon and spawn_blocking) brings async within {} of blocking's throughput, {}", pct(t.offload_within), burst.words("cpu")),
        needs: Needs::Columns(vec![blocking, rayon, spawn_blocking]),
        check: Box::new(move |cx, t| {
            let b = cx.col(blocking)?;
            let (r, s) = (cx.col(rayon)?, cx.col(spawn_blocking)?);
            let best: Vec<f64> = b.rounds.iter().filter_map(|rb| {
                let at = |c: &ColumnResult| c.rounds.iter().find(|x| x.round == rb.round).and_then(successful_rps);
                Some(at(r)?.max(at(s)?) / successful_rps(rb)?)
            }).collect();
            let evidence = format!(
                "rayon {:.0}, spawn_blocking {:.0} vs blocking {:.0} req/s (column medians); the better offload / blocking: {}",
                median(r, successful_rps), median(s, successful_rps), median(b, successful_rps), ratio_words(&best, Some(Line { at: 1.0 - t.offload_within, margin: t.margin }))
            );
            Some(Outcome::compared(&best, (Side::Above, 1.0 - t.offload_within), t, evidence))
        }),
    }
}

/// Seeds 000-002's claim with sqlx: a non-blocking driver wins the
/// database group. Where the cores decide (the group with every connection
/// opened first, which has equal-load windows) it is restated at equal
/// load; under the burst as JMeter sent it, sqlx alone is judged, by
/// throughput, the seed's own measure with the connect inside it. (On
/// Spring's defaults it is db-async-deadpool-cheaper-at-equal-load.)
fn db_async_driver_wins(_t: &Thresholds, burst: Burst) -> Spec {
    use ColumnId as C;
    let (sqlx, blocking) = (burst.col(C::AsyncUsers), burst.col(C::BlockingUsers));
    Spec {
        id: burst.id(["db-async-driver-cheaper-at-equal-load", "db-async-driver-wins-connect"]),
        seed: match burst {
            Burst::OpenedFirst => "seeds 000, 001 and 002 (their throughput claim restated: on a dedicated server, capacity is cores / server CPU per request)",
            Burst::ConnectInRequest => "seeds 000, 001 and 002",
        },
        kind: match burst {
            Burst::OpenedFirst => super::equal_load::KIND,
            Burst::ConnectInRequest => COMPARISON,
        },
        claim: match burst {
            Burst::OpenedFirst => "with sqlx (whose pool pings each connection it takes back: two round trips a request) async spends less server CPU per request than blocking on the database group at equal load (one arrival rate for both): on a dedicated server it would serve more; Spring's defaults' comparison is db-async-deadpool-cheaper-at-equal-load".into(),
            Burst::ConnectInRequest => format!("with sqlx (whose pool pings each connection it takes back: two round trips a request) async serves more requests per second than blocking, {}", burst.words("database")),
        },
        needs: Needs::Columns(vec![sqlx, blocking]),
        check: match burst {
            Burst::OpenedFirst => super::database::lesson_check(sqlx),
            Burst::ConnectInRequest => beats(sqlx, blocking),
        },
    }
}

/// Seed 000: a blocking driver on the event loop is the worst of the database group.
fn db_inline_driver_worst(_t: &Thresholds, burst: Burst) -> Spec {
    use ColumnId as C;
    let on_the_loop = burst.col(C::AsyncUsersBlocking);
    let others =
        [C::BlockingUsers, C::AsyncUsers, C::AsyncUsersSpawnBlocking].map(|c| burst.col(c));
    Spec {
        id: burst.id(["db-inline-driver-worst", "db-inline-driver-worst-connect"]),
        seed: "seed 000",
        kind: COMPARISON,
        claim: format!("a blocking driver called on the event loop (JDBC without scheduler) is the worst of seed 000's database columns, {}", burst.words("database")),
        needs: Needs::Columns(vec![others[0], others[1], on_the_loop, others[2]]),
        check: Box::new(move |cx, t| {
            let inline = cx.col(on_the_loop)?;
            let others = others.map(|id| cx.col(id));
            let others: Vec<&ColumnResult> = others.into_iter().collect::<Option<_>>()?;
            // Per round: the inline driver over the slowest of the others.
            let ratio: Vec<f64> = inline.rounds.iter().filter_map(|ri| {
                let slowest = others
                    .iter()
                    .map(|c| c.rounds.iter().find(|x| x.round == ri.round).and_then(successful_rps))
                    .collect::<Option<Vec<f64>>>()?
                    .into_iter()
                    .fold(f64::INFINITY, f64::min);
                Some(successful_rps(ri)? / slowest)
            }).collect();
            let evidence = format!(
                "inline driver {:.0} req/s (column median); over the slowest other column: {}",
                median(inline, successful_rps),
                ratio_words(&ratio, Some(Line { at: 1.0, margin: t.margin }))
            );
            Some(Outcome::compared(&ratio, (Side::Below, 1.0), t, evidence))
        }),
    }
}

/// Seed 000: the blocking driver on spawn_blocking comes close to
/// blocking: at equal load where the cores decide (the group with every
/// connection opened first), by throughput under the burst as JMeter sent it.
fn db_spawn_blocking_recovers(t: &Thresholds, burst: Burst) -> Spec {
    use ColumnId as C;
    let (offloaded, blocking) = (
        burst.col(C::AsyncUsersSpawnBlocking),
        burst.col(C::BlockingUsers),
    );
    Spec {
        id: burst.id(["db-spawn-blocking-close-at-equal-load", "db-spawn-blocking-recovers-connect"]),
        seed: match burst {
            Burst::OpenedFirst => "seed 000 (its throughput claim restated: on a dedicated server, capacity is cores / server CPU per request)",
            Burst::ConnectInRequest => "seed 000",
        },
        kind: match burst {
            Burst::OpenedFirst => super::equal_load::KIND,
            Burst::ConnectInRequest => COMPARISON,
        },
        claim: match burst {
            Burst::OpenedFirst => format!("the blocking driver through spawn_blocking (JDBC on BoundedElastic) comes within {} of blocking's capacity on a dedicated server: blocking's server CPU per request over its own at equal load is at least {:.2}", pct(t.offload_within), 1.0 - t.offload_within),
            Burst::ConnectInRequest => format!("the blocking driver through spawn_blocking (JDBC on BoundedElastic) comes within {} of blocking's throughput, {}", pct(t.offload_within), burst.words("database")),
        },
        needs: Needs::Columns(vec![offloaded, blocking]),
        check: match burst {
            Burst::OpenedFirst => super::equal_load::within_capacity(offloaded, blocking),
            Burst::ConnectInRequest => comes_close(offloaded, blocking),
        },
    }
}

/// Seed 000: async peaks at far fewer threads. Under one burst only (the
/// groups' with every connection opened first): both counts are fixed by
/// settings, whatever connects when.
fn async_far_fewer_threads(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "async-far-fewer-threads",
        seed: "seed 000",
        kind: Kind::DesignCheck("both thread counts are fixed by settings: async's workers and pools against blocking's handler threads"),
        claim: format!("async peaks at no more than {} of blocking's thread count (each column on a fresh process), in the cpu and database groups (in the seed profile, seed 000's burst with every connection opened first: the counts are the settings', whatever the burst)", pct(t.thread_fraction)),
        needs: Needs::Columns(vec![C::BlockingCpu, C::AsyncCpu, C::BlockingUsers, C::AsyncUsers]),
        check: Box::new(|cx, t| {
            let pairs = [(C::AsyncCpu, C::BlockingCpu), (C::AsyncUsers, C::BlockingUsers)];
            let mut per_pair = Vec::new();
            let mut text = Vec::new();
            for (a, b) in pairs {
                let (ca, cb) = (cx.col(a)?, cx.col(b)?);
                per_pair.push(paired_rounds(ca, cb, |ra, rb| Some(peak_threads(ra)? / peak_threads(rb)?)));
                text.push(format!(
                    "{} vs {} threads at peak ({}, column medians)",
                    median(ca, peak_threads),
                    median(cb, peak_threads),
                    a.as_str().trim_start_matches("async-")
                ));
            }
            // Per round, the larger of the two groups' ratios: the claim is about both.
            let worst = across(&per_pair, f64::max);
            let evidence = format!("{}; async / blocking, the larger of the two: {}", text.join(", "), ratio_words(&worst, Some(Line { at: t.thread_fraction, margin: t.margin })));
            Some(Outcome::compared(&worst, (Side::Below, t.thread_fraction), t, evidence))
        }),
    }
}

/// Seed 001, by CPU: async spends less server CPU per /health request.
fn baseline_cpu_per_request(_t: &Thresholds) -> Spec {
    let pair = (ColumnId::AsyncHealth, ColumnId::BlockingHealth);
    Spec {
        id: "baseline-cpu-per-request",
        seed: "seed 001 (by server CPU per request, which shared cores disturb least)",
        kind: COMPARISON,
        claim: "the async server spends less CPU per /health request than the blocking server"
            .into(),
        needs: Needs::both(pair),
        check: ratio_check(
            pair,
            Compared::CpuPerRequest,
            ("column medians", "async / blocking"),
            (Side::Below, |_| 1.0),
        ),
    }
}
