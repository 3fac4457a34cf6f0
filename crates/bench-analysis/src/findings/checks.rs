//! What every finding is built from: the run's columns by id ([`Ctx`]), a
//! finding's words, kind and check ([`Spec`]), what a check gives
//! ([`Outcome`]), the per-round metrics, and the checks that several
//! findings share (one column beats another, spends more CPU per request).

use crate::stats::{column_spread, ratio_words, ratios, Line};
use crate::verdict::{call, judge, judge_comparison, same_words, Call, Side, Undecided};
use bench_model::figures::{p99_ms, server_cpu_us_per_request, successful_rps};
use bench_model::{ColdStartServer, ColumnResult, IdleServer, RoundResult, RunResults, SweepInfo};
use bench_model::{ColumnId, FindingKind, GroupId};
use bench_model::{Metric, Spread, Verdict};

use super::Thresholds;

/// The run's columns by id.
pub(super) struct Ctx<'a> {
    pub(super) results: &'a RunResults,
}

impl Ctx<'_> {
    /// The cold-start probe of a column's server, when it was probed at least once.
    pub(super) fn cold_start(&self, id: ColumnId) -> Option<&ColdStartServer> {
        self.results
            .groups
            .iter()
            .filter_map(|g| g.cold_start.as_ref())
            .flat_map(|p| &p.servers)
            .find(|s| s.id == id && s.failure.is_none() && !s.starts.is_empty())
    }

    /// The idle group's server of a column, when it measured a round.
    pub(super) fn idle(&self, id: ColumnId) -> Option<(&IdleServer, &[usize])> {
        self.results
            .groups
            .iter()
            .filter_map(|g| g.idle.as_ref())
            .flat_map(|i| i.servers.iter().map(move |s| (s, i.sizes.as_slice())))
            .find(|(s, _)| s.id == id && !s.rounds.is_empty())
    }

    /// A sweep group's description, when it ran.
    pub(super) fn sweep(&self, group: GroupId) -> Option<&SweepInfo> {
        self.results
            .groups
            .iter()
            .find(|g| g.id == group)?
            .sweep
            .as_ref()
    }

    /// A column with at least one measured round.
    pub(super) fn col(&self, id: ColumnId) -> Option<&ColumnResult> {
        self.results
            .groups
            .iter()
            .flat_map(|g| &g.columns)
            .find(|c| c.id == id && !c.rounds.is_empty())
    }
}

pub(super) fn median(c: &ColumnResult, metric: Metric) -> f64 {
    column_spread(c, metric).map_or(f64::NAN, |s| s.median)
}

/// Per-round values of `f(a_round, b_round)`, rounds matched by number.
pub(super) fn paired(
    a: &ColumnResult,
    b: &ColumnResult,
    f: impl Fn(&RoundResult, &RoundResult) -> Option<f64>,
) -> Vec<f64> {
    paired_rounds(a, b, f).into_iter().map(|p| p.1).collect()
}

/// [`paired`], each value with its round number.
pub(super) fn paired_rounds(
    a: &ColumnResult,
    b: &ColumnResult,
    f: impl Fn(&RoundResult, &RoundResult) -> Option<f64>,
) -> Vec<(u32, f64)> {
    a.rounds
        .iter()
        .filter_map(|ra| {
            let rb = b.rounds.iter().find(|rb| rb.round == ra.round)?;
            Some((ra.round, f(ra, rb)?))
        })
        .collect()
}

/// Per round number that every list has, the `pick` of their values (the
/// worse of several comparisons a claim makes at once).
pub(super) fn across(lists: &[Vec<(u32, f64)>], pick: fn(f64, f64) -> f64) -> Vec<f64> {
    let Some(first) = lists.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter_map(|(round, _)| {
            lists
                .iter()
                .map(|l| l.iter().find(|p| p.0 == *round).map(|p| p.1))
                .collect::<Option<Vec<f64>>>()?
                .into_iter()
                .reduce(pick)
        })
        .collect()
}

