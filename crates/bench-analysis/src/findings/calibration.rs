//! The calibration groups' findings: each compares one of our servers with
//! the real Java thing it is modelled on, never a server with its own
//! settings. Our blocking server matches Tomcat at every step of the
//! /posts/1 sweep, Netty goes past the thread cap as the async server
//! does, and our /health costs no more CPU per request than Tomcat's. The
//! other ratios (throughput on /health and /users/1, Netty against the
//! async server) are shown in the evidence, not judged.

use super::checks::{compare_columns, pct, Compared, Ctx, Kind, Needs, Outcome, Spec};
use super::sweeps::plateau_words;
use super::Thresholds;
use crate::stats::{ratio_words, ratios, share_words, Line};
use crate::sweep as sw;
use crate::verdict::Side;
use bench_model::figures::successful_rps;
use bench_model::{ColumnId, ColumnResult, GroupId, RoundResult, SweepInfo};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        blocking_matches_tomcat(t),
        netty_past_cap(t),
        health_cpu_not_above_tomcat(t),
    ]
}

/// Requests of a step that failed: its errors less those still in flight
/// when the window was cut, which a closed loop always has and which are
/// answered after the window, not refused.
fn failed(r: &RoundResult) -> u64 {
    r.load
        .errors
        .saturating_sub(r.step.map_or(0, |s| s.unfinished))
}

/// How far `ours` is from `theirs` in one step of one round: the larger of
/// the successful throughputs' relative gap and our failed requests beyond
/// theirs ([`failed`]) as a share of the step's requests.
fn step_gap(ours: &RoundResult, theirs: &RoundResult) -> f64 {
    let rate = |r| successful_rps(r).unwrap_or(0.0);
    let (a, b) = (rate(ours), rate(theirs));
    let throughput = if b > 0.0 {
        (a / b - 1.0).abs()
    } else if a > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    let requests = ours
        .load
        .total_requests
        .max(theirs.load.total_requests)
        .max(1);
    let extra_failed = failed(ours).saturating_sub(failed(theirs));
    throughput.max(extra_failed as f64 / requests as f64)
}

/// The round of `c` at `step` connections in column round `round`.
fn at_round(c: &ColumnResult, step: usize, round: u32) -> Option<&RoundResult> {
    sw::at_step(c, step).find(|r| r.round == round)
}

/// Per round, the worst step's gap ([`step_gap`]); a round that lacks a
/// step on either side is not a number (it cannot tell).
fn worst_gap_per_round(ours: &ColumnResult, theirs: &ColumnResult, info: &SweepInfo) -> Vec<f64> {
    let mut rounds: Vec<u32> = ours.rounds.iter().map(|r| r.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds
        .into_iter()
        .map(|round| {
            info.steps
                .iter()
                .map(
                    |&n| match (at_round(ours, n, round), at_round(theirs, n, round)) {
                        (Some(a), Some(b)) => step_gap(a, b),
                        _ => f64::NAN,
                    },
                )
                .fold(0.0, |worst: f64, gap| {
                    if worst.is_nan() || gap.is_nan() {
                        f64::NAN
                    } else {
                        worst.max(gap)
                    }
                })
        })
        .collect()
}

/// "100: 1.00x (failed 0 vs 0), 400: ..." for each step, medians over rounds.
fn per_step_words(ours: &ColumnResult, theirs: &ColumnResult, info: &SweepInfo) -> String {
    let errors = |r: &RoundResult| Some(failed(r) as f64);
    let list: Vec<String> = info
        .steps
        .iter()
        .map(|&n| {
            let ratio = sw::step_ratio(ours, theirs, n, successful_rps)
                .map_or("n/a".to_owned(), |s| format!("{:.2}x", s.median));
            let e = |c: &ColumnResult| {
                sw::step_spread(c, n, errors)
                    .map_or("n/a".to_owned(), |s| format!("{:.0}", s.median))
            };
            // The connections a full backlog dropped (Tomcat asks for 100,
            // ours for 4096): their clients try again a second later, which
            // is the step's p99, not its throughput.
            let overflows = |c: &ColumnResult| {
                sw::step_spread(c, n, |r| r.step?.listen_overflows.map(|v| v as f64))
                    .map(|s| format!("{:.0}", s.median))
            };
            let dropped = match (overflows(ours), overflows(theirs)) {
                (Some(a), Some(b)) => format!("; backlog overflows {a} vs {b}"),
                _ => String::new(),
            };
            format!(
                "{n}: {ratio} (failed {} vs {}{dropped})",
                e(ours),
                e(theirs)
            )
        })
        .collect();
    format!(
        "blocking/Tomcat successful throughput per step (medians over rounds) {}",
        list.join(", ")
    )
}

/// Our blocking server serves /posts/1 as Tomcat does, step by step.
fn blocking_matches_tomcat(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "calibration-blocking-matches-tomcat",
        seed: "beyond the seeds: the blocking server against the Tomcat it models",
        kind: Kind::Prediction("two implementations' measured throughput and errors compared at each step of a sweep"),
        claim: format!(
            "at every step of the /posts/1 sweep, our blocking server's successful throughput is within {} of embedded Tomcat's (as many handler threads each), and its failed requests (errors other than those cut off in flight at the window's end) exceed Tomcat's by at most {} of the step's requests",
            pct(t.calibration_within),
            pct(t.calibration_within)
        ),
        needs: Needs::Columns(vec![C::BlockingPostsCalibration, C::TomcatPosts]),
        check: Box::new(|cx, t| {
            let info = cx.sweep(GroupId::CalibrationPosts)?;
            let (ours, tomcat) = (cx.col(C::BlockingPostsCalibration)?, cx.col(C::TomcatPosts)?);
            let worst = worst_gap_per_round(ours, tomcat, info);
            let short = format!("worst step's gap {}", share_words(&worst));
            let evidence = format!("{short}; {}", per_step_words(ours, tomcat, info));
            Some(
                Outcome::judged(&worst, (Side::Below, t.calibration_within), t, evidence)
                    .with_short(short),
            )
        }),
    }
}

