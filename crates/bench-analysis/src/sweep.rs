//! A concurrency sweep's figures from its rounds: a metric per step (the
//! median over column rounds, with min..max), the blocking server's cap by
//! Little's law, the plateau at the top steps (a plateau only when those
//! steps agree within the margin; else the throughput is still rising, or
//! falling, at the highest step: [`top_of`]), and each round's crossover
//! step, from which async beats blocking up to the highest step. Pure
//! functions of results, so they are tested from fixed inputs.
//!
//! A sweep column keeps one [`RoundResult`] per step per column round
//! ([`RoundResult::step`]); `round` is the column round, so two columns'
//! figures at one step are paired by round as everywhere else in bench.

use std::time::Duration;

use crate::verdict::{call, within_margin_of_one, Call, Side};
use bench_model::GroupId;
use bench_model::Spread;
use bench_model::{ColumnResult, LittleCap, Metric, RoundResult, RunSettings};

/// The step's connections, for a sweep round.
pub fn connections(r: &RoundResult) -> Option<usize> {
    r.step.map(|s| s.connections)
}

/// The rounds of `c` at `step` connections.
pub fn at_step(c: &ColumnResult, step: usize) -> impl Iterator<Item = &RoundResult> {
    c.rounds
        .iter()
        .filter(move |r| connections(r) == Some(step))
}

/// `metric` at `step` over the column rounds: median, min..max.
pub fn step_spread(c: &ColumnResult, step: usize, metric: Metric) -> Option<Spread> {
    Spread::of(at_step(c, step).filter_map(metric))
}

/// Per round (by number), `a`'s metric over `b`'s at `step`.
pub fn step_ratio(
    a: &ColumnResult,
    b: &ColumnResult,
    step: usize,
    metric: Metric,
) -> Option<Spread> {
    Spread::of(at_step(a, step).filter_map(|ra| {
        let rb = at_step(b, step).find(|rb| rb.round == ra.round)?;
        let (x, y) = (metric(ra)?, metric(rb)?);
        (y != 0.0).then(|| x / y)
    }))
}

/// The blocking server's cap by Little's law: `handler_threads` requests at
/// once, each holding its thread for `latency`.
pub fn littles_law_cap(handler_threads: u32, latency: Duration) -> LittleCap {
    let latency_ms = latency.as_secs_f64() * 1000.0;
    LittleCap {
        handler_threads,
        latency_ms,
        rps: if latency_ms > 0.0 {
            f64::from(handler_threads) * 1000.0 / latency_ms
        } else {
            f64::INFINITY
        },
    }
}

/// The cap drawn for a sweep group, or none, with the reason either way.
///
/// `/posts/1` holds a handler thread for the route's fixed 300 ms
/// ([`contract::posts::POST_DELAY`]) and nothing else limits it, so
/// Little's law gives the cap exactly: handler threads / 0.3 s. `/users/1`
/// has no fixed time per request: each holds a pooled Postgres connection
/// (10 by default) for a query whose time grows with the load on the two
/// cores that Postgres, the server and the load generator share, so a line
/// from the low-load latency would be a guess presented as a law; none is
/// drawn, and the users sweep is judged on the crossover alone.
pub fn cap_for(group: GroupId, settings: &RunSettings) -> (Option<LittleCap>, String) {
    match group {
        // The calibration sweep's Tomcat has as many handler threads (bench
        // gives it the blocking server's), so the same cap is both's.
        GroupId::SweepPosts | GroupId::CalibrationPosts => {
            let cap = littles_law_cap(
                settings.blocking_handler_threads,
                contract::posts::POST_DELAY,
            );
            let note = format!(
                "blocking cap (Little's law): {} handler threads / {:.0} ms per request = {:.0} req/s",
                cap.handler_threads, cap.latency_ms, cap.rps
            );
            (Some(cap), note)
        }
        _ => (
            None,
            format!(
                "no cap line: a /users/1 request holds one of the {} pooled Postgres connections for a query whose time grows with the load on the shared cores, so no fixed latency gives a cap by Little's law",
                settings.db_pool_size
            ),
        ),
    }
}

