//! The seeds' conclusions, each stated as a check on this run's rounds.
//!
//! Every threshold lives in [`Thresholds`] and is printed with the report, so
//! a reader sees exactly what "within 15%" or "far below" meant. Each finding
//! names the columns it needs ([`ColumnId`]); one whose columns were not run
//! is NOT MEASURED, never silently dropped. A comparison is a ratio taken
//! round by round ([`crate::stats::ratio_spread`]) and judged on its whole
//! interval ([`crate::stats::verdict`]): HELD, NOT HELD or INCONCLUSIVE.

use serde::{Deserialize, Serialize};

use crate::model::{
    ColdStartServer, ColumnResult, IdleCell, IdleRound, IdleServer, IdleStep, RoundResult,
    RunResults, SweepInfo,
};
use crate::plan::{ColumnId, GroupId};
use crate::stats::{
    self, column_spread, describe_ratio, ratio_spread, verdict, Side, Spread, Verdict,
};
use crate::sweep::{self as sw, successful_rps};

/// The numbers that turn the seeds' words into checks. A `results.json`
/// written before a threshold existed reads it as today's ([`THRESHOLDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Relative margin either side of a claim's line: a claim holds only when
    /// every round clears the line by more than this, and fails only when
    /// every round misses it by more (0.05: 5%).
    pub margin: f64,
    /// "An offload brings async close to blocking": within this fraction of blocking's throughput.
    pub offload_within: f64,
    /// "Far fewer threads": async peak threads at most this fraction of blocking's.
    pub thread_fraction: f64,
    /// "A blocked event loop stalls everyone": /health p99 next to an inline blocking
    /// load is at least this many times its p99 next to the offloaded or non-blocking load.
    pub mixed_p99_factor: f64,
    /// A measured window in which everything but the server, bench, Postgres
    /// and Redis used more than this many cores was not quiet.
    pub quiet_other_cores: f64,
    /// The cold-start probe: a connection with no answer within this many
    /// milliseconds of the start was starved (issue 2's line).
    pub cold_start_answer_within_ms: f64,
    /// The cold-start probe: cold starts of tiny_http without a starved
    /// connection it takes to call its unfairness refuted (NOT HELD); with
    /// fewer, INCONCLUSIVE. It starved some on 5 to 7 of 8 starts here, so
    /// 8 clean starts in a row would happen by chance well under 1% of runs.
    pub cold_start_refute_starts: usize,
    /// The stall detector flags a route in a window when at least this
    /// share of its polls were slow (`--slow-poll-ms`, 5 ms). A route that
    /// blocks by design does its blocking work inside a poll on every
    /// request, so once that work outlasts the threshold about every
    /// request makes a slow poll (a share of 1 / polls per request: tens of
    /// percent). A route that never blocks makes one only when the OS
    /// takes its worker's core in the middle of a quick poll, which happens
    /// on a machine busier than its cores but rarely (once in this
    /// project's detector tests). 1% lies far from both; it was chosen
    /// before the matrix was run, not fitted to it.
    pub detector_slow_poll_share: f64,
    /// The stall detector's blocking-call half flags a route in a window
    /// when it made at least this many blocking calls on an event-loop
    /// worker per poll of its handler. Unlike a slow poll, a blocking call
    /// is counted by the code, not timed by the clock, so there is no noise
    /// to stay clear of: a route that blocks by design makes at least one
    /// per request (one to two per poll: its blocking call sits in the
    /// handler's one poll), a route that never blocks on a worker makes
    /// exactly none. Any line between 0 and 1 per poll separates them; 0.01
    /// (1%) was chosen from that design, before a run, to read like the
    /// slow-poll line, and leaves room for a route whose blocking call is
    /// made only on some of its requests (a cache miss, say).
    pub detector_blocking_calls_per_poll: f64,
    /// The idle group: "a thread per idle connection" means at least this
    /// many threads above idle per open connection at the largest size.
    pub idle_threads_per_connection: f64,
    /// The idle group: "no threads for idle connections" means at most this
    /// many threads above idle with the largest size open (a runtime may
    /// start a helper thread; a thread per connection is thousands).
    pub idle_threads_allowance: f64,
    /// Sweep: the blocking server's plateau is "at its cap" when within this
    /// fraction of Little's law's prediction (issue 9: 10%).
    pub sweep_cap_within: f64,
    /// Sweep: the plateau is the median throughput over this many of the
    /// highest steps, per round.
    pub sweep_plateau_steps: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        THRESHOLDS
    }
}

pub const THRESHOLDS: Thresholds = Thresholds {
    margin: 0.05,
    offload_within: 0.15,
    thread_fraction: 0.25,
    mixed_p99_factor: 5.0,
    quiet_other_cores: 0.10,
    cold_start_answer_within_ms: 1000.0,
    cold_start_refute_starts: 8,
    detector_slow_poll_share: 0.01,
    detector_blocking_calls_per_poll: 0.01,
    idle_threads_per_connection: 0.9,
    idle_threads_allowance: 4.0,
    sweep_cap_within: 0.10,
    sweep_plateau_steps: 2,
};

/// The async server's routes that block an event-loop worker by design
/// (the contract's "deliberately wrong" variants and inline `/cpu`): the
/// only routes the stall detector should flag.
pub const BLOCKS_BY_DESIGN: &[&str] = &[
    "/cpu",
    "/users/{id}/blocking",
    "/users/{id}/cache/blocking",
    "/posts/{id}/blocking",
];

/// One route of one async column in one round, as the stall detector saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorObservation {
    pub column: String,
    pub round: u32,
    pub route: String,
    /// Slow polls over polls in the window; `None` when the route was not
    /// polled or the detector's figures are missing.
    pub slow_poll_share: Option<f64>,
    /// Blocking calls on an event-loop worker per poll in the window;
    /// `None` when the route was not polled or the server does not count
    /// them (then only the slow-poll half judges the route).
    pub blocking_calls_per_poll: Option<f64>,
}

