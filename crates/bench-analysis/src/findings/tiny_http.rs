//! The findings about the design card's tiny_http 0.12: it starves
//! connections on a cold start, and runs a thread per open connection.

use super::checks::{across, median, paired_rounds, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratio_words, Line};
use crate::verdict::{judge, Call, Side};
use bench_model::figures::peak_threads;
use bench_model::ColumnId;
use bench_model::Verdict;

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![cold_start_unfair(t), thread_per_connection(t)]
}

/// What the cold-start probe says of "`unfair` starves some connection on
/// at least one cold start and `fair` starves none", from the late
/// connections per start. The probe is one observation, its starts a
/// count: it misses the claim as soon as `fair` starved one, or when
/// `unfair` starved none in `refute_starts` starts or more; it clears it
/// when `unfair` starved some and `fair` none; with fewer clean starts it
/// cannot tell.
pub fn cold_start_call(unfair: &[usize], fair: &[usize], refute_starts: usize) -> Call {
    let starved = |late: &[usize]| late.iter().any(|&n| n > 0);
    if starved(fair) {
        Call::Misses
    } else if starved(unfair) {
        Call::Clears
    } else if unfair.len() >= refute_starts {
        Call::Misses
    } else {
        Call::Unclear
    }
}

/// The verdict on the cold-start probe, judged by the one rule on its one
/// observation ([`cold_start_call`]).
pub fn cold_start_verdict(unfair: &[usize], fair: &[usize], refute_starts: usize) -> Verdict {
    judge([cold_start_call(unfair, fair, refute_starts)])
}

/// "0, 43, 0, 60 of 64 (on 2 of 4 cold starts)".
fn describe_late(late: &[usize], connections: usize) -> String {
    let each: Vec<String> = late.iter().map(|n| n.to_string()).collect();
    format!(
        "{} of {connections} (on {} of {} cold starts)",
        each.join(", "),
        late.iter().filter(|&&n| n > 0).count(),
        late.len()
    )
}

/// tiny_http starves some connections of a burst on a cold start; nio none.
pub(super) fn cold_start_unfair(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "tiny-http-cold-start-unfair",
            seed: "beyond the seeds: why the blocking server has its own connector",
            kind: Kind::Prediction("fresh servers probed by a burst of connections, which a fair connector can fail"),
            claim: format!(
                "on a freshly started server, tiny_http 0.12 leaves some connections of a burst without an answer within {:.0} ms on at least one cold start; our connector (nio) leaves none on any",
                t.cold_start_answer_within_ms
            ),
            needs: Needs::Columns(vec![C::BlockingHealthTinyHttp, C::BlockingHealth]),
            check: Box::new(|cx, t| {
                let (tiny, nio) = (
                    cx.cold_start(C::BlockingHealthTinyHttp)?,
                    cx.cold_start(C::BlockingHealth)?,
                );
                let connections = cx
                    .results
                    .groups
                    .iter()
                    .filter_map(|g| g.cold_start.as_ref())
                    .map(|p| p.connections)
                    .next()?;
                let within = t.cold_start_answer_within_ms;
                let (tiny_late, nio_late) = (tiny.late_per_start(within), nio.late_per_start(within));
                let late: Vec<f64> = tiny_late.iter().map(|&n| n as f64).collect();
                let evidence = format!(
                    "connections unanswered for over {within:.0} ms: tiny_http {}; nio {}",
                    describe_late(&tiny_late, connections),
                    describe_late(&nio_late, connections)
                );
                Some(Outcome::of_calls(
                    &late,
                    [cold_start_call(&tiny_late, &nio_late, t.cold_start_refute_starts)],
                    evidence,
                ))
            }),
    }
}

/// tiny_http peaks at more threads than nio under the same load.
pub(super) fn thread_per_connection(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "tiny-http-thread-per-connection",
            seed: "beyond the seeds: the design card's tiny_http, a reader thread per open connection",
            kind: Kind::DesignCheck("tiny_http starts a thread per connection by its design, and nio's pool is fixed by a setting"),
            claim: "tiny_http runs a thread per open connection: under the same load it peaks at more threads than our connector's fixed pool (nio), in the baseline, database and slow-downstream groups".into(),
            needs: Needs::Columns(vec![
                C::BlockingHealthTinyHttp,
                C::BlockingHealth,
                C::BlockingUsersTinyHttp,
                C::BlockingUsers,
                C::BlockingPostsTinyHttp,
                C::BlockingPosts,
            ]),
            check: Box::new(|cx, t| {
                let pairs = [
                    (C::BlockingHealthTinyHttp, C::BlockingHealth, "baseline"),
                    (C::BlockingUsersTinyHttp, C::BlockingUsers, "database"),
                    (C::BlockingPostsTinyHttp, C::BlockingPosts, "slow"),
                ];
                let mut per_pair = Vec::new();
                let mut text = Vec::new();
                for (tiny, nio, group) in pairs {
                    let (ct, cn) = (cx.col(tiny)?, cx.col(nio)?);
                    per_pair.push(paired_rounds(ct, cn, |rt, rn| Some(peak_threads(rt)? / peak_threads(rn)?)));
                    text.push(format!(
                        "{} vs {} threads at peak ({group}, column medians)",
                        median(ct, peak_threads),
                        median(cn, peak_threads)
                    ));
                }
                // Per round, the smallest of the three groups' ratios: the claim is about all.
                let least = across(&per_pair, f64::min);
                let evidence = format!("{}; tiny_http / nio, the smallest of the three: {}", text.join(", "), ratio_words(&least, Some(Line { at: 1.0, margin: t.margin })));
                Some(Outcome::compared(&least, (Side::Above, 1.0), t, evidence))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_clears_with_a_starved_start_and_a_fair_connector() {
        use Verdict::*;
        // tiny_http starved some on one start of four, nio none: held.
        assert_eq!(cold_start_verdict(&[0, 43, 0, 0], &[0, 0, 0, 0], 8), Held);
        // nio starved one connection once: not held, whatever tiny_http did.
        assert_eq!(cold_start_verdict(&[60, 43], &[0, 1], 8), NotHeld);
        // No starved start in 4: too few to refute; in 8, refuted.
        assert_eq!(cold_start_verdict(&[0; 4], &[0; 4], 8), Inconclusive);
        assert_eq!(cold_start_verdict(&[0; 8], &[0; 8], 8), NotHeld);
    }
}