/// The median of `values`, NaN when empty.
fn median_of(values: impl IntoIterator<Item = f64>) -> f64 {
    Spread::of(values).map_or(f64::NAN, |s| s.median)
}

/// The plateau of `c` per column round: the median of `metric` over the
/// `top` highest of `steps`, as (round, value).
pub fn plateau_per_round(
    c: &ColumnResult,
    steps: &[usize],
    top: usize,
    metric: Metric,
) -> Vec<(u32, f64)> {
    let top_steps: Vec<usize> = steps.iter().rev().take(top.max(1)).copied().collect();
    let mut rounds: Vec<u32> = c.rounds.iter().map(|r| r.round).collect();
    rounds.dedup();
    rounds
        .into_iter()
        .filter_map(|round| {
            let values: Vec<f64> = c
                .rounds
                .iter()
                .filter(|r| {
                    r.round == round && connections(r).is_some_and(|n| top_steps.contains(&n))
                })
                .filter_map(metric)
                .collect();
            (!values.is_empty()).then(|| (round, median_of(values)))
        })
        .collect()
}

/// The plateau of `c` ([`plateau_per_round`]) as a spread over rounds.
pub fn plateau(c: &ColumnResult, steps: &[usize], top: usize, metric: Metric) -> Option<Spread> {
    Spread::of(
        plateau_per_round(c, steps, top, metric)
            .into_iter()
            .map(|(_, v)| v),
    )
}

/// What a sweep column's throughput does at its top steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// In every round its top steps agree within the margin: a plateau.
    Plateau,
    /// They do not, and the highest step is above the others (medians
    /// over rounds): still rising, the most it can do not yet reached.
    Rising,
    /// They do not, and the highest step is below: falling, past its best.
    Falling,
}

impl Shape {
    /// "still rising", "falling"; nothing for a plateau.
    pub fn words(self) -> Option<&'static str> {
        match self {
            Shape::Plateau => None,
            Shape::Rising => Some("still rising"),
            Shape::Falling => Some("falling"),
        }
    }
}

/// A sweep column at its top steps: its shape, and the figure a reader
/// compares: the plateau ([`plateau`]) when it is one, else `metric` at
/// the highest step (over rounds), where it is still rising or falling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Top {
    pub shape: Shape,
    pub figure: Spread,
    /// The steps the figure is taken over: the `top` highest for a
    /// plateau, the highest alone otherwise.
    pub steps: usize,
}

/// `c`'s shape at the `top` highest of `steps` by successful throughput
/// (`rps`), and `metric` taken as that shape says: over the top steps on
/// a plateau, at the highest step otherwise; `None` without a measured
/// step there. The top steps agree when each round's are within `margin`
/// of their median.
pub fn top_of(
    c: &ColumnResult,
    steps: &[usize],
    (top, margin): (usize, f64),
    (rps, metric): (Metric, Metric),
) -> Option<Top> {
    let top_steps: Vec<usize> = steps.iter().rev().take(top.max(1)).copied().collect();
    let flat_in = |round: u32| {
        let values: Vec<f64> = top_steps
            .iter()
            .filter_map(|&n| at_step(c, n).find(|r| r.round == round).and_then(rps))
            .collect();
        let middle = median_of(values.iter().copied());
        values
            .iter()
            .all(|&v| v == middle || within_margin_of_one(v / middle, margin))
    };
    let mut rounds: Vec<u32> = c.rounds.iter().map(|r| r.round).collect();
    rounds.dedup();
    let shape = if rounds.into_iter().all(flat_in) {
        Shape::Plateau
    } else {
        let highest = step_spread(c, top_steps[0], rps)?.median;
        let below = median_of(
            top_steps[1..]
                .iter()
                .filter_map(|&n| step_spread(c, n, rps).map(|s| s.median)),
        );
        if highest >= below {
            Shape::Rising
        } else {
            Shape::Falling
        }
    };
    let (figure, steps) = match shape {
        Shape::Plateau => (plateau(c, steps, top, metric)?, top_steps.len()),
        _ => (step_spread(c, top_steps[0], metric)?, 1),
    };
    Some(Top {
        shape,
        figure,
        steps,
    })
}