/// Which half of the detector flagged a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlaggedBy {
    SlowPolls,
    BlockingCalls,
    Both,
}

impl FlaggedBy {
    fn of(slow: bool, calls: bool) -> Option<FlaggedBy> {
        match (slow, calls) {
            (true, true) => Some(FlaggedBy::Both),
            (true, false) => Some(FlaggedBy::SlowPolls),
            (false, true) => Some(FlaggedBy::BlockingCalls),
            (false, false) => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FlaggedBy::SlowPolls => "slow polls",
            FlaggedBy::BlockingCalls => "blocking calls",
            FlaggedBy::Both => "both",
        }
    }
}

/// The detector's two lines: a route is flagged in a window when either is reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectorLines {
    /// Slow polls over polls ([`Thresholds::detector_slow_poll_share`]).
    pub slow_poll_share: f64,
    /// Blocking calls on a worker per poll ([`Thresholds::detector_blocking_calls_per_poll`]).
    pub blocking_calls_per_poll: f64,
}

impl DetectorLines {
    pub fn of(t: &Thresholds) -> DetectorLines {
        DetectorLines {
            slow_poll_share: t.detector_slow_poll_share,
            blocking_calls_per_poll: t.detector_blocking_calls_per_poll,
        }
    }

    /// Which half flagged `o`, if any.
    fn flagged_by(&self, o: &DetectorObservation) -> Option<FlaggedBy> {
        FlaggedBy::of(
            o.slow_poll_share.is_some_and(|s| s >= self.slow_poll_share),
            o.blocking_calls_per_poll
                .is_some_and(|c| c >= self.blocking_calls_per_poll),
        )
    }
}

/// Every async column's routes in every round (the mixed group's /health
/// probe and its background route both), from the detector's figures. A
/// round without them (detector off, `/metrics` unreadable) gives one
/// observation per column route with no share.
pub fn detector_observations(results: &RunResults) -> Vec<DetectorObservation> {
    let mut out = Vec::new();
    for c in results.groups.iter().flat_map(|g| &g.columns) {
        if c.server != "async" {
            continue;
        }
        let routes: Vec<&'static str> = std::iter::once(c.path.as_str())
            .chain(c.background_path.as_deref())
            .filter_map(crate::detector::route_pattern)
            .collect();
        // A sweep's steps do not read the detector (its /metrics would
        // queue behind the step's own requests): not observations.
        for r in c.rounds.iter().filter(|r| r.step.is_none()) {
            for route in &routes {
                let window = r.detector.as_ref().and_then(|d| d.route(route));
                out.push(DetectorObservation {
                    column: c.id.clone(),
                    round: r.round,
                    route: (*route).to_owned(),
                    slow_poll_share: window.and_then(|w| w.slow_poll_share()),
                    blocking_calls_per_poll: window.and_then(|w| w.blocking_calls_per_poll()),
                });
            }
        }
    }
    out
}

/// The verdict on "the detector flags exactly the routes that block by
/// design", from every observation: in each round, a route is flagged in a
/// column when its slow-poll share or its blocking calls per poll reach
/// their line in `lines`, and must be exactly when it is in
/// [`BLOCKS_BY_DESIGN`]. HELD when every round matches, NOT HELD when every
/// round has a mismatch, INCONCLUSIVE when rounds disagree or a figure is
/// missing. Returns the mismatches per round (the interval) and the
/// evidence, naming each route that differs and where, and which half
/// flagged each flagged route.
pub fn detector_verdict(obs: &[DetectorObservation], lines: DetectorLines) -> Option<Outcome> {
    let mut rounds: Vec<u32> = obs.iter().map(|o| o.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    if rounds.is_empty() {
        return None;
    }
    let missing: Vec<&DetectorObservation> =
        obs.iter().filter(|o| o.slow_poll_share.is_none()).collect();
    let wrong = |o: &&DetectorObservation| {
        o.slow_poll_share.is_some()
            && lines.flagged_by(o).is_some() != BLOCKS_BY_DESIGN.contains(&o.route.as_str())
    };
    let per_round: Vec<usize> = rounds
        .iter()
        .map(|&r| obs.iter().filter(|o| o.round == r).filter(wrong).count())
        .collect();
    let interval = Spread::of(per_round.iter().map(|&n| n as f64))?;
    let verdict =
        if !missing.is_empty() || (per_round.contains(&0) && per_round.iter().any(|&n| n > 0)) {
            Verdict::Inconclusive
        } else if per_round.iter().all(|&n| n == 0) {
            Verdict::Held
        } else {
            Verdict::NotHeld
        };
    // Each (route, column) that differs, with both figures over rounds.
    let mut wrong_pairs: Vec<(&str, &str)> = obs
        .iter()
        .filter(wrong)
        .map(|o| (o.route.as_str(), o.column.as_str()))
        .collect();
    wrong_pairs.sort_unstable();
    wrong_pairs.dedup();
    let figures = |route: &str, column: &str| {
        let of = |o: &&DetectorObservation| o.route == route && o.column == column;
        let slow: Vec<String> = obs
            .iter()
            .filter(of)
            .map(|o| o.slow_poll_share.map_or("-".to_owned(), stats::percent))
            .collect();
        let calls: Vec<String> = obs
            .iter()
            .filter(of)
            .map(|o| {
                o.blocking_calls_per_poll
                    .map_or("-".to_owned(), stats::per_poll)
            })
            .collect();
        format!(
            "slow polls {}; blocking calls per poll {}",
            slow.join(", "),
            calls.join(", ")
        )
    };
    let describe = |should_flag: bool| {
        wrong_pairs
            .iter()
            .filter(|(route, _)| BLOCKS_BY_DESIGN.contains(route) == should_flag)
            .map(|(route, column)| format!("{route} in {column} ({})", figures(route, column)))
            .collect::<Vec<_>>()
    };
    // Each flagged route, with the half (or halves) that flagged it in some round.
    let mut flagged: Vec<(&str, FlaggedBy)> = Vec::new();
    for o in obs {
        let Some(by) = lines.flagged_by(o) else {
            continue;
        };
        match flagged.iter_mut().find(|(route, _)| *route == o.route) {
            Some((_, seen)) if *seen != by => *seen = FlaggedBy::Both,
            Some(_) => {}
            None => flagged.push((o.route.as_str(), by)),
        }
    }
    flagged.sort_unstable_by_key(|(route, _)| *route);
    let mut parts = vec![format!(
        "flagged (slow polls >= {} of polls, or blocking calls on an event-loop worker >= {} per poll, in some round): {}",
        pct_exact(lines.slow_poll_share),
        lines.blocking_calls_per_poll,
        if flagged.is_empty() {
            "none".to_owned()
        } else {
            flagged
                .iter()
                .map(|(route, by)| format!("{route} by {}", by.name()))
                .collect::<Vec<_>>()
                .join(", ")
        }
    )];
    let (not_flagged, over_flagged) = (describe(true), describe(false));
    if !not_flagged.is_empty() {
        parts.push(format!(
            "should be but flagged by neither half: {} (a slow poll is a poll of --slow-poll-ms or longer, so a quick blocking call does not make one; a blocking call is counted only where the server marks it, so an unmarked one, or a server without the counter, leaves only the slow-poll half)",
            not_flagged.join("; ")
        ));
    }
    if !over_flagged.is_empty() {
        parts.push(format!(
            "flagged but should not be: {}",
            over_flagged.join("; ")
        ));
    }
    if !missing.is_empty() {
        let mut columns: Vec<&str> = missing.iter().map(|o| o.column.as_str()).collect();
        columns.dedup();
        parts.push(format!(
            "no detector figures (detector off or /metrics unreadable) in: {}",
            columns.join(", ")
        ));
    }
    parts.push(format!(
        "mismatches per round: {}",
        per_round
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Some((interval, verdict, parts.join("; ")))
}

/// "1%", or "0.5%" for a share under 1%.
fn pct_exact(f: f64) -> String {
    let p = f * 100.0;
    if p >= 1.0 && p.fract() == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p}%")
    }
}

/// One checked conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    /// The seed it comes from, e.g. "seed 000".
    pub seed: String,
    /// The conclusion, in words.
    pub claim: String,
    pub verdict: Verdict,
    /// The ratio (or factor) over rounds the verdict was taken on.
    pub interval: Option<Spread>,
    /// The numbers behind the verdict: both sides' medians and the interval.
    pub evidence: String,
    /// The columns the claim needs.
    pub columns: Vec<String>,
}

