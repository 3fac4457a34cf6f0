//! The one verdict rule on crafted rounds: HELD when every round clears
//! the line by the margin, NOT HELD when every round misses it, otherwise
//! INCONCLUSIVE; a round in which nothing succeeded counts at 0 requests
//! per second, its errors in the evidence; and a sweep round in which
//! async wins only at its top step has no crossover.
//!
//! The rounds are the saved seed run's (docs/results/seed-2026-12-03),
//! their figures set to what each case tests.

use bench_analysis::findings::check;
use bench_analysis::sweep::{crossover, crossover_call};
use bench_analysis::verdict::{judge, Call};
use bench_model::fixtures::{column_in_mut, saved_run};
use bench_model::{ColumnId, ErrorKind, Finding, RunResults, Verdict, THRESHOLDS};

fn saved() -> RunResults {
    saved_run("seed-2026-12-03").results
}

/// Fails, showing the whole evidence, unless `f`'s evidence holds `part`.
#[track_caller]
fn assert_evidence_has(f: &Finding, part: &str) {
    assert!(f.evidence.contains(part), "no {part:?} in: {}", f.evidence);
}

fn finding(run: &RunResults, id: &str) -> Finding {
    check(run, &THRESHOLDS)
        .into_iter()
        .find(|f| f.id == id)
        .unwrap()
}

/// Sets column `id`'s successful requests per second, round by round; a
/// round at 0 had every one of its 1000 requests refused.
fn set_rps(run: &mut RunResults, id: ColumnId, rps: &[f64]) {
    let column = column_in_mut(run, id);
    column.rounds.truncate(rps.len());
    for (r, &x) in column.rounds.iter_mut().zip(rps) {
        r.load.successful_throughput_rps = x;
        r.load.throughput_rps = x.max(1000.0);
        r.load.total_requests = 1000;
        r.load.ok_requests = if x > 0.0 { 1000 } else { 0 };
        r.load.errors = 1000 - r.load.ok_requests;
        r.load.errors_by_kind.clear();
        if r.load.errors > 0 {
            r.load.errors_by_kind.insert(ErrorKind::Connect, 1000);
        }
    }
}

/// "one shared Redis connection serves more requests per second than a
/// pool", with these rates per round: the shared connection's (async
/// /users/1/cache) and the pool's.
fn cache_wins(shared: &[f64], pool: &[f64]) -> Finding {
    let mut run = saved();
    set_rps(&mut run, ColumnId::AsyncCache, shared);
    set_rps(&mut run, ColumnId::AsyncCachePool, pool);
    finding(&run, "cache-shared-connection-beats-pool")
}

#[test]
fn every_round_clears_held_every_round_misses_not_held_else_inconclusive() {
    let blocking = [1000.0; 3];
    let all_clear = cache_wins(&[2000.0, 1100.0, 3000.0], &blocking);
    assert_eq!(all_clear.verdict, Verdict::Held, "{}", all_clear.evidence);
    let all_miss = cache_wins(&[500.0, 940.0, 900.0], &blocking);
    assert_eq!(all_miss.verdict, Verdict::NotHeld, "{}", all_miss.evidence);
    // One round the other way, or one within the 5% margin: the rounds
    // cannot tell.
    let mixed = cache_wins(&[2000.0, 500.0, 2000.0], &blocking);
    assert_eq!(mixed.verdict, Verdict::Inconclusive, "{}", mixed.evidence);
    let near = cache_wins(&[2000.0, 1040.0, 2000.0], &blocking);
    assert_eq!(near.verdict, Verdict::Inconclusive, "{}", near.evidence);
    // The evidence shows the ratios as they were judged: per round, with
    // their median, beside the column medians.
    assert_evidence_has(&mixed, "per round 2.00x, 0.50x, 2.00x (median 2.00x)");
    assert_evidence_has(&mixed, "(column medians)");
}

