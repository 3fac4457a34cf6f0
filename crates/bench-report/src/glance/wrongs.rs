//! What goes wrong, the matrix's second part: each deliberately wrong
//! variant the run measured, with what it does to everything else.
//!
//! - Blocking the event loop, and pinning (or otherwise holding) a
//!   carrier: every column measured beside a background load whose route
//!   the contract's route table marks as blocking its server's threads by
//!   design, its /health p99 next to the one beside the same work done
//!   right (the same model, a background route on the same resource that
//!   blocks nothing).
//! - A thread per connection: every thread-pool server of the idle group
//!   that held at least the thresholds' threads per idle connection, its
//!   /health p99 and threads with the idle connections open next to the
//!   fixed pool's at the same size, and the connections a burst left
//!   unanswered on its cold starts (the cold-start probe of the server
//!   with the same label).
//!
//! - Saturated cores, on every model: /health next to /cpu on each model,
//!   beside its p99 next to a light neighbour ([`super::saturated`]).
//!
//! The verdict shown is that of the run's finding on the wrong column
//! that names the fewest columns, a prediction before a design check.

use bench_analysis::findings::kind_of;
use bench_analysis::stats::column_spread;
use bench_model::figures::{p99_is_lower_bound, p99_ms};
use bench_model::{ColdStartServer, ColumnId, ColumnResult, Finding, FindingKind, GroupId};
use bench_model::{IdleCell, IdleResult, IdleServer, RunResults, Spread, Thresholds};

use super::columns::{blocks_by_design, idle_target, route_of, Model};
use super::RowVerdict;

pub use super::wrong::{Wrong, WrongKind};

/// Every wrong variant of `results`, blocking the loop first.
pub fn wrongs(results: &RunResults, findings: &[Finding], t: &Thresholds) -> Vec<Wrong> {
    let mut out: Vec<Wrong> = results
        .groups
        .iter()
        .flat_map(|g| {
            g.columns
                .iter()
                .filter_map(move |c| beside(g.id, c, &g.columns, findings))
        })
        .collect();
    let probes = Probes {
        servers: results
            .groups
            .iter()
            .filter_map(|g| g.cold_start.as_ref())
            .flat_map(|p| &p.servers)
            .collect(),
        connections: results
            .groups
            .iter()
            .find_map(|g| g.cold_start.as_ref())
            .map_or(0, |p| p.connections),
    };
    out.extend(super::saturated::saturated_cores(results, findings));
    for g in &results.groups {
        if let Some(idle) = &g.idle {
            out.extend(thread_per_connection(g.id, idle, t, &probes, findings));
        }
    }
    out.sort_by_key(|w| w.kind);
    out
}

/// The run's cold-start probes: each probed server, and the connections
/// of a burst.
struct Probes<'a> {
    servers: Vec<&'a ColdStartServer>,
    connections: usize,
}

impl Probes<'_> {
    /// The probe of the server labelled as `s`, when it made a cold start.
    fn of(&self, s: &IdleServer) -> Option<&ColdStartServer> {
        self.servers
            .iter()
            .copied()
            .find(|p| p.label == s.label && !p.starts.is_empty())
    }
}

/// The finding that judges a wrong variant: of those naming one of `ids`,
/// a prediction before a design check, then one that also names the
/// variant done right (one of `right`: it compares the two), then the one
/// naming the fewest columns, then the first.
fn judging(findings: &[Finding], ids: &[ColumnId], right: &[ColumnId]) -> Option<RowVerdict> {
    findings
        .iter()
        .filter(|f| f.columns.iter().any(|c| ids.contains(c)))
        .min_by_key(|f| {
            (
                kind_of(f) == Some(FindingKind::DesignCheck),
                !f.columns.iter().any(|c| right.contains(c)),
                f.columns.len(),
            )
        })
        .map(RowVerdict::of)
}

/// The first segment of a route: the resource it works on ("users").
fn resource(route: &str) -> &str {
    route
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
}

/// `c` when it is a wrong variant measured beside a background load.
fn beside(
    group: GroupId,
    c: &ColumnResult,
    all: &[ColumnResult],
    findings: &[Finding],
) -> Option<Wrong> {
    let background = c.background_path.as_deref()?;
    let model = Model::of(c.server)?;
    if !blocks_by_design(c.server, &c.path, Some(background)) {
        return None;
    }
    let kind = match model {
        Model::EventLoop => WrongKind::BlockingTheEventLoop,
        Model::VirtualThreads => WrongKind::PinningACarrier,
        Model::ThreadPool => return None,
    };
    let bg = route_of(background);
    let right = all
        .iter()
        .filter(|o| Model::of(o.server) == Some(model))
        .filter(|o| {
            o.background_path
                .as_deref()
                .is_some_and(|b| resource(&route_of(b)) == resource(&bg))
        })
        .find(|o| !blocks_by_design(o.server, &o.path, o.background_path.as_deref()))
        .and_then(|o| Some((o.id, column_spread(o, p99_ms)?.median)));
    let driver = c
        .server
        .driver()
        .map_or(String::new(), |d| format!(", {} driver", d.as_str()));
    Some(Wrong {
        kind,
        group,
        column: c.id,
        what: format!("{bg}{driver}"),
        p99_ms: column_spread(c, p99_ms).map(|s| s.median),
        p99_lower_bound: c.rounds.iter().any(p99_is_lower_bound),
        right,
        threads: None,
        unanswered: None,
        verdict: judging(
            findings,
            &[c.id],
            &right.iter().map(|r| r.0).collect::<Vec<_>>(),
        ),
    })
}