/// The run's columns by id.
struct Ctx<'a> {
    results: &'a RunResults,
}

impl Ctx<'_> {
    /// The cold-start probe of a column's server, when it was probed at least once.
    fn cold_start(&self, id: ColumnId) -> Option<&ColdStartServer> {
        self.results
            .groups
            .iter()
            .filter_map(|g| g.cold_start.as_ref())
            .flat_map(|p| &p.servers)
            .find(|s| s.id == id.as_str() && s.failure.is_none() && !s.starts.is_empty())
    }

    /// The idle group's server of a column, when it measured a round.
    fn idle(&self, id: ColumnId) -> Option<(&IdleServer, &[usize])> {
        self.results
            .groups
            .iter()
            .filter_map(|g| g.idle.as_ref())
            .flat_map(|i| i.servers.iter().map(move |s| (s, i.sizes.as_slice())))
            .find(|(s, _)| s.id == id.as_str() && !s.rounds.is_empty())
    }

    /// A sweep group's description, when it ran.
    fn sweep(&self, group: GroupId) -> Option<&SweepInfo> {
        self.results
            .groups
            .iter()
            .find(|g| g.id == group.as_str())?
            .sweep
            .as_ref()
    }

    /// A column with at least one measured round.
    fn col(&self, id: ColumnId) -> Option<&ColumnResult> {
        self.results
            .groups
            .iter()
            .flat_map(|g| &g.columns)
            .find(|c| c.id == id.as_str() && !c.rounds.is_empty())
    }
}

fn rps(r: &RoundResult) -> Option<f64> {
    Some(r.load.throughput_rps)
}

fn p99(r: &RoundResult) -> Option<f64> {
    Some(r.load.latency_ms.p99)
}

fn peak_threads(r: &RoundResult) -> Option<f64> {
    (r.server_process.samples > 0).then_some(r.server_process.peak_threads as f64)
}

fn median(c: &ColumnResult, metric: stats::Metric) -> f64 {
    column_spread(c, metric).map_or(f64::NAN, |s| s.median)
}

/// Per-round values of `f(a_round, b_round)`, rounds matched by number.
fn paired(
    a: &ColumnResult,
    b: &ColumnResult,
    f: impl Fn(&RoundResult, &RoundResult) -> Option<f64>,
) -> Option<Spread> {
    Spread::of(a.rounds.iter().filter_map(|ra| {
        let rb = b.rounds.iter().find(|rb| rb.round == ra.round)?;
        f(ra, rb)
    }))
}

/// What a finding's check returns: the interval, the verdict and the evidence.
type Outcome = (Spread, Verdict, String);