#[test]
fn a_round_without_a_success_counts_at_zero_with_its_errors_in_the_evidence() {
    // The shared connection got nothing in round 2: a round at 0 req/s,
    // which misses the line; left out, the other two would have made it HELD.
    let f = cache_wins(&[2000.0, 0.0, 2000.0], &[1000.0; 3]);
    assert_eq!(f.verdict, Verdict::Inconclusive, "{}", f.evidence);
    assert!(
        f.evidence.ends_with(
            "no request succeeded, counted at 0 req/s: async-cache round 2 (1000 errors: connect 1000)"
        ),
        "{}",
        f.evidence
    );
    // Every round of it at 0: NOT HELD, not NOT MEASURED.
    let f = cache_wins(&[0.0; 3], &[1000.0; 3]);
    assert_eq!(f.verdict, Verdict::NotHeld, "{}", f.evidence);
    // The pool got nothing in a round: the shared connection beat it there.
    let f = cache_wins(&[2000.0; 3], &[1000.0, 0.0, 1000.0]);
    assert_eq!(f.verdict, Verdict::Held, "{}", f.evidence);
    assert_evidence_has(&f, "per round 2.00x, inf, 2.00x");
}

#[test]
fn the_rule_itself() {
    use Call::*;
    assert_eq!(judge([Clears, Clears, Clears]), Verdict::Held);
    assert_eq!(judge([Misses, Misses]), Verdict::NotHeld);
    assert_eq!(judge([Clears, Misses, Clears]), Verdict::Inconclusive);
    assert_eq!(judge([Clears, Unclear]), Verdict::Inconclusive);
    assert_eq!(judge([]), Verdict::NotMeasured);
}

/// The saved /users/1 sweep (steps 8 to 512) with async's successful rate
/// at each step set to blocking's times `factor[step]`, in every round.
fn users_sweep(factor: [f64; 7]) -> Finding {
    let mut run = saved();
    let group = run
        .groups
        .iter_mut()
        .find(|g| g.id == bench_model::GroupId::SweepUsers)
        .unwrap();
    let steps = group.sweep.as_ref().unwrap().steps.clone();
    let blocking = group
        .columns
        .iter()
        .find(|c| c.id == ColumnId::BlockingUsersSweep)
        .unwrap()
        .clone();
    // The saved run's event loop ran sqlx; the finding reads the event
    // loop's Spring default's analogue, deadpool-postgres: the same
    // rounds, under its id.
    let asynchronous = group
        .columns
        .iter_mut()
        .find(|c| c.id == ColumnId::AsyncUsersSweep)
        .unwrap();
    asynchronous.id = ColumnId::AsyncUsersDeadpoolSweep;
    for r in &mut asynchronous.rounds {
        let step = r.step.unwrap().connections;
        let i = steps.iter().position(|&n| n == step).unwrap();
        let b = blocking
            .rounds
            .iter()
            .find(|x| x.round == r.round && x.step.unwrap().connections == step)
            .unwrap();
        r.load.successful_throughput_rps = b.load.successful_throughput_rps * factor[i];
    }
    finding(&run, "sweep-users-async-crossover")
}

#[test]
fn a_sweep_won_only_at_its_top_step_has_no_crossover() {
    let only_top = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5];
    let steps: Vec<(usize, f64)> = [8, 16, 32, 64, 128, 256, 512]
        .into_iter()
        .zip(only_top)
        .collect();
    assert_eq!(crossover(&steps, 0.05), None);
    assert_eq!(crossover_call(&steps, 0.05), Call::Unclear);
    let f = users_sweep(only_top);
    assert_ne!(f.verdict, Verdict::Held, "{}", f.evidence);
    assert_evidence_has(&f, "per round: none, none, none");
    // Behind by more than the margin just below the top step: every round
    // misses, NOT HELD.
    let f = users_sweep([1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 1.5]);
    assert_eq!(f.verdict, Verdict::NotHeld, "{}", f.evidence);
    // Ahead at the two top steps in every round: a crossover at 256, HELD.
    let f = users_sweep([1.0, 1.0, 1.0, 1.0, 1.0, 1.2, 1.5]);
    assert_eq!(f.verdict, Verdict::Held, "{}", f.evidence);
    assert_evidence_has(&f, "per round: from 256, from 256, from 256");
}