/// Netty's plateau on /posts/1 goes past the blocking cap, as the async
/// server's does.
fn netty_past_cap(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "calibration-netty-past-cap",
        seed: "beyond the seeds: the async server against the Netty it models",
        kind: Kind::DesignCheck("a scheduled timer holds no thread, in Netty as in tokio; the line, the blocking server's cap, is far below what the cores allow"),
        claim: "Netty's plateau on /posts/1 goes past the thread pool's predicted cap (handler threads / 300 ms), as the async server's does".into(),
        needs: Needs::Columns(vec![C::NettyPosts]),
        check: Box::new(|cx, t| {
            let info = cx.sweep(GroupId::CalibrationPosts)?;
            let cap = info.cap?;
            let netty = cx.col(C::NettyPosts)?;
            let plateau = |c: &ColumnResult| {
                sw::plateau_per_round(c, &info.steps, t.sweep_plateau_steps, successful_rps)
            };
            let over: Vec<f64> = plateau(netty).iter().map(|p| p.1 / cap.rps).collect();
            let ours = cx.col(C::AsyncPostsCalibration).map_or_else(
                || "the async server not measured".to_owned(),
                |a| {
                    let r: Vec<f64> = plateau(a).iter().map(|p| p.1 / cap.rps).collect();
                    format!("the async server's / cap: {}", ratio_words(&r, None))
                },
            );
            let line = Some(Line { at: 1.0, margin: t.margin });
            let short = format!("Netty plateau / cap {:.0} req/s: {}", cap.rps, ratio_words(&over, line));
            let evidence = format!(
                "Netty {} / cap {:.0} req/s: {}; {ours}",
                plateau_words(netty, info, t),
                cap.rps,
                ratio_words(&over, line)
            );
            Some(Outcome::judged(&over, (Side::Above, 1.0), t, evidence).with_short(short))
        }),
    }
}

/// "a/b: 0.95x" for two columns' throughput, when both were measured.
fn shown_ratio(cx: &Ctx<'_>, what: &str, a: ColumnId, b: ColumnId) -> Option<String> {
    let (ca, cb) = (cx.col(a)?, cx.col(b)?);
    Some(format!(
        "{what} {}",
        ratio_words(&ratios(ca, cb, successful_rps), None)
    ))
}