/// A finding's check: `None` when a column it needs was not measured.
type Check = Box<dyn Fn(&Ctx<'_>, &Thresholds) -> Option<Outcome>>;

/// A conclusion: its words, the columns it needs, and the check.
struct Spec {
    id: &'static str,
    seed: &'static str,
    claim: String,
    needs: Vec<ColumnId>,
    check: Check,
}

fn pct(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

/// "`a` serves at least `line(t)` times `b`'s requests per second", judged
/// on the ratio taken round by round.
fn throughput_ratio_above(a: ColumnId, b: ColumnId, line: fn(&Thresholds) -> f64) -> Check {
    Box::new(move |cx, t| {
        let (ca, cb) = (cx.col(a)?, cx.col(b)?);
        let ratio = ratio_spread(ca, cb, rps)?;
        Some((
            ratio,
            verdict(&ratio, Side::Above, line(t), t.margin),
            format!(
                "{:.0} vs {:.0} req/s (medians) = {}",
                median(ca, rps),
                median(cb, rps),
                describe_ratio(&ratio)
            ),
        ))
    })
}

/// "`a` beats `b`": a ratio above 1.
fn beats(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |_| 1.0)
}

/// "`a` beats `b`", with both sides' server CPU per request in the evidence.
fn beats_showing_cpu(a: ColumnId, b: ColumnId) -> Check {
    let ratio = beats(a, b);
    Box::new(move |cx, t| {
        let (verdict_interval, verdict, evidence) = ratio(cx, t)?;
        let us = RoundResult::server_cpu_us_per_request;
        let (ca, cb) = (cx.col(a)?, cx.col(b)?);
        Some((
            verdict_interval,
            verdict,
            format!(
                "{evidence}; server CPU {:.1} vs {:.1} us per request (medians)",
                median(ca, us),
                median(cb, us)
            ),
        ))
    })
}

/// "`a` spends more server CPU per request than `b`": a ratio above 1.
fn spends_more_cpu_per_request(a: ColumnId, b: ColumnId) -> Check {
    Box::new(move |cx, t| {
        let (ca, cb) = (cx.col(a)?, cx.col(b)?);
        let us = RoundResult::server_cpu_us_per_request;
        let ratio = ratio_spread(ca, cb, us)?;
        Some((
            ratio,
            verdict(&ratio, Side::Above, 1.0, t.margin),
            format!(
                "{:.1} vs {:.1} us of server CPU per request (medians) = {}",
                median(ca, us),
                median(cb, us),
                describe_ratio(&ratio)
            ),
        ))
    })
}

/// "`a` comes within `offload_within` of `b`'s throughput".
fn comes_close(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |t| 1.0 - t.offload_within)
}