#[test]
fn a_comparison_whose_every_round_is_within_the_margin_of_one_is_same() {
    use bench_analysis::verdict::{judge_comparison, Side};
    let m = 0.05;
    let same = |ratios: &[f64], side, line| judge_comparison(ratios, side, line, m);
    // Every round within 5% of 1.0x, on either side: SAME.
    assert_eq!(same(&[1.01, 1.01, 1.01], Side::Above, 1.0), Verdict::Same);
    assert_eq!(same(&[0.97, 1.02, 1.04], Side::Below, 1.0), Verdict::Same);
    // One round outside the margin: the rounds disagree.
    assert_eq!(
        same(&[1.01, 1.07, 1.01], Side::Above, 1.0),
        Verdict::Inconclusive
    );
    assert_eq!(
        same(&[1.01, 0.90, 1.01], Side::Above, 1.0),
        Verdict::Inconclusive
    );
    // A round without its figure is never a tie.
    assert_eq!(
        same(&[1.0, f64::NAN], Side::Above, 1.0),
        Verdict::Inconclusive
    );
    // A line far from 1.0: rounds at 1.0x miss it, NOT HELD as ever.
    assert_eq!(same(&[1.0, 1.0, 1.0], Side::Above, 2.5), Verdict::NotHeld);
    assert_eq!(same(&[1.0, 1.0, 1.0], Side::Above, 1.1), Verdict::NotHeld);
    // ... or clear it: "within 15% of blocking" held at 1.0x.
    assert_eq!(same(&[1.0, 1.0, 1.0], Side::Above, 0.85), Verdict::Held);
    assert_eq!(same(&[], Side::Above, 1.0), Verdict::NotMeasured);
}

#[test]
fn a_tie_on_crafted_rounds_is_same_and_a_disagreement_says_which() {
    let blocking = [1000.0; 3];
    let tie = cache_wins(&[1010.0, 1020.0, 990.0], &blocking);
    assert_eq!(tie.verdict, Verdict::Same, "{}", tie.evidence);
    assert!(
        tie.meaning
            .starts_with("Every round within 5% of 1.0x (0.99x to 1.02x)."),
        "{}",
        tie.meaning
    );
    let mixed = cache_wins(&[1010.0, 1100.0, 990.0], &blocking);
    assert_eq!(mixed.verdict, Verdict::Inconclusive, "{}", mixed.evidence);
    assert!(
        mixed
            .meaning
            .starts_with("Rounds disagree: 1 clears the line and 2 within its margin, so this run cannot say either way"),
        "{}",
        mixed.meaning
    );
    // The line the rounds were judged against is kept with the finding.
    assert_eq!(tie.line, Some(1.0));
}

#[test]
fn the_seed_runs_three_ties_are_same_when_judged_again() {
    let saved = saved_run("seed-drivers-java-2026-12-04");
    let again = check(&saved.results, &saved.thresholds);
    for id in [
        "cpu-inline-hurts-async",
        "idle-async-less-memory-than-tiny-http",
        "remote-db-async-deadpool-wins",
    ] {
        let f = again.iter().find(|f| f.id == id).unwrap();
        assert_eq!(f.verdict, Verdict::Same, "{id}: {}", f.evidence);
        let was = saved.findings.iter().find(|f| f.id == id).unwrap();
        assert_eq!(was.verdict, Verdict::Inconclusive, "{id} as saved");
    }
}

#[test]
fn a_ratio_in_the_evidence_never_reads_across_the_line_it_did_not_cross() {
    // The seed run's ramp-async-wins: round 1 at 1.0455 missed 1.05 (the
    // line plus the margin), round 2 at 1.0508 cleared it.
    let f = cache_wins(&[1045.47, 1050.8, 1017.0], &[1000.0; 3]);
    assert_eq!(f.verdict, Verdict::Inconclusive, "{}", f.evidence);
    assert_evidence_has(&f, "per round 1.045x, 1.051x, 1.02x (median 1.045x)");
    assert!(
        f.meaning
            .starts_with("Rounds disagree: 1 clears the line and 2 within its margin"),
        "{}",
        f.meaning
    );
}