/// Our /health costs the server no more CPU per request than Tomcat's.
fn health_cpu_not_above_tomcat(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
        id: "calibration-health-cpu-not-above-tomcat",
        seed: "beyond the seeds: the cost of a request, ours against Tomcat's",
        kind: Kind::Prediction("two implementations' measured CPU per request compared round by round"),
        claim: "on /health, our blocking server spends at most as much server CPU per request as embedded Tomcat; the throughput ratios of every pair are shown, not judged".into(),
        needs: Needs::Columns(vec![C::BlockingHealthCalibration, C::TomcatHealth]),
        check: Box::new(|cx, t| {
            let (per_round, short) = compare_columns(
                (cx.col(C::BlockingHealthCalibration)?, cx.col(C::TomcatHealth)?),
                Compared::CpuPerRequest,
                ("column medians", "blocking/Tomcat"),
                Line { at: 1.0, margin: t.margin },
            );
            let shown: Vec<String> = [
                ("/health throughput blocking/Tomcat", C::BlockingHealthCalibration, C::TomcatHealth),
                ("/health throughput async/Netty", C::AsyncHealthCalibration, C::NettyHealth),
                ("/users/1 throughput blocking/Tomcat", C::BlockingUsersCalibration, C::TomcatUsers),
            ]
            .into_iter()
            .filter_map(|(what, a, b)| shown_ratio(cx, what, a, b))
            .collect();
            let evidence = format!("{short}; shown, not judged: {}", shown.join("; "));
            Some(
                Outcome::compared(&per_round, (Side::Below, 1.0), t, evidence).with_short(short),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::fixtures::{at_step, bench_round, column_of};

    /// Round `round` at `connections`: 1000 requests answered at `ok_rps`,
    /// `errors` more failed, `unfinished` of those still in flight.
    fn step(
        round: u32,
        connections: usize,
        ok_rps: f64,
        errors: u64,
        unfinished: u64,
    ) -> RoundResult {
        let mut r = at_step(bench_round(round, ok_rps), connections);
        r.load.ok_requests = 1000;
        r.load.errors = errors;
        r.load.total_requests = 1000 + errors;
        if let Some(s) = &mut r.step {
            s.unfinished = unfinished;
        }
        r
    }

    fn column(steps: &[(u32, usize, f64, u64)]) -> ColumnResult {
        let steps: Vec<_> = steps.iter().map(|&(r, n, x, e)| (r, n, x, e, 0)).collect();
        column_cut(&steps)
    }

    /// Like [`column`], with each step's requests cut off in flight.
    fn column_cut(steps: &[(u32, usize, f64, u64, u64)]) -> ColumnResult {
        let rounds = steps
            .iter()
            .map(|&(r, n, x, e, u)| step(r, n, x, e, u))
            .collect();
        column_of(
            ColumnId::BlockingPostsCalibration,
            bench_model::Target::Blocking,
            "/posts/1",
            rounds,
        )
    }

    /// A sweep of 100 and 400 connections in `rounds`.
    fn two_steps(rounds: u32) -> SweepInfo {
        SweepInfo {
            steps: vec![100, 400],
            rounds,
            window_seconds: 1.0,
            warm_up_seconds: 0.0,
            cap: None,
            cap_note: String::new(),
        }
    }

    #[test]
    fn each_step_says_the_connections_a_full_backlog_dropped() {
        let info = two_steps(1);
        let with = |mut c: ColumnResult, at_400: u64| {
            for r in &mut c.rounds {
                if let Some(s) = &mut r.step {
                    s.listen_overflows = Some(if s.connections == 400 { at_400 } else { 0 });
                }
            }
            c
        };
        let ours = with(column(&[(1, 100, 330.0, 0), (1, 400, 660.0, 0)]), 0);
        let tomcat = with(column(&[(1, 100, 330.0, 0), (1, 400, 620.0, 0)]), 94);
        let words = per_step_words(&ours, &tomcat, &info);
        assert!(
            words.ends_with("400: 1.06x (failed 0 vs 0; backlog overflows 0 vs 94)"),
            "{words}"
        );
    }

    #[test]
    fn the_worst_step_decides_a_round_and_extra_errors_count() {
        let info = two_steps(2);
        let ours = column(&[
            (1, 100, 330.0, 0),
            (1, 400, 660.0, 0),
            (2, 100, 330.0, 0),
            (2, 400, 600.0, 0),
        ]);
        let tomcat = column(&[
            (1, 100, 333.0, 0),
            (1, 400, 660.0, 0),
            (2, 100, 330.0, 0),
            (2, 400, 660.0, 0),
        ]);
        let worst = worst_gap_per_round(&ours, &tomcat, &info);
        assert!((worst[0] - (1.0 - 330.0 / 333.0)).abs() < 1e-9, "{worst:?}");
        assert!((worst[1] - (1.0 - 600.0 / 660.0)).abs() < 1e-9, "{worst:?}");
        // Our errors beyond Tomcat's, as a share of the step's requests.
        let ours = column(&[(1, 100, 330.0, 100), (1, 400, 660.0, 0)]);
        let tomcat = column(&[(1, 100, 330.0, 0), (1, 400, 660.0, 0)]);
        let worst = worst_gap_per_round(&ours, &tomcat, &info);
        assert!((worst[0] - 100.0 / 1100.0).abs() < 1e-9, "{worst:?}");
        // Requests cut off in flight at the window's end are not failures;
        // a failure hidden among them still counts.
        let ours = column_cut(&[(1, 100, 330.0, 100, 100), (1, 400, 660.0, 150, 100)]);
        let worst = worst_gap_per_round(&ours, &tomcat, &info);
        assert!((worst[0] - 50.0 / 1150.0).abs() < 1e-9, "{worst:?}");
        // A step Tomcat lacks: the round cannot tell.
        let tomcat = column(&[(1, 100, 330.0, 0)]);
        assert!(worst_gap_per_round(&ours, &tomcat, &info)[0].is_nan());
    }
}
