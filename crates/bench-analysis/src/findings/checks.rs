//! What every finding is built from: the run's columns by id ([`Ctx`]), a
//! finding's words and check ([`Spec`]), the per-round metrics, and the
//! checks that several findings share (one column beats another, comes
//! close, spends more CPU per request).

use crate::stats::{self, column_spread, describe_ratio, ratio_spread, verdict, Side};
use bench_model::{ColdStartServer, ColumnResult, IdleServer, RoundResult, RunResults, SweepInfo};
use bench_model::{ColumnId, GroupId};
use bench_model::{Spread, Verdict};

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

pub(super) fn rps(r: &RoundResult) -> Option<f64> {
    Some(r.load.throughput_rps)
}

pub(super) fn p99(r: &RoundResult) -> Option<f64> {
    Some(r.load.latency_ms.p99)
}

pub(super) fn peak_threads(r: &RoundResult) -> Option<f64> {
    (r.server_process.samples > 0).then_some(r.server_process.peak_threads as f64)
}

pub(super) fn median(c: &ColumnResult, metric: stats::Metric) -> f64 {
    column_spread(c, metric).map_or(f64::NAN, |s| s.median)
}

/// Per-round values of `f(a_round, b_round)`, rounds matched by number.
pub(super) fn paired(
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
pub(super) type Outcome = (Spread, Verdict, String);

/// A finding's check: `None` when a column it needs was not measured.
pub(super) type Check = Box<dyn Fn(&Ctx<'_>, &Thresholds) -> Option<Outcome>>;

/// A conclusion: its words, the columns it needs, and the check.
pub(super) struct Spec {
    pub(super) id: &'static str,
    pub(super) seed: &'static str,
    pub(super) claim: String,
    pub(super) needs: Vec<ColumnId>,
    pub(super) check: Check,
}

pub(super) fn pct(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

/// "`a` serves at least `line(t)` times `b`'s requests per second", judged
/// on the ratio taken round by round.
pub(super) fn throughput_ratio_above(
    a: ColumnId,
    b: ColumnId,
    line: fn(&Thresholds) -> f64,
) -> Check {
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
pub(super) fn beats(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |_| 1.0)
}

/// "`a` beats `b`", with both sides' server CPU per request in the evidence.
pub(super) fn beats_showing_cpu(a: ColumnId, b: ColumnId) -> Check {
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
pub(super) fn spends_more_cpu_per_request(a: ColumnId, b: ColumnId) -> Check {
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
pub(super) fn comes_close(a: ColumnId, b: ColumnId) -> Check {
    throughput_ratio_above(a, b, |t| 1.0 - t.offload_within)
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
    let rest = (c.redis_seconds + c.softirq_seconds + c.stolen_seconds + c.other_seconds) / w;
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