/// The fewest steps a crossover spans: one step out of seven can clear the
/// margin by chance, and a rerun would move it, so one step alone is not a
/// crossover.
pub const CROSSOVER_MIN_STEPS: usize = 2;

/// Per column round, `a`'s metric over `b`'s at each of `steps` (ascending)
/// both measured in that round: (round, [(step, ratio)]).
pub fn round_step_ratios(
    a: &ColumnResult,
    b: &ColumnResult,
    steps: &[usize],
    metric: Metric,
) -> Vec<(u32, Vec<(usize, f64)>)> {
    let mut rounds: Vec<u32> = a.rounds.iter().map(|r| r.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds
        .into_iter()
        .map(|round| {
            let at = |c: &ColumnResult, n: usize| {
                at_step(c, n).find(|r| r.round == round).and_then(metric)
            };
            let ratios = steps
                .iter()
                .filter_map(|&n| Some((n, at(a, n)? / at(b, n)?)))
                .collect();
            (round, ratios)
        })
        .collect()
}

/// The crossover of one round: the lowest step from which the ratio clears
/// 1 by more than `margin` at that step and at every step above it, when
/// that spans at least [`CROSSOVER_MIN_STEPS`] steps; from per-step ratios
/// in ascending step order.
pub fn crossover(ratios: &[(usize, f64)], margin: f64) -> Option<usize> {
    let clears = |r: f64| call(r, Side::Above, 1.0, margin) == Call::Clears;
    let span = ratios.iter().rev().take_while(|(_, r)| clears(*r)).count();
    (span >= CROSSOVER_MIN_STEPS).then(|| ratios[ratios.len() - span].0)
}

/// What one round says of "async beats blocking by more than the margin
/// from some step on, at every step up to the highest": it clears with a
/// crossover; it misses when it has none even at the line less the margin
/// (a ratio under 1 - margin among its top [`CROSSOVER_MIN_STEPS`] steps);
/// otherwise it cannot tell.
pub fn crossover_call(ratios: &[(usize, f64)], margin: f64) -> Call {
    if crossover(ratios, margin).is_some() {
        return Call::Clears;
    }
    let not_missed = ratios
        .iter()
        .rev()
        .take_while(|(_, r)| call(*r, Side::Above, 1.0, margin) != Call::Misses)
        .count();
    if not_missed < CROSSOVER_MIN_STEPS {
        Call::Misses
    } else {
        Call::Unclear
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::figures::successful_rps;
    use bench_model::fixtures::{at_step, bench_round, column};

    /// A sweep column: `rps[round][step]` at steps 50, 100, 200.
    fn sweep_column(rps: &[[f64; 3]]) -> ColumnResult {
        let mut c = column("blocking-posts-sweep", "blocking", &[], 20);
        c.rounds = rps
            .iter()
            .zip(1..)
            .flat_map(|(steps, round)| {
                [50, 100, 200]
                    .into_iter()
                    .zip(steps)
                    .map(move |(n, &v)| at_step(bench_round(round, v), n))
            })
            .collect();
        c
    }

    #[test]
    fn a_step_is_the_median_of_its_rounds_with_their_range() {
        let c = sweep_column(&[
            [10.0, 300.0, 650.0],
            [12.0, 310.0, 640.0],
            [11.0, 290.0, 700.0],
        ]);
        assert_eq!(
            step_spread(&c, 100, successful_rps),
            Some(Spread {
                median: 300.0,
                min: 290.0,
                max: 310.0,
                n: 3
            })
        );
        assert_eq!(
            step_spread(&c, 200, successful_rps).map(|s| s.median),
            Some(650.0)
        );
        assert_eq!(step_spread(&c, 400, successful_rps), None);
        // The plateau over the top two steps: per round the median of
        // (300, 650) = 475, (310, 640) = 475, (290, 700) = 495.
        assert_eq!(
            plateau(&c, &[50, 100, 200], 2, successful_rps),
            Some(Spread {
                median: 475.0,
                min: 475.0,
                max: 495.0,
                n: 3
            })
        );
    }

    #[test]
    fn a_plateau_is_one_only_when_its_top_steps_agree() {
        let top = |rps: &[[f64; 3]]| {
            top_of(
                &sweep_column(rps),
                &[50, 100, 200],
                (2, 0.05),
                (successful_rps, successful_rps),
            )
            .unwrap()
        };
        // 660 and 666 at the two top steps: a plateau, their median.
        let flat = top(&[[10.0, 660.0, 666.0], [10.0, 662.0, 667.0]]);
        assert_eq!(flat.shape, Shape::Plateau);
        assert_eq!(flat.figure.median, 663.75);
        assert_eq!(flat.steps, 2);
        // The event loop's 5329 and 10406: still rising, the figure at the
        // highest step, never their mean.
        let rising = top(&[[10.0, 5329.0, 10406.0], [10.0, 5328.0, 10499.0]]);
        assert_eq!(rising.shape, Shape::Rising);
        assert_eq!(rising.figure.median, 10452.5);
        assert_eq!(rising.steps, 1);
        assert_eq!(rising.shape.words(), Some("still rising"));
        // One round of two rising: not a plateau.
        assert_eq!(
            top(&[[10.0, 660.0, 666.0], [10.0, 400.0, 666.0]]).shape,
            Shape::Rising
        );
        let falling = top(&[[10.0, 900.0, 600.0], [10.0, 910.0, 610.0]]);
        assert_eq!(falling.shape, Shape::Falling);
        assert_eq!(falling.figure.median, 605.0);
    }

    #[test]
    fn the_cap_is_handler_threads_over_the_latency() {
        let cap = littles_law_cap(200, Duration::from_millis(300));
        assert_eq!(cap.handler_threads, 200);
        assert_eq!(cap.latency_ms, 300.0);
        assert!(
            (cap.rps - 666.666_666_666_666_6).abs() < 1e-9,
            "{}",
            cap.rps
        );
        assert_eq!(littles_law_cap(4, Duration::from_millis(250)).rps, 16.0);
    }

    #[test]
    fn a_round_crossover_spans_two_steps_up_to_the_highest() {
        let m = 0.05;
        let r = |v: &[f64]| -> Vec<(usize, f64)> {
            [50, 100, 200].into_iter().zip(v.iter().copied()).collect()
        };
        // Ahead by more than the margin at 100 and 200: a crossover at 100.
        assert_eq!(crossover(&r(&[1.0, 1.1, 1.2]), m), Some(100));
        assert_eq!(crossover_call(&r(&[1.0, 1.1, 1.2]), m), Call::Clears);
        // Ahead at the top step only: no crossover; within the margin below
        // it, so the round cannot tell; behind there, it misses.
        assert_eq!(crossover(&r(&[1.0, 1.04, 1.2]), m), None);
        assert_eq!(crossover_call(&r(&[1.0, 1.04, 1.2]), m), Call::Unclear);
        assert_eq!(crossover_call(&r(&[1.0, 0.9, 1.2]), m), Call::Misses);
        // Ahead in the middle, behind at the top: misses.
        assert_eq!(crossover_call(&r(&[1.0, 1.3, 0.8]), m), Call::Misses);
    }

    #[test]
    fn each_rounds_ratios_pair_steps_within_the_round() {
        let blocking = sweep_column(&[[100.0, 200.0, 400.0], [100.0, 200.0, 400.0]]);
        let asynchronous = sweep_column(&[[100.0, 220.0, 440.0], [101.0, 208.0, 480.0]]);
        let per_round =
            round_step_ratios(&asynchronous, &blocking, &[50, 100, 200], successful_rps);
        assert_eq!(per_round.len(), 2);
        assert_eq!(per_round[0], (1, vec![(50, 1.0), (100, 1.1), (200, 1.1)]));
        assert_eq!(per_round[1].1[1], (100, 1.04));
        assert_eq!(crossover(&per_round[0].1, 0.05), Some(100));
        assert_eq!(crossover(&per_round[1].1, 0.05), None);
    }
}