/// The verdict on "`unfair` starves some connection on at least one cold
/// start and `fair` starves none", from the late connections per start:
/// NOT HELD as soon as `fair` starved one, or when `unfair` starved none in
/// `refute_starts` starts or more; HELD when `unfair` starved some and `fair`
/// none; INCONCLUSIVE when too few starts were clean to tell.
pub fn cold_start_verdict(unfair: &[usize], fair: &[usize], refute_starts: usize) -> Verdict {
    let starved = |late: &[usize]| late.iter().any(|&n| n > 0);
    if starved(fair) {
        Verdict::NotHeld
    } else if starved(unfair) {
        Verdict::Held
    } else if unfair.len() >= refute_starts {
        Verdict::NotHeld
    } else {
        Verdict::Inconclusive
    }
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

fn specs(t: &Thresholds) -> Vec<Spec> {
    use ColumnId as C;
    let mut out = vec![
        Spec {
            id: "cpu-inline-hurts-async",
            seed: "seed 000",
            claim: "CPU work inline on the event loop: async has lower throughput or a higher p99 than blocking".into(),
            needs: vec![C::BlockingCpu, C::AsyncCpu],
            check: Box::new(|cx, t| {
                let (b, a) = (cx.col(C::BlockingCpu)?, cx.col(C::AsyncCpu)?);
                // How much worse async is, per round: the larger of the two ratios.
                let worse = paired(a, b, |ra, rb| {
                    let slower = rb.load.throughput_rps / ra.load.throughput_rps;
                    let later = ra.load.latency_ms.p99 / rb.load.latency_ms.p99;
                    Some(slower.max(later))
                })?;
                Some((
                    worse,
                    verdict(&worse, Side::Above, 1.0, t.margin),
                    format!(
                        "throughput {:.0} vs {:.0} req/s, p99 {:.1} vs {:.1} ms (async inline vs blocking, medians); worse by {}",
                        median(a, rps), median(b, rps), median(a, p99), median(b, p99), describe_ratio(&worse)
                    ),
                ))
            }),
        },
        Spec {
            id: "cpu-offload-recovers",
            seed: "seed 000",
            claim: format!("moving CPU work off the event loop (the better of rayon and spawn_blocking) brings async within {} of blocking's throughput", pct(t.offload_within)),
            needs: vec![C::BlockingCpu, C::AsyncCpuRayon, C::AsyncCpuSpawnBlocking],
            check: Box::new(|cx, t| {
                let b = cx.col(C::BlockingCpu)?;
                let (r, s) = (cx.col(C::AsyncCpuRayon)?, cx.col(C::AsyncCpuSpawnBlocking)?);
                let best = Spread::of(b.rounds.iter().filter_map(|rb| {
                    let at = |c: &ColumnResult| c.rounds.iter().find(|x| x.round == rb.round).map(|x| x.load.throughput_rps);
                    Some(at(r)?.max(at(s)?) / rb.load.throughput_rps)
                }))?;
                Some((
                    best,
                    verdict(&best, Side::Above, 1.0 - t.offload_within, t.margin),
                    format!(
                        "rayon {:.0}, spawn_blocking {:.0} vs blocking {:.0} req/s (medians); better offload / blocking = {}",
                        median(r, rps), median(s, rps), median(b, rps), describe_ratio(&best)
                    ),
                ))
            }),
        },
        Spec {
            id: "db-async-driver-wins",
            seed: "seed 000, 001, 002",
            claim: "with a non-blocking driver (sqlx, like R2DBC) async serves more requests per second than blocking on the database group".into(),
            needs: vec![C::AsyncUsers, C::BlockingUsers],
            check: beats(C::AsyncUsers, C::BlockingUsers),
        },
        Spec {
            id: "db-inline-driver-worst",
            seed: "seed 000",
            claim: "a blocking driver called on the event loop (JDBC without scheduler) is the worst of the database group".into(),
            needs: vec![C::BlockingUsers, C::AsyncUsers, C::AsyncUsersBlocking, C::AsyncUsersSpawnBlocking],
            check: Box::new(|cx, t| {
                let inline = cx.col(C::AsyncUsersBlocking)?;
                let others = [C::BlockingUsers, C::AsyncUsers, C::AsyncUsersSpawnBlocking]
                    .map(|id| cx.col(id));
                let others: Vec<&ColumnResult> = others.into_iter().collect::<Option<_>>()?;
                // Per round: the inline driver over the slowest of the others.
                let ratio = Spread::of(inline.rounds.iter().filter_map(|ri| {
                    let slowest = others
                        .iter()
                        .map(|c| c.rounds.iter().find(|x| x.round == ri.round).map(|x| x.load.throughput_rps))
                        .collect::<Option<Vec<f64>>>()?
                        .into_iter()
                        .fold(f64::INFINITY, f64::min);
                    Some(ri.load.throughput_rps / slowest)
                }))?;
                Some((
                    ratio,
                    verdict(&ratio, Side::Below, 1.0, t.margin),
                    format!(
                        "inline driver {:.0} req/s (median); over the slowest other column = {}",
                        median(inline, rps),
                        describe_ratio(&ratio)
                    ),
                ))
            }),
        },
        Spec {
            id: "db-spawn-blocking-recovers",
            seed: "seed 000",
            claim: format!("the blocking driver through spawn_blocking (JDBC on BoundedElastic) comes within {} of blocking's throughput", pct(t.offload_within)),
            needs: vec![C::AsyncUsersSpawnBlocking, C::BlockingUsers],
            check: comes_close(C::AsyncUsersSpawnBlocking, C::BlockingUsers),
        },
        Spec {
            id: "async-far-fewer-threads",
            seed: "seed 000",
            claim: format!("async peaks at no more than {} of blocking's thread count (each column on a fresh process)", pct(t.thread_fraction)),
            needs: vec![C::BlockingCpu, C::AsyncCpu, C::BlockingUsers, C::AsyncUsers],
            check: Box::new(|cx, t| {
                let pairs = [(C::AsyncCpu, C::BlockingCpu), (C::AsyncUsers, C::BlockingUsers)];
                let mut values = Vec::new();
                let mut text = Vec::new();
                for (a, b) in pairs {
                    let (ca, cb) = (cx.col(a)?, cx.col(b)?);
                    let ratio = ratio_spread(ca, cb, peak_threads)?;
                    values.extend([ratio.min, ratio.max]);
                    text.push(format!(
                        "{} vs {} threads at peak ({})",
                        median(ca, peak_threads),
                        median(cb, peak_threads),
                        a.as_str().trim_start_matches("async-")
                    ));
                }
                let all = Spread::of(values)?;
                Some((
                    all,
                    verdict(&all, Side::Below, t.thread_fraction, t.margin),
                    format!("{}; ratio {:.2}-{:.2}x", text.join(", "), all.min, all.max),
                ))
            }),
        },
    ];
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
            seed: "none (the lesson the seeds imply)",
            claim: format!("{what} on the event loop delays unrelated requests: /health p99 next to it is at least {}x its p99 next to the non-blocking version", t.mixed_p99_factor),
            needs: vec![inline, offloaded],
            check: Box::new(move |cx, t| {
                let (i, o) = (cx.col(inline)?, cx.col(offloaded)?);
                // A p99 below 1 us would make the factor meaningless; floor it.
                let factor = paired(i, o, |ri, ro| Some(ri.load.latency_ms.p99 / ro.load.latency_ms.p99.max(0.001)))?;
                Some((
                    factor,
                    verdict(&factor, Side::Above, t.mixed_p99_factor, t.margin),
                    format!(
                        "/health p99 {:.1} ms vs {:.1} ms (medians) = {}",
                        median(i, p99),
                        median(o, p99),
                        describe_ratio(&factor)
                    ),
                ))
            }),
        });
    }
    for (id, seed, a, b, what) in [
        (
            "cache-async-wins",
            "seed 001",
            C::AsyncCache,
            C::BlockingCache,
            "Redis reads (two GETs)",
        ),
        (
            "baseline-async-wins",
            "seed 001",
            C::AsyncHealth,
            C::BlockingHealth,
            "an immediate answer (/health)",
        ),
        (
            "ramp-async-wins",
            "seed 002",
            C::AsyncUsersRamp,
            C::BlockingUsersRamp,
            "a database read under ramping load",
        ),
    ] {
        out.push(Spec {
            id,
            seed,
            claim: format!("async serves more requests per second than blocking on {what}"),
            needs: vec![a, b],
            check: beats(a, b),
        });
    }
    out.push(Spec {
        id: "cache-shared-connection-beats-pool",
        seed: "none (Spring's default: one Lettuce connection shared by all requests)",
        claim: "one multiplexed Redis connection shared by every request serves more requests per second than a pool that lends each request its own".into(),
        needs: vec![C::AsyncCache, C::AsyncCachePool],
        check: beats_showing_cpu(C::AsyncCache, C::AsyncCachePool),
    });
    out.push(Spec {
        id: "cache-checkout-round-trip-costs",
        seed: "none (deadpool-redis's UNWATCH + PING on every checkout)",
        claim: "a round trip on every checkout costs throughput: the same pool without it (ours) serves more requests per second than deadpool-redis as shipped".into(),
        needs: vec![C::AsyncCachePool, C::AsyncCacheDeadpoolRedis],
        check: beats_showing_cpu(C::AsyncCachePool, C::AsyncCacheDeadpoolRedis),
    });
    out.push(Spec {
        id: "cache-checkout-round-trip-costs-cpu",
        seed: "none (deadpool-redis's UNWATCH + PING on every checkout)",
        claim: "a round trip on every checkout costs server CPU: deadpool-redis as shipped spends more server CPU per request than the same pool without it (ours)".into(),
        needs: vec![C::AsyncCacheDeadpoolRedis, C::AsyncCachePool],
        check: spends_more_cpu_per_request(C::AsyncCacheDeadpoolRedis, C::AsyncCachePool),
    });
    out.push(Spec {
        id: "cache-exclusive-checkout-costs-cpu",
        seed: "none (Spring's default: one Lettuce connection shared by all requests)",
        claim: "exclusive checkout costs server CPU: a pool that lends each request its own connection (ours) spends more server CPU per request than one shared multiplexed connection".into(),
        needs: vec![C::AsyncCachePool, C::AsyncCache],
        check: spends_more_cpu_per_request(C::AsyncCachePool, C::AsyncCache),
    });
    out.push(Spec {
        id: "tiny-http-cold-start-unfair",
        seed: "none (issue 2: why the blocking server has its own connector)",
        claim: format!(
            "on a freshly started server, tiny_http 0.12 leaves some connections of a burst without an answer within {:.0} ms on at least one cold start; our connector (nio) leaves none on any",
            t.cold_start_answer_within_ms
        ),
        needs: vec![C::BlockingHealthTinyHttp, C::BlockingHealth],
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
            let interval = Spread::of(tiny_late.iter().map(|&n| n as f64))?;
            Some((
                interval,
                cold_start_verdict(&tiny_late, &nio_late, t.cold_start_refute_starts),
                format!(
                    "connections unanswered for over {within:.0} ms: tiny_http {}; nio {}",
                    describe_late(&tiny_late, connections),
                    describe_late(&nio_late, connections)
                ),
            ))
        }),
    });
    out.push(Spec {
        id: "tiny-http-thread-per-connection",
        seed: "none (the design card's tiny_http: a reader thread per open connection)",
        claim: "tiny_http runs a thread per open connection: under the same load it peaks at more threads than our connector's fixed pool (nio), in the baseline, database and slow-downstream groups".into(),
        needs: vec![
            C::BlockingHealthTinyHttp,
            C::BlockingHealth,
            C::BlockingUsersTinyHttp,
            C::BlockingUsers,
            C::BlockingPostsTinyHttp,
            C::BlockingPosts,
        ],
        check: Box::new(|cx, t| {
            let pairs = [
                (C::BlockingHealthTinyHttp, C::BlockingHealth, "baseline"),
                (C::BlockingUsersTinyHttp, C::BlockingUsers, "database"),
                (C::BlockingPostsTinyHttp, C::BlockingPosts, "slow"),
            ];
            let mut values = Vec::new();
            let mut text = Vec::new();
            for (tiny, nio, group) in pairs {
                let (ct, cn) = (cx.col(tiny)?, cx.col(nio)?);
                let ratio = ratio_spread(ct, cn, peak_threads)?;
                values.extend([ratio.min, ratio.max]);
                text.push(format!(
                    "{} vs {} threads at peak ({group})",
                    median(ct, peak_threads),
                    median(cn, peak_threads)
                ));
            }
            let all = Spread::of(values)?;
            Some((
                all,
                verdict(&all, Side::Above, 1.0, t.margin),
                format!("{}; ratio {:.2}-{:.2}x", text.join(", "), all.min, all.max),
            ))
        }),
    });
    out.push(Spec {
        id: "baseline-cpu-per-request",
        seed: "seed 001 (by server CPU per request, which shared cores disturb least)",
        claim: "the async server spends less CPU per /health request than the blocking server"
            .into(),
        needs: vec![C::AsyncHealth, C::BlockingHealth],
        check: Box::new(|cx, t| {
            let (a, b) = (cx.col(C::AsyncHealth)?, cx.col(C::BlockingHealth)?);
            let us = RoundResult::server_cpu_us_per_request;
            let ratio = ratio_spread(a, b, us)?;
            Some((
                ratio,
                verdict(&ratio, Side::Below, 1.0, t.margin),
                format!(
                    "{:.1} vs {:.1} us of server CPU per request (medians) = {}",
                    median(a, us),
                    median(b, us),
                    describe_ratio(&ratio)
                ),
            ))
        }),
    });
    out.push(Spec {
        id: "detector-flags-blocking-routes",
        seed: "none (issue 9: which route blocks my event loop?)",
        claim: format!(
            "the async server's stall detector flags exactly the routes that block a worker by design ({}, among those run) and no other: slow polls >= {} of a route's polls, or blocking calls on an event-loop worker >= {} per poll, in a window, in every async column (the mixed group's /health probe and background route both)",
            BLOCKS_BY_DESIGN.join(", "),
            pct_exact(t.detector_slow_poll_share),
            t.detector_blocking_calls_per_poll
        ),
        needs: async_columns(),
        check: Box::new(|cx, t| {
            detector_verdict(&detector_observations(cx.results), DetectorLines::of(t))
        }),
    });
    out
}