/// The larger of two figures for [`across`], not a number when either is
/// not (so that a round without a figure is unclear, never the other's).
pub(super) fn larger(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// What a finding's check gives: the interval over rounds, the verdict,
/// the evidence, a short evidence for a table when the whole is long, the
/// line its rounds were judged against (when one figure per round was),
/// and why the rounds decide nothing or came out the same, in words.
pub(super) struct Outcome {
    pub(super) interval: Option<Spread>,
    pub(super) verdict: Verdict,
    pub(super) evidence: String,
    pub(super) short: Option<String>,
    pub(super) line: Option<f64>,
    pub(super) why: Option<Why>,
}

/// Why a verdict is not HELD or NOT HELD: the rounds decide nothing, or
/// two figures came out the same.
pub(super) enum Why {
    Undecided(Undecided),
    Same(String),
}

impl Outcome {
    /// Judged by the one rule on each round's figure against the line.
    pub(super) fn judged(
        per_round: &[f64],
        (side, line): (Side, f64),
        t: &Thresholds,
        evidence: String,
    ) -> Outcome {
        Outcome {
            line: Some(line),
            ..Outcome::of_calls(
                per_round,
                per_round.iter().map(|&f| call(f, side, line, t.margin)),
                evidence,
            )
        }
    }

    /// A comparison of two figures, `ratios` one per round (the first
    /// over the second), judged by the one rule, which for a comparison
    /// also answers SAME ([`judge_comparison`]).
    pub(super) fn compared(
        ratios: &[f64],
        (side, line): (Side, f64),
        t: &Thresholds,
        evidence: String,
    ) -> Outcome {
        let judged = Outcome::judged(ratios, (side, line), t, evidence);
        let verdict = judge_comparison(ratios, side, line, t.margin);
        if verdict == judged.verdict {
            return judged;
        }
        Outcome {
            verdict,
            why: Some(Why::Same(same_words(ratios, t.margin))),
            ..judged
        }
    }

    /// Judged by the one rule on each round's call, `per_round` the figures
    /// its interval shows.
    pub(super) fn of_calls(
        per_round: &[f64],
        calls: impl IntoIterator<Item = Call>,
        evidence: String,
    ) -> Outcome {
        let calls: Vec<Call> = calls.into_iter().collect();
        Outcome {
            interval: Spread::of(per_round.iter().copied()),
            verdict: judge(calls.iter().copied()),
            evidence,
            short: None,
            line: None,
            why: Undecided::of(&calls).map(Why::Undecided),
        }
    }

    /// With `short` as the table's evidence.
    pub(super) fn with_short(self, short: String) -> Outcome {
        Outcome {
            short: Some(short),
            ..self
        }
    }
}

/// A finding's check: `None` when a column it needs was not measured.
pub(super) type Check = Box<dyn Fn(&Ctx<'_>, &Thresholds) -> Option<Outcome>>;

/// What a finding puts to the test, with the reason in one line.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    /// A measured comparison against a line, which real data can fail.
    Prediction(&'static str),
    /// Confirms what the build guarantees.
    DesignCheck(&'static str),
}

impl Kind {
    pub(super) fn finding_kind(self) -> FindingKind {
        match self {
            Kind::Prediction(_) => FindingKind::Prediction,
            Kind::DesignCheck(_) => FindingKind::DesignCheck,
        }
    }

    pub(super) fn reason(self) -> &'static str {
        match self {
            Kind::Prediction(why) | Kind::DesignCheck(why) => why,
        }
    }
}

/// The columns a finding needs: fixed, or (the detectors') every column
/// of some kind the run measured.
pub(super) enum Needs {
    Columns(Vec<ColumnId>),
    InRun(fn(&RunResults) -> Vec<ColumnId>),
}

impl Needs {
    /// The two columns of `pair`.
    pub(super) fn both((a, b): (ColumnId, ColumnId)) -> Needs {
        Needs::Columns(vec![a, b])
    }

    pub(super) fn of(&self, results: &RunResults) -> Vec<ColumnId> {
        match self {
            Needs::Columns(c) => c.clone(),
            Needs::InRun(f) => f(results),
        }
    }
}

/// A conclusion: its words, its kind, the columns it needs, and the check.
pub(super) struct Spec {
    pub(super) id: &'static str,
    /// The seed it comes from, or "beyond the seeds: ..." with what it is about.
    pub(super) seed: &'static str,
    pub(super) kind: Kind,
    pub(super) claim: String,
    pub(super) needs: Needs,
    pub(super) check: Check,
}

pub(super) fn pct(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

/// A figure two columns are compared by, and how evidence words it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Compared {
    /// Successful requests per second.
    Throughput,
    /// Server CPU per request, us.
    CpuPerRequest,
    /// /health's p99, ms, floored at 1 us (below it a factor means nothing).
    HealthP99,
}

impl Compared {
    fn metric(self) -> Metric {
        match self {
            Compared::Throughput => successful_rps,
            Compared::CpuPerRequest => server_cpu_us_per_request,
            Compared::HealthP99 => |r| Some(p99_ms(r)?.max(0.001)),
        }
    }

    /// The two columns' medians: "700 vs 1000 req/s".
    fn medians(self, a: f64, b: f64) -> String {
        match self {
            Compared::Throughput => format!("{a:.0} vs {b:.0} req/s"),
            Compared::CpuPerRequest => format!("{a:.1} vs {b:.1} us of server CPU per request"),
            Compared::HealthP99 => format!("/health p99 {a:.1} ms vs {b:.1} ms"),
        }
    }
}

/// `a`'s `figure` over `b`'s round by round, and the evidence showing it:
/// "700 vs 1000 req/s (column medians); async / blocking: per round 0.70x,
/// ... (median 0.70x)"; `whose` is the bracket's words ("column medians",
/// or "pinning vs yielding, column medians"), `names` the ratio's; the
/// ratios written beside `line`, the one they are judged against.
pub(super) fn compare_columns(
    (a, b): (&ColumnResult, &ColumnResult),
    figure: Compared,
    (whose, names): (&str, &str),
    line: Line,
) -> (Vec<f64>, String) {
    let metric = figure.metric();
    let per_round = ratios(a, b, metric);
    let evidence = format!(
        "{} ({whose}); {names}: {}",
        figure.medians(median(a, metric), median(b, metric)),
        ratio_words(&per_round, Some(line))
    );
    (per_round, evidence)
}

/// `a`'s `figure` over `b`'s, round by round, judged on `side` of `at`
/// (beyond the margin); `words` as [`compare_columns`] takes them.
fn judge_ratio(
    (cx, t): (&Ctx<'_>, &Thresholds),
    (a, b): (ColumnId, ColumnId),
    figure: Compared,
    words: (&str, &str),
    (side, at): (Side, f64),
) -> Option<Outcome> {
    let (per_round, evidence) = compare_columns(
        (cx.col(a)?, cx.col(b)?),
        figure,
        words,
        Line {
            at,
            margin: t.margin,
        },
    );
    Some(Outcome::compared(&per_round, (side, at), t, evidence))
}

/// The check of [`judge_ratio`] on the columns `pair`, on `side` of
/// `line(t)`.
pub(super) fn ratio_check(
    pair: (ColumnId, ColumnId),
    figure: Compared,
    words: (&'static str, &'static str),
    (side, line): (Side, fn(&Thresholds) -> f64),
) -> Check {
    Box::new(move |cx, t| judge_ratio((cx, t), pair, figure, words, (side, line(t))))
}

/// "`a`'s `figure` is at least `line(t)` times `b`'s", judged on the
/// ratio taken round by round.
fn ratio_above(a: ColumnId, b: ColumnId, figure: Compared, line: fn(&Thresholds) -> f64) -> Check {
    Box::new(move |cx, t| {
        let names = format!("{a} / {b}");
        let words = ("column medians", names.as_str());
        judge_ratio((cx, t), (a, b), figure, words, (Side::Above, line(t)))
    })
}

/// "`a` serves at least `line(t)` times `b`'s requests per second", judged
/// on the ratio taken round by round.
pub(super) fn throughput_ratio_above(
    a: ColumnId,
    b: ColumnId,
    line: fn(&Thresholds) -> f64,
) -> Check {
    ratio_above(a, b, Compared::Throughput, line)
}

/// "`a` beats `b`": a ratio above 1.
/// "`a` comes within `offload_within` of `b`'s requests per second".
pub(super) fn comes_close(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |t| 1.0 - t.offload_within)
}

pub(super) fn beats(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |_| 1.0)
}

/// "`a` beats `b`", with both sides' server CPU per request in the evidence.
pub(super) fn beats_showing_cpu(a: ColumnId, b: ColumnId) -> Check {
    let ratio = beats(a, b);
    Box::new(move |cx, t| {
        let outcome = ratio(cx, t)?;
        let us = server_cpu_us_per_request;
        let (ca, cb) = (cx.col(a)?, cx.col(b)?);
        let cpu = format!(
            "; server CPU {:.1} vs {:.1} us per request (column medians)",
            median(ca, us),
            median(cb, us)
        );
        let short = outcome.evidence.clone();
        Some(
            Outcome {
                evidence: outcome.evidence + &cpu,
                ..outcome
            }
            .with_short(short),
        )
    })
}

/// "`a` spends more server CPU per request than `b`": a ratio above 1.
pub(super) fn spends_more_cpu_per_request(a: ColumnId, b: ColumnId) -> Check {
    ratio_above(a, b, Compared::CpuPerRequest, |_| 1.0)
}

/// Where the machine's cores went in one window of `server`'s column, for
/// a finding whose prediction did not come true: "CPU-bound: ..." with
/// each part's share of the cores when they were busy to within a fifth
/// (stolen time counts: the machine wanted those cores and did not get
/// them), else "not for lack of CPU" with the server's share.
pub(super) fn where_the_cores_went(r: &RoundResult, server: &str, cores: f64) -> String {
    let c = &r.cpu;
    let w = c.window_seconds.max(1e-9);
    let (srv, loadgen, pg, proxies) = (
        c.server_seconds / w,
        c.load_generator_seconds / w,
        c.postgres_seconds / w,
        c.proxy_seconds / w,
    );
    // Softirq is added only where it was a part of its own; otherwise it is
    // inside the processes' times already.
    let softirq = if c.softirq_is_a_part() {
        c.softirq_seconds
    } else {
        0.0
    };
    let rest = (c.redis_seconds + softirq + c.stolen_seconds + c.other_seconds) / w;
    if srv + loadgen + pg + proxies + rest < 0.8 * cores {
        return format!(
            "not for lack of CPU: the {server} used {srv:.2} of the machine's {cores:.0} cores"
        );
    }
    let proxies = if proxies > 0.0 {
        format!(", the proxies {proxies:.2}")
    } else {
        String::new()
    };
    let stolen = if c.stolen_seconds > 0.0 {
        format!(
            " (of which the hypervisor took {:.2})",
            c.stolen_seconds / w
        )
    } else {
        String::new()
    };
    format!(
        "CPU-bound: the {server} used {srv:.2}, the load generator {loadgen:.2}, Postgres {pg:.2}{proxies} and everything else {rest:.2}{stolen} of the machine's {cores:.0} cores"
    )
}
