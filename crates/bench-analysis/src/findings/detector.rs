//! The stall detector's two findings, one per thing that can be wrong:
//!
//! - the instrument: the async server's blocking-call counter (BlockHound's
//!   question) counts marked calls on exactly the routes that make them,
//!   the contract's routes that block the event loop by design, and on no
//!   other ([`marks_blocking_calls`]);
//! - the measurement: timing alone (slow polls) flags each of those routes
//!   once its blocking lasts past the slow-poll threshold, and no other
//!   route ([`timing_flags_blocking_routes`]), judged in the stall-detector
//!   group, where Postgres and Redis are a round trip away through a proxy
//!   and `/cpu` computes long enough to pass the threshold.
//!
//! Either can fail on both sides: a route that should be flagged and is
//! not, or one that is and should not be. Virtual threads' detector is
//! judged the same way on its own figures ([`super::virtual_detector`]).
//!
//! The marks are counted by the code that makes the blocking call, so the
//! first finding confirms the build (a design check); the second is timed
//! by the clock on a loaded machine, which can fail it (a prediction).

use contract::routes::{self, NonBlocking};

use super::checks::{Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats;
use crate::verdict::{call, Call, Side};
use bench_model::{ColumnId, GroupId, Target};
use bench_model::{DetectorWindow, RouteWindow, RunResults, Spread};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![marks_blocking_calls(t), timing_flags_blocking_routes(t)]
}

/// One route of one column in one round, as its server's stall detector
/// saw it: the async server's, or virtual threads' (whose figures are per
/// request: a coroutine has no polls).
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorObservation {
    pub group: GroupId,
    pub column: ColumnId,
    pub round: u32,
    pub route: String,
    /// The threads that must not block on the column's server: the route
    /// table says which routes should be flagged there.
    pub mode: NonBlocking,
    /// Slow polls over polls in the window; `None` when the route was not
    /// polled or the detector's figures are missing.
    pub slow_poll_share: Option<f64>,
    /// Blocking calls on an event-loop worker per poll in the window;
    /// `None` when the route was not polled or the server does not count them.
    pub blocking_calls_per_poll: Option<f64>,
    /// Virtual threads: blocking calls on a carrier per request.
    pub blocking_calls_per_request: Option<f64>,
    /// Virtual threads: carrier stalls per request.
    pub carrier_stalls_per_request: Option<f64>,
    /// The lag probe's p99 at the window's end, in ms: the event loop's,
    /// or the carriers'.
    pub lag_p99_ms: Option<f64>,
}

/// Every async column's routes in every round (the mixed group's /health
/// probe and its background route both), from the detector's figures. A
/// round without them (detector off, `/metrics` unreadable) gives one
/// observation per column route with no figures.
pub fn detector_observations(results: &RunResults) -> Vec<DetectorObservation> {
    observations(
        results,
        |server| (server == Target::Async).then_some(NonBlocking::EventLoop),
        |window, detector| Figures {
            slow_poll_share: window.and_then(RouteWindow::slow_poll_share),
            blocking_calls_per_poll: window.and_then(calls_per_poll),
            lag_p99_ms: detector.and_then(|d| d.event_loop_lag_p99_ms),
            ..Figures::default()
        },
    )
}

/// The detector's figures of one route in one window.
#[derive(Debug, Default)]
pub(super) struct Figures {
    pub(super) slow_poll_share: Option<f64>,
    pub(super) blocking_calls_per_poll: Option<f64>,
    pub(super) blocking_calls_per_request: Option<f64>,
    pub(super) carrier_stalls_per_request: Option<f64>,
    pub(super) lag_p99_ms: Option<f64>,
}