/// The median /health p99 and threads per connection of `s` with `size`
/// idle connections open, where it opened them all.
fn idle_at(s: &IdleServer, size: usize) -> Option<(Option<f64>, f64)> {
    let IdleCell::Measured(steps) = s.cell(size) else {
        return None;
    };
    let p99 = Spread::of(
        steps
            .iter()
            .filter_map(|(_, st)| st.probe.map(|p| p.p99_ms)),
    );
    let threads = Spread::of(
        steps
            .iter()
            .filter_map(|(r, st)| st.threads_per_connection(&r.idle)),
    )?;
    Some((p99.map(|s| s.median), threads.median))
}

/// "up to 38 of 64 (on 6 of 8 cold starts)": the most connections of a
/// burst one cold start left unanswered past the probe's line.
fn unanswered(p: &ColdStartServer, connections: usize, t: &Thresholds) -> String {
    let late = p.late_per_start(t.cold_start_answer_within_ms);
    let worst = late.iter().max().copied().unwrap_or(0);
    let bad = late.iter().filter(|n| **n > 0).count();
    if worst == 0 {
        return format!("none of {connections} on {} cold starts", late.len());
    }
    format!(
        "up to {worst} of {connections} (on {bad} of {} cold starts)",
        late.len()
    )
}

/// What the connector of an idle server is: its label's bracket, or the label.
fn connector(s: &IdleServer) -> &str {
    s.label
        .rsplit_once('(')
        .map_or(s.label.as_str(), |(_, v)| v.trim_end_matches(')'))
}

/// The thread-pool servers of an idle group that held a thread per idle
/// connection, each next to a fixed pool's at the same size.
fn thread_per_connection(
    group: GroupId,
    idle: &IdleResult,
    t: &Thresholds,
    probes: &Probes<'_>,
    findings: &[Finding],
) -> Vec<Wrong> {
    let pools: Vec<&IdleServer> = idle
        .servers
        .iter()
        .filter(|s| idle_target(s).and_then(Model::of) == Some(Model::ThreadPool))
        .collect();
    let at_largest = |s: &IdleServer| {
        let size = s.largest_measured(&idle.sizes)?;
        Some((size, idle_at(s, size)?))
    };
    let (wrong, fixed): (Vec<&IdleServer>, Vec<&IdleServer>) = pools.iter().partition(|s| {
        at_largest(s).is_some_and(|(_, (_, threads))| threads >= t.idle_threads_per_connection)
    });
    let fixed = fixed.first();
    wrong
        .iter()
        .filter_map(|s| {
            let (size, (p99, threads)) = at_largest(s)?;
            let fixed_at = fixed.and_then(|o| Some((o.id, idle_at(o, size)?)));
            let for_fixed = |words: String| format!("; {words} for the fixed pool");
            let mut unanswered_words = probes.of(s).map(|p| unanswered(p, probes.connections, t));
            if let (Some(words), Some(p)) =
                (&mut unanswered_words, fixed.and_then(|o| probes.of(o)))
            {
                words.push_str(&for_fixed(unanswered(p, probes.connections, t)));
            }
            let fixed_threads =
                fixed_at.map_or(String::new(), |(_, (_, th))| for_fixed(format!("{th:.2}")));
            let mut ids = vec![s.id];
            ids.extend(probes.of(s).map(|p| p.id));
            let right: Vec<ColumnId> = fixed
                .iter()
                .flat_map(|o| std::iter::once(o.id).chain(probes.of(o).map(|p| p.id)))
                .collect();
            Some(Wrong {
                kind: WrongKind::ThreadPerConnection,
                group,
                column: s.id,
                what: connector(s).to_owned(),
                p99_ms: p99,
                p99_lower_bound: false,
                right: fixed_at.and_then(|(id, (p, _))| Some((id, p?))),
                threads: Some(format!(
                    "{threads:.2} per idle connection ({size} open){fixed_threads}"
                )),
                unanswered: unanswered_words,
                verdict: judging(findings, &ids, &right),
            })
        })
        .collect()
}