/// Every async column of the matrix.
fn async_columns() -> Vec<ColumnId> {
    crate::plan::groups()
        .into_iter()
        .flat_map(|g| g.columns)
        .filter(|c| c.target == crate::plan::Target::Async)
        .map(|c| c.id)
        .collect()
}

/// The rounds of `server` that opened all of `size` idle connections.
fn idle_steps(server: &IdleServer, size: usize) -> Vec<(&IdleRound, &IdleStep)> {
    match server.cell(size) {
        IdleCell::Measured(steps) => steps,
        _ => Vec::new(),
    }
}

/// The idle group's findings: threads per idle connection on tiny_http and
/// on the other two, and memory per idle connection, async vs tiny_http.
fn idle_specs(t: &Thresholds) -> Vec<Spec> {
    use ColumnId as C;
    vec![
        Spec {
            id: "idle-tiny-http-thread-per-connection",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: format!(
                "tiny_http holds a thread per idle keep-alive connection: with the largest size it opened, its threads above idle are at least {} per connection",
                t.idle_threads_per_connection
            ),
            needs: vec![C::BlockingIdleTinyHttp],
            check: Box::new(|cx, t| {
                let (tiny, sizes) = cx.idle(C::BlockingIdleTinyHttp)?;
                let size = tiny.largest_measured(sizes)?;
                let steps = idle_steps(tiny, size);
                let per = Spread::of(steps.iter().filter_map(|(r, s)| s.threads_per_connection(&r.idle)))?;
                Some((
                    per,
                    verdict(&per, Side::Above, t.idle_threads_per_connection, t.margin),
                    format!(
                        "with {size} open: {:.3} threads per connection ({:.3}-{:.3} over {} rounds)",
                        per.median, per.min, per.max, per.n
                    ),
                ))
            }),
        },
        Spec {
            id: "idle-nio-and-async-no-threads",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: format!(
                "idle keep-alive connections cost our connector (nio) and the event loop no threads: with the largest size each opened, at most {:.0} threads above idle",
                t.idle_threads_allowance
            ),
            needs: vec![C::BlockingIdle, C::AsyncIdle],
            check: Box::new(|cx, t| {
                // Per round number, the worse of the two: the claim is about both.
                let mut worst: std::collections::BTreeMap<u32, f64> = Default::default();
                let mut text = Vec::new();
                for (id, name) in [(C::BlockingIdle, "nio"), (C::AsyncIdle, "async")] {
                    let (server, sizes) = cx.idle(id)?;
                    let size = server.largest_measured(sizes)?;
                    let steps = idle_steps(server, size);
                    let above = |(r, s): &(&IdleRound, &IdleStep)| s.threads_above(&r.idle) as f64;
                    let spread = Spread::of(steps.iter().map(above))?;
                    text.push(format!(
                        "{name} {:+.0} threads with {size} open ({:+.0} to {:+.0})",
                        spread.median, spread.min, spread.max
                    ));
                    for step in &steps {
                        let w = worst.entry(step.0.round).or_insert(f64::NEG_INFINITY);
                        *w = w.max(above(step));
                    }
                }
                let all = Spread::of(worst.into_values())?;
                Some((
                    all,
                    verdict(&all, Side::Below, t.idle_threads_allowance, t.margin),
                    text.join("; "),
                ))
            }),
        },
        Spec {
            id: "idle-async-less-memory-than-tiny-http",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: "an idle keep-alive connection costs the event loop less resident memory than tiny_http's thread per connection: async's RSS above idle per connection is below tiny_http's at the largest size both opened".into(),
            needs: vec![C::AsyncIdle, C::BlockingIdleTinyHttp],
            check: Box::new(|cx, t| {
                let (a, sizes) = cx.idle(C::AsyncIdle)?;
                let (tiny, _) = cx.idle(C::BlockingIdleTinyHttp)?;
                let size = sizes.iter().rev().copied().find(|&n| {
                    !idle_steps(a, n).is_empty() && !idle_steps(tiny, n).is_empty()
                })?;
                let (sa, st) = (idle_steps(a, size), idle_steps(tiny, size));
                let ratio = Spread::of(sa.iter().filter_map(|(ra, xa)| {
                    let (rt, xt) = st.iter().find(|(rt, _)| rt.round == ra.round)?;
                    let (ka, kt) = (xa.kib_per_connection(&ra.idle)?, xt.kib_per_connection(&rt.idle)?);
                    (kt > 0.0).then(|| ka / kt)
                }))?;
                let kib = |steps: &[(&IdleRound, &IdleStep)]| {
                    Spread::of(steps.iter().filter_map(|(r, s)| s.kib_per_connection(&r.idle)))
                        .map_or(f64::NAN, |s| s.median)
                };
                Some((
                    ratio,
                    verdict(&ratio, Side::Below, 1.0, t.margin),
                    format!(
                        "with {size} open: {:.1} vs {:.1} KiB per connection (medians) = {}",
                        kib(&sa),
                        kib(&st),
                        describe_ratio(&ratio)
                    ),
                ))
            }),
        },
    ]
}

