//! The real Loom's findings from fixed runs: the calibration-loom group,
//! each round's throughput, delivered round trip and pin counts set to
//! what the case tests (two cores, a pool of 10).

use std::collections::BTreeMap;

use super::test_runs::{assert_evidence_has, finding};
use bench_model::fixtures::{bench_round, column_of, group_of, results};
use bench_model::{ColumnId, ColumnResult, Driver, GroupId, JavaServer, Target};
use bench_model::{JvmWindow, ProxyWindow, RoundResult, RunResults, Verdict};

/// A round at `rps` whose proxy delivered a `round_trip_ms` round trip,
/// its JVM counting `pins` on /users/{id} (`None`: no JVM, or not counted).
fn round(n: u32, rps: f64, round_trip_ms: f64, pins: Option<Option<u64>>) -> RoundResult {
    let mut r = bench_round(n, rps);
    r.load.ok_requests = (rps * 2.0) as u64;
    r.postgres_proxy = Some(ProxyWindow {
        connections: 10,
        exchanges: 1000,
        delivered_seconds: round_trip_ms,
        setting_ms: 2.0,
    });
    r.jvm = pins.map(|counted| JvmWindow {
        version: "21.0.8+9-LTS".into(),
        pins_watched: counted.is_some(),
        pinned: counted.map_or_else(BTreeMap::new, |n| {
            BTreeMap::from([("/users/{id}".to_owned(), n)])
        }),
        ..JvmWindow::default()
    });
    r
}

fn column(id: ColumnId, target: Target, rounds: Vec<RoundResult>) -> ColumnResult {
    column_of(id, target, "/users/1", rounds)
}

const TOMCAT_VIRTUAL: Target = Target::Java(JavaServer::TomcatVirtual);

/// The group with Java 21 at `j21` req/s pinning `pins21` times per
/// request, Java 25 at `j25` pinning `pins25`, our drivers at 800 and 4200,
/// every round trip 2.2 ms.
fn loom(j21: [f64; 3], pins21: f64, j25: [f64; 3], pins25: f64) -> RunResults {
    let rounds = |rates: [f64; 3], pins: Option<f64>| -> Vec<RoundResult> {
        (1..=3)
            .zip(rates)
            .map(|(n, rps)| round(n, rps, 2.2, Some(pins.map(|p| (p * rps * 2.0) as u64))))
            .collect()
    };
    let ours = |rps: f64| (1..=3).map(|n| round(n, rps, 2.2, None)).collect();
    results(vec![group_of(
        GroupId::CalibrationLoom,
        vec![
            column(
                ColumnId::VirtualPinningUsersLoom,
                Target::Virtual(Driver::Pinning),
                ours(800.0),
            ),
            column(
                ColumnId::VirtualYieldingUsersLoom,
                Target::Virtual(Driver::Yielding),
                ours(4200.0),
            ),
            column(
                ColumnId::TomcatVirtualUsersJava21,
                TOMCAT_VIRTUAL,
                rounds(j21, Some(pins21)),
            ),
            column(
                ColumnId::TomcatVirtualUsersJava25,
                TOMCAT_VIRTUAL,
                rounds(j25, Some(pins25)),
            ),
        ],
    )])
}

#[test]
fn java_21_at_the_carriers_and_25_at_the_pool_hold_and_say_what_our_drivers_did() {
    // 2 carriers / 2.2 ms = 909 req/s; 10 connections / 2.2 ms = 4545.
    let run = loom([820.0, 850.0, 790.0], 1.2, [4300.0, 4100.0, 4400.0], 0.0);
    let carriers = finding(&run, "loom-java21-caps-at-carriers");
    assert_eq!(carriers.verdict, Verdict::Held, "{}", carriers.evidence);
    assert_evidence_has(
        &carriers,
        "our pinning driver over the same line: per round 0.88x",
    );
    let pool = finding(&run, "loom-java25-reaches-pool");
    assert_eq!(pool.verdict, Verdict::Held, "{}", pool.evidence);
    assert_evidence_has(&pool, "our yielding driver over the same line");
    assert_eq!(finding(&run, "loom-pins-agree").verdict, Verdict::Held);
    // Java 21 that does not pin (a pgjdbc of 42.6 or later) serves the
    // pool's bound: far from the carriers', and its pins say why.
    let unpinned = loom([4300.0; 3], 0.0, [4300.0; 3], 0.0);
    assert_eq!(
        finding(&unpinned, "loom-java21-caps-at-carriers").verdict,
        Verdict::NotHeld
    );
    assert_eq!(
        finding(&unpinned, "loom-pins-agree").verdict,
        Verdict::NotHeld
    );
    // Java 25 capped like Java 21 misses the pool's line.
    let capped = loom([820.0; 3], 1.2, [850.0; 3], 0.0);
    assert_eq!(
        finding(&capped, "loom-java25-reaches-pool").verdict,
        Verdict::NotHeld
    );
}

#[test]
fn pins_not_counted_or_a_round_trip_not_read_cannot_tell() {
    let mut run = loom([820.0; 3], 1.2, [4300.0; 3], 0.0);
    // Java 25's second round counted nothing (--no-pin-events): that round
    // cannot tell, the others agree.
    let j25 = &mut run.groups[0].columns[3].rounds[1];
    j25.jvm.as_mut().unwrap().pins_watched = false;
    let pins = finding(&run, "loom-pins-agree");
    assert_eq!(pins.verdict, Verdict::Inconclusive, "{}", pins.evidence);
    assert_evidence_has(&pins, "round 2: 1.20 vs NaN");
    // Without the proxy's reading there is no line: not measured.
    for r in &mut run.groups[0].columns[2].rounds {
        r.postgres_proxy = None;
    }
    let carriers = finding(&run, "loom-java21-caps-at-carriers");
    assert_eq!(carriers.verdict, Verdict::NotMeasured);
}