/// One observation per route of every round of every column whose server
/// `mode_of` names the threads of (the column's route and its background
/// route), with the figures `figures` reads from the round's detector
/// window. A sweep's steps do not read the detector (its /metrics would
/// queue behind the step's own requests): not observations.
pub(super) fn observations(
    results: &RunResults,
    mode_of: impl Fn(Target) -> Option<NonBlocking>,
    figures: impl Fn(Option<&RouteWindow>, Option<&DetectorWindow>) -> Figures,
) -> Vec<DetectorObservation> {
    let mut out = Vec::new();
    for g in &results.groups {
        for c in &g.columns {
            let Some(mode) = mode_of(c.server) else {
                continue;
            };
            let routes: Vec<&'static str> = std::iter::once(c.path.as_str())
                .chain(c.background_path.as_deref())
                .filter_map(contract::routes::label_of)
                .collect();
            for r in c.rounds.iter().filter(|r| r.step.is_none()) {
                for route in &routes {
                    let detector = r.detector.as_ref();
                    let f = figures(detector.and_then(|d| d.route(route)), detector);
                    out.push(DetectorObservation {
                        group: g.id,
                        column: c.id,
                        round: r.round,
                        route: (*route).to_owned(),
                        mode,
                        slow_poll_share: f.slow_poll_share,
                        blocking_calls_per_poll: f.blocking_calls_per_poll,
                        blocking_calls_per_request: f.blocking_calls_per_request,
                        carrier_stalls_per_request: f.carrier_stalls_per_request,
                        lag_p99_ms: f.lag_p99_ms,
                    });
                }
            }
        }
    }
    out
}

/// Blocking calls per poll in a window; calls counted in a window in which
/// no poll ended (a call is counted when it starts, a poll when it ends: a
/// 300-ms sleep can straddle a short window) count as made in one poll.
fn calls_per_poll(w: &RouteWindow) -> Option<f64> {
    match (w.blocking_calls, w.polls) {
        (Some(calls), Some(0)) if calls > 0 => Some(calls as f64),
        _ => w.blocking_calls_per_poll(),
    }
}

/// What one half of the detector is judged on: a figure of an observation
/// (`None`: missing) and the line at or over which it flags the route.
#[derive(Debug, Clone, Copy)]
pub struct Half {
    /// What it is, in the evidence ("blocking calls per poll").
    pub name: &'static str,
    pub figure: fn(&DetectorObservation) -> Option<f64>,
    pub line: f64,
    /// How a figure prints.
    pub show: fn(f64) -> String,
}

impl Half {
    /// The blocking-call counter: calls on a worker per poll.
    pub fn blocking_calls(t: &Thresholds) -> Half {
        Half {
            name: "blocking calls on an event-loop worker per poll",
            figure: |o| o.blocking_calls_per_poll,
            line: t.detector_blocking_calls_per_poll,
            show: stats::per_poll,
        }
    }

    /// Timing: slow polls over polls.
    pub fn slow_polls(t: &Thresholds) -> Half {
        Half {
            name: "slow polls over polls",
            figure: |o| o.slow_poll_share,
            line: t.detector_slow_poll_share,
            show: stats::percent,
        }
    }

    fn flags(&self, o: &DetectorObservation) -> Option<bool> {
        (self.figure)(o).map(|f| f >= self.line)
    }

    /// What `o`'s figure says: it clears when it is on the side of the
    /// line its route's design wants (at or over it for a route that
    /// blocks, under it for one that does not) beyond the margin, misses
    /// on the other side beyond the margin, and is unclear within the
    /// margin or without a figure.
    fn call(&self, o: &DetectorObservation, margin: f64) -> Call {
        let Some(figure) = (self.figure)(o) else {
            return Call::NoFigure;
        };
        let side = if routes::blocks(&o.route, o.mode) {
            Side::Above
        } else {
            Side::Below
        };
        call(figure, side, self.line, margin)
    }
}

/// What one round says of "`half` flags exactly the routes that block by
/// design": it misses when some route's figure misses, clears when every
/// route's clears, has no figure when some route has none, and is unclear
/// otherwise.
fn round_call(calls: impl Iterator<Item = Call>) -> Call {
    let calls: Vec<Call> = calls.collect();
    if calls.contains(&Call::Misses) {
        Call::Misses
    } else if calls.iter().all(|c| *c == Call::Clears) {
        Call::Clears
    } else if calls.contains(&Call::NoFigure) {
        Call::NoFigure
    } else {
        Call::Unclear
    }
}

