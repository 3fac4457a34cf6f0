//! A concurrency sweep's figures from its rounds: a metric per step (the
//! median over column rounds, with min..max), the blocking server's cap by
//! Little's law, the plateau at the top steps, and the crossover step where
//! async first beats blocking. Pure functions of results, so they are tested
//! from fixed inputs.
//!
//! A sweep column keeps one [`RoundResult`] per step per column round
//! ([`RoundResult::step`]); `round` is the column round, so two columns'
//! figures at one step are paired by round as everywhere else in bench.

use std::time::Duration;

use crate::stats::{verdict, Metric, Side};
use bench_model::GroupId;
use bench_model::{ColumnResult, LittleCap, RoundResult, RunSettings};
use bench_model::{Spread, Verdict};

/// Successful completions per second in the step's window: the sweep's
/// throughput (errors, timeouts and requests unfinished at the window's end
/// do not count).
pub fn successful_rps(r: &RoundResult) -> Option<f64> {
    Some(r.load.successful_throughput_rps)
}

/// Requests of the step's window that got no answer: still in flight at
/// its end, or timed out.
pub fn unanswered(r: &RoundResult) -> Option<f64> {
    r.step.map(|s| (s.unfinished + s.timeouts) as f64)
}

/// Server CPU per answered request in the step's window (microseconds):
/// requests unfinished at the window's end or timed out are not divided by.
pub fn server_cpu_us_per_answer(r: &RoundResult) -> Option<f64> {
    let answered = r.load.total_requests.saturating_sub(unanswered(r)? as u64);
    (r.server_process.samples > 0 && answered > 0)
        .then(|| r.server_process.cpu_seconds * 1e6 / answered as f64)
}

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
        GroupId::SweepPosts => {
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

/// The lowest step from which the ratio's whole interval clears 1 by more
/// than `margin` at that step and at every step above it ("from here on,
/// async beats blocking by more than the margin"), from per-step ratio
/// spreads in ascending step order. One step that clears it between steps
/// that do not is no crossover: with seven noisy steps, one of them can
/// clear the margin by chance, and a rerun would move it.
pub fn crossover(ratios: &[(usize, Spread)], margin: f64) -> Option<usize> {
    let held = |r: &Spread| verdict(r, Side::Above, 1.0, margin) == Verdict::Held;
    let from = ratios
        .iter()
        .rposition(|(_, r)| !held(r))
        .map_or(0, |i| i + 1);
    ratios.get(from).map(|(step, _)| *step)
}

/// The verdict on "async beats blocking by more than the margin at some
/// step": HELD at a crossover; NOT HELD when at every step async misses
/// beating blocking by more than the margin (every round's ratio below
/// 1 - margin); INCONCLUSIVE otherwise.
pub fn crossover_verdict(ratios: &[(usize, Spread)], margin: f64) -> Verdict {
    if ratios.is_empty() {
        Verdict::NotMeasured
    } else if crossover(ratios, margin).is_some() {
        Verdict::Held
    } else if ratios
        .iter()
        .all(|(_, r)| verdict(r, Side::Above, 1.0, margin) == Verdict::NotHeld)
    {
        Verdict::NotHeld
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{CpuUse, Latency, LoadStats, ServerStats, SweepStep};

    fn step_round(round: u32, connections: usize, rps: f64) -> RoundResult {
        let latency = Latency {
            avg: 0.0,
            min: 0.0,
            max: 0.0,
            stdev: 0.0,
            p50: 0.0,
            p95: 0.0,
            p99: 0.0,
        };
        RoundResult {
            round,
            position: 0,
            load: LoadStats {
                total_requests: 0,
                ok_requests: 0,
                errors: 0,
                errors_by_kind: Default::default(),
                duration_seconds: 1.0,
                throughput_rps: rps,
                successful_throughput_rps: rps,
                latency_ms: latency,
                timeline: vec![],
                client_cpu_seconds: 0.0,
            },
            background_load: None,
            server_process: ServerStats::default(),
            cpu: CpuUse {
                window_seconds: 1.0,
                ..CpuUse::default()
            },
            server_counted_requests: None,
            machine_cpu_measured: true,
            not_measured: vec![],
            detector: None,
            step: Some(SweepStep {
                connections,
                fresh_server: false,
                latency_lower_bound_ms: latency,
                unfinished: 0,
                timeouts: 0,
            }),
        }
    }

    /// A sweep column: `rps[round][step]` at steps 50, 100, 200.
    fn column(rps: &[[f64; 3]]) -> ColumnResult {
        ColumnResult {
            id: bench_model::ColumnId::BlockingPostsSweep,
            label: "c".into(),
            server: bench_model::Target::Blocking,
            method: "GET".into(),
            path: "/posts/1".into(),
            background_path: None,
            rounds: rps
                .iter()
                .enumerate()
                .flat_map(|(i, steps)| {
                    [50, 100, 200]
                        .into_iter()
                        .zip(steps)
                        .map(move |(n, v)| step_round(i as u32 + 1, n, *v))
                })
                .collect(),
            failure: None,
        }
    }

    #[test]
    fn a_step_is_the_median_of_its_rounds_with_their_range() {
        let c = column(&[
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
    fn crossover_is_the_first_step_from_which_every_round_clears_the_margin() {
        let blocking = column(&[[100.0, 200.0, 400.0], [100.0, 200.0, 400.0]]);
        // At 50 a tie, at 100 one round only 4% ahead (not beyond the 5%
        // margin), at 200 both rounds ahead by 10% or more.
        let asynchronous = column(&[[100.0, 220.0, 440.0], [101.0, 208.0, 480.0]]);
        // Async's ratio to blocking at each step.
        let ratios_of = |asynchronous: &ColumnResult| -> Vec<(usize, Spread)> {
            [50, 100, 200]
                .into_iter()
                .filter_map(|n| Some((n, step_ratio(asynchronous, &blocking, n, successful_rps)?)))
                .collect()
        };
        let ratios = ratios_of(&asynchronous);
        assert_eq!(ratios[1].1.min, 1.04);
        assert_eq!(crossover(&ratios, 0.05), Some(200));
        assert_eq!(crossover_verdict(&ratios, 0.05), Verdict::Held);
        assert_eq!(crossover(&ratios[..2], 0.05), None);
        assert_eq!(crossover_verdict(&ratios[..2], 0.05), Verdict::Inconclusive);
        // Async behind by more than the margin everywhere: it never beat blocking.
        let ratios = ratios_of(&column(&[[50.0, 100.0, 200.0], [60.0, 100.0, 300.0]]));
        assert_eq!(crossover(&ratios, 0.05), None);
        assert_eq!(crossover_verdict(&ratios, 0.05), Verdict::NotHeld);
        // Ahead at 100 only, behind again at 200: no step from which async
        // stays ahead, so no crossover and no verdict either way.
        let ratios = ratios_of(&column(&[[100.0, 220.0, 300.0], [100.0, 230.0, 350.0]]));
        assert_eq!(crossover(&ratios, 0.05), None);
        assert_eq!(crossover_verdict(&ratios, 0.05), Verdict::Inconclusive);
    }
}