/// "1600 and 3200" for the top `n` steps.
fn top_steps(info: &SweepInfo, n: usize) -> String {
    let mut top: Vec<String> = info
        .steps
        .iter()
        .rev()
        .take(n.max(1))
        .map(|s| s.to_string())
        .collect();
    top.reverse();
    top.join(" and ")
}

/// Per step, `a`'s successful throughput over `b`'s, round by round.
fn step_ratios(a: &ColumnResult, b: &ColumnResult, info: &SweepInfo) -> Vec<(usize, Spread)> {
    info.steps
        .iter()
        .filter_map(|&n| Some((n, sw::step_ratio(a, b, n, successful_rps)?)))
        .collect()
}

/// Where `a` first beat `b` by more than the margin, or that it never did
/// and what the machine was doing at the top step (CPU-bound or not).
fn crossover_words(
    cx: &Ctx<'_>,
    a: &ColumnResult,
    ratios: &[(usize, Spread)],
    margin: f64,
) -> String {
    let list: Vec<String> = ratios
        .iter()
        .map(|(n, r)| format!("{n}: {:.2}x", r.median))
        .collect();
    let per_step = format!("async/blocking per step (medians) {}", list.join(", "));
    match sw::crossover(ratios, margin) {
        Some(n) => format!(
            "async first beats blocking by more than {} in every round at {n} connections, and at every step above; {per_step}",
            pct(margin)
        ),
        None => {
            let top = ratios.last().map(|(n, _)| *n);
            let busy = top.and_then(|n| {
                let r = sw::at_step(a, n).next()?;
                let w = r.cpu.window_seconds.max(1e-9);
                let c = &r.cpu;
                Some((
                    n,
                    c.server_seconds / w,
                    c.load_generator_seconds / w,
                    c.postgres_seconds / w,
                    (c.redis_seconds + c.other_seconds) / w,
                ))
            });
            let cores = cx.results.machine.cores as f64;
            let why = match busy {
                Some((n, server, loadgen, pg, rest)) if server + loadgen + pg + rest >= 0.8 * cores => format!(
                    "CPU-bound: at {n} connections the async server used {server:.2}, the load generator {loadgen:.2}, Postgres {pg:.2} and everything else {rest:.2} of the machine's {cores:.0} cores"
                ),
                Some((n, server, ..)) => format!(
                    "not for lack of CPU (the async server used {server:.2} of {cores:.0} cores at {n} connections): the rounds' ratios reach within the margin of 1 or below it"
                ),
                None => "no step measured both".to_owned(),
            };
            format!(
                "async never beat blocking by more than {} in every round from one step through the highest ({why}); {per_step}",
                pct(margin)
            )
        }
    }
}