/// The outcome of "`half` flags exactly the routes that block by design",
/// from `obs`, each round judged by the one rule ([`round_call`]). The
/// interval is the mismatches per round; the evidence names the routes
/// flagged, each route that differs and where, with its figures over
/// rounds, and each route within the margin of the line.
pub(super) fn exact_flags_verdict(
    obs: &[DetectorObservation],
    half: &Half,
    t: &Thresholds,
) -> Option<Outcome> {
    let mut rounds: Vec<u32> = obs.iter().map(|o| o.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    if rounds.is_empty() {
        return None;
    }
    let in_round = |r: u32| obs.iter().filter(move |o| o.round == r);
    let calls: Vec<Call> = rounds
        .iter()
        .map(|&r| round_call(in_round(r).map(|o| half.call(o, t.margin))))
        .collect();
    let per_round: Vec<usize> = rounds
        .iter()
        .map(|&r| {
            in_round(r)
                .filter(|o| half.call(o, t.margin) == Call::Misses)
                .count()
        })
        .collect();
    let missing: Vec<ColumnId> = dedup(
        obs.iter()
            .filter(|o| half.flags(o).is_none())
            .map(|o| o.column),
    );
    let near: Vec<String> = dedup(
        obs.iter()
            .filter(|o| half.flags(o).is_some() && half.call(o, t.margin) == Call::Unclear)
            .map(|o| format!("{} in {}", o.route, o.column)),
    );
    let evidence = exact_flags_evidence(obs, half, (&per_round, &missing, &near), t.margin);
    let figures: Vec<f64> = per_round.iter().map(|&n| n as f64).collect();
    let short = format!(
        "{}; mismatches per round: {}{}",
        flagged_words(obs, half),
        counts(&per_round),
        if missing.is_empty() {
            String::new()
        } else {
            format!("; no figure in {}", words(&missing))
        }
    );
    Some(Outcome::of_calls(&figures, calls, evidence).with_short(short))
}

/// "0, 0, 1".
fn counts(per_round: &[usize]) -> String {
    let each: Vec<String> = per_round.iter().map(ToString::to_string).collect();
    each.join(", ")
}

/// "a, b" of anything printable.
fn words<T: ToString>(items: &[T]) -> String {
    let each: Vec<String> = items.iter().map(ToString::to_string).collect();
    each.join(", ")
}

/// "flagged (... >= line, in some round): /cpu, ...".
fn flagged_words(obs: &[DetectorObservation], half: &Half) -> String {
    let flagged = dedup(
        obs.iter()
            .filter(|o| half.flags(o) == Some(true))
            .map(|o| o.route.as_str()),
    );
    format!(
        "flagged ({} >= {}, in some round): {}",
        half.name,
        (half.show)(half.line),
        if flagged.is_empty() {
            "none".to_owned()
        } else {
            flagged.join(", ")
        }
    )
}

/// The evidence of [`exact_flags_verdict`]: the routes flagged, those
/// that differ (beyond the margin) and those within it, the columns
/// without a figure, and the mismatches per round.
fn exact_flags_evidence(
    obs: &[DetectorObservation],
    half: &Half,
    (per_round, missing, near): (&[usize], &[ColumnId], &[String]),
    margin: f64,
) -> String {
    let mut parts = vec![flagged_words(obs, half)];
    let wrong: Vec<(&str, ColumnId, bool)> = dedup(
        obs.iter()
            .filter(|o| half.call(o, margin) == Call::Misses)
            .map(|o| (o.route.as_str(), o.column, routes::blocks(&o.route, o.mode))),
    );
    let figures = |route: &str, column: ColumnId| {
        let each: Vec<String> = obs
            .iter()
            .filter(|o| o.route == route && o.column == column)
            .map(|o| (half.figure)(o).map_or("-".to_owned(), half.show))
            .collect();
        format!("{route} in {column} ({})", each.join(", "))
    };
    for (blocks, what) in [
        (true, "should be flagged but is not"),
        (false, "flagged but should not be"),
    ] {
        let these: Vec<String> = wrong
            .iter()
            .filter(|(_, _, should)| *should == blocks)
            .map(|(route, column, _)| figures(route, *column))
            .collect();
        if !these.is_empty() {
            parts.push(format!("{what}: {}", these.join("; ")));
        }
    }
    if !near.is_empty() {
        parts.push(format!(
            "within {}% of the line in some round: {}",
            margin * 100.0,
            near.join(", ")
        ));
    }
    if !missing.is_empty() {
        parts.push(format!("no figure (detector off, /metrics unreadable, or the route not polled in the window) in: {}", words(missing)));
    }
    parts.push(format!("mismatches per round: {}", counts(per_round)));
    parts.join("; ")
}

/// `items` without repeats, in first-seen order.
pub(super) fn dedup<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The routes that block a thread of `mode` by design, as a list.
pub(super) fn routes_blocking(mode: NonBlocking) -> String {
    routes::blocks_by_design(mode)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The instrument: marked calls counted on exactly the routes that make them.
fn marks_blocking_calls(t: &Thresholds) -> Spec {
    Spec {
        id: "detector-marks-blocking-calls",
        seed: "seed 001 (which mentions BlockHound: which route blocks my event loop?)",
        kind: Kind::DesignCheck("the marks are counted by the blocking calls' own code, which only the routes that block by design run"),
        claim: format!(
            "the async server's blocking-call counter counts calls on an event-loop worker on exactly the routes that make them by design ({}, among those run) and on no other: at least {} per poll in a window, in every async column of every group",
            routes_blocking(NonBlocking::EventLoop),
            t.detector_blocking_calls_per_poll
        ),
        needs: Needs::InRun(|r| detector_columns(r, is_async, |_| true)),
        check: Box::new(|cx, t| {
            exact_flags_verdict(
                &detector_observations(cx.results),
                &Half::blocking_calls(t),
                t,
            )
        }),
    }
}

/// The measurement: slow polls alone flag each blocking route once its
/// blocking outlasts the threshold, in the stall-detector group.
fn timing_flags_blocking_routes(t: &Thresholds) -> Spec {
    Spec {
        id: "detector-timing-flags-blocking-routes",
        seed: "beyond the seeds: a blocked worker seen by its timing alone",
        kind: Kind::Prediction("slow polls timed by the clock on a loaded machine, which can miss a route or flag one"),
        claim: format!(
            "timing alone flags each route that blocks the event loop ({}) once its blocking lasts past the slow-poll threshold, and no other route: slow polls on at least {} of a route's polls in every round of the stall-detector group, where Postgres and Redis answer a proxy's round trip away and /cpu computes for longer than the threshold",
            routes_blocking(NonBlocking::EventLoop),
            stats::percent(t.detector_slow_poll_share)
        ),
        needs: Needs::InRun(|r| detector_columns(r, is_async, |g| g == GroupId::Stalls)),
        check: Box::new(|cx, t| {
            let obs: Vec<DetectorObservation> = detector_observations(cx.results)
                .into_iter()
                .filter(|o| o.group == GroupId::Stalls)
                .collect();
            let outcome = exact_flags_verdict(&obs, &Half::slow_polls(t), t)?;
            let evidence = format!("{}; {}", outcome.evidence, lag_words(&obs));
            Some(Outcome { evidence, ..outcome })
        }),
    }
}

/// The lag probe beside the slow polls: its p99 per column, medians over rounds.
pub(super) fn lag_words(obs: &[DetectorObservation]) -> String {
    let columns = dedup(obs.iter().map(|o| o.column));
    let each: Vec<String> = columns
        .iter()
        .filter_map(|c| {
            let lag = Spread::of(
                obs.iter()
                    .filter(|o| o.column == *c)
                    .filter_map(|o| o.lag_p99_ms),
            )?;
            Some(format!("{c} {:.1} ms", lag.median))
        })
        .collect();
    let probe = match obs.first().map(|o| o.mode) {
        Some(NonBlocking::EventLoop) | None => "event-loop",
        Some(_) => "carrier",
    };
    format!(
        "{probe} lag p99 (medians over rounds, not judged): {}",
        each.join(", ")
    )
}

/// Whether a column's server is the async one.
fn is_async(server: Target) -> bool {
    server == Target::Async
}

/// The columns a detector finding is judged on, as the run saved them:
/// those on a server `on` accepts, in the groups `wanted` accepts, whose
/// rounds are detector windows (a load group's: a sweep's steps and the
/// idle group do not read the detector). A group the run did not measure
/// has none.
pub(super) fn detector_columns(
    results: &RunResults,
    on: fn(Target) -> bool,
    wanted: impl Fn(GroupId) -> bool,
) -> Vec<ColumnId> {
    results
        .groups
        .iter()
        .filter(|g| wanted(g.id) && g.sweep.is_none() && g.idle.is_none())
        .flat_map(|g| &g.columns)
        .filter(|c| on(c.server))
        .map(|c| c.id)
        .collect()
}