fn sweep_specs(t: &Thresholds) -> Vec<Spec> {
    use ColumnId as C;
    vec![
        Spec {
            id: "sweep-blocking-plateau-at-cap",
            seed: "none (issue 9: Little's law for a thread per request)",
            claim: format!(
                "the blocking server's throughput plateau on /posts/1 (300 ms) is within {} of its predicted cap, handler threads / 300 ms",
                pct(t.sweep_cap_within)
            ),
            needs: vec![C::BlockingPostsSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let b = cx.col(C::BlockingPostsSweep)?;
                let per_round = sw::plateau_per_round(b, &info.steps, t.sweep_plateau_steps, successful_rps);
                let plateau = Spread::of(per_round.iter().map(|p| p.1))?;
                let off = Spread::of(per_round.iter().map(|p| (p.1 / cap.rps - 1.0).abs()))?;
                Some((
                    off,
                    verdict(&off, Side::Below, t.sweep_cap_within, t.margin),
                    format!(
                        "plateau {:.0} req/s (median over rounds of the median at {} connections; rounds {:.0}-{:.0}) vs cap {:.0} req/s ({} threads / {:.0} ms): off by {:.1}% ({:.1}-{:.1}% over {} round{})",
                        plateau.median,
                        top_steps(info, t.sweep_plateau_steps),
                        plateau.min,
                        plateau.max,
                        cap.rps,
                        cap.handler_threads,
                        cap.latency_ms,
                        off.median * 100.0,
                        off.min * 100.0,
                        off.max * 100.0,
                        off.n,
                        if off.n == 1 { "" } else { "s" }
                    ),
                ))
            }),
        },
        Spec {
            id: "sweep-async-past-cap",
            seed: "none (issue 9: an event loop is not capped by a thread count)",
            claim: "the async server's plateau on /posts/1 goes past the blocking server's predicted cap; the report names the step from which async beats blocking by more than the margin".into(),
            needs: vec![C::AsyncPostsSweep, C::BlockingPostsSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepPosts)?;
                let cap = info.cap?;
                let (a, b) = (cx.col(C::AsyncPostsSweep)?, cx.col(C::BlockingPostsSweep)?);
                let per_round = sw::plateau_per_round(a, &info.steps, t.sweep_plateau_steps, successful_rps);
                let ratio = Spread::of(per_round.iter().map(|p| p.1 / cap.rps))?;
                let plateau = Spread::of(per_round.iter().map(|p| p.1))?;
                let ratios = step_ratios(a, b, info);
                Some((
                    ratio,
                    verdict(&ratio, Side::Above, 1.0, t.margin),
                    format!(
                        "async plateau {:.0} req/s (at {} connections) vs cap {:.0} req/s = {}; {}",
                        plateau.median,
                        top_steps(info, t.sweep_plateau_steps),
                        cap.rps,
                        describe_ratio(&ratio),
                        crossover_words(cx, a, &ratios, t.margin)
                    ),
                ))
            }),
        },
        Spec {
            id: "sweep-users-async-crossover",
            seed: "none (issue 9: where each model wins on a database read)",
            claim: "on /users/1, async (sqlx) serves more successful requests per second than blocking by more than the margin from some concurrency of the sweep on, at every step up to its highest".into(),
            needs: vec![C::AsyncUsersSweep, C::BlockingUsersSweep],
            check: Box::new(|cx, t| {
                let info = cx.sweep(GroupId::SweepUsers)?;
                let (a, b) = (cx.col(C::AsyncUsersSweep)?, cx.col(C::BlockingUsersSweep)?);
                let ratios = step_ratios(a, b, info);
                let at = sw::crossover(&ratios, t.margin)
                    .and_then(|n| ratios.iter().find(|r| r.0 == n))
                    .or(ratios.last())?;
                Some((
                    at.1,
                    sw::crossover_verdict(&ratios, t.margin),
                    crossover_words(cx, a, &ratios, t.margin),
                ))
            }),
        },
    ]
}

/// Checks every conclusion against `results`.
pub fn check(results: &RunResults, t: &Thresholds) -> Vec<Finding> {
    let cx = Ctx { results };
    specs(t)
        .into_iter()
        .chain(idle_specs(t))
        .chain(sweep_specs(t))
        .map(|spec| {
            let (interval, verdict, evidence) = match (spec.check)(&cx, t) {
                Some((interval, verdict, evidence)) => (Some(interval), verdict, evidence),
                None => (
                    None,
                    Verdict::NotMeasured,
                    "not measured in this run".to_owned(),
                ),
            };
            Finding {
                id: spec.id.to_owned(),
                seed: spec.seed.to_owned(),
                claim: spec.claim,
                verdict,
                interval,
                evidence,
                columns: spec.needs.iter().map(|c| c.as_str().to_owned()).collect(),
            }
        })
        .collect()
}

/// The windows in which the machine was not quiet: (column id, round,
/// cores used by everything else).
pub fn busy_windows(results: &RunResults, t: &Thresholds) -> Vec<(String, u32, f64)> {
    results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .flat_map(|c| c.rounds.iter().map(move |r| (c, r)))
        .filter(|(_, r)| r.cpu.other_cores() > t.quiet_other_cores)
        .map(|(c, r)| (c.id.clone(), r.round, r.cpu.other_cores()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A results.json from before a threshold existed (here, one with only
    /// the first five) reads the missing ones as today's.
    #[test]
    fn thresholds_missing_from_an_older_results_json_are_todays() {
        let old = r#"{"margin":0.1,"offload_within":0.15,"thread_fraction":0.25,"mixed_p99_factor":5.0,"quiet_other_cores":0.1}"#;
        let t: Thresholds = serde_json::from_str(old).unwrap();
        assert_eq!(
            t,
            Thresholds {
                margin: 0.1,
                ..THRESHOLDS
            }
        );
    }

    #[test]
    fn cold_start_verdict_needs_a_starved_start_and_a_fair_connector() {
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
