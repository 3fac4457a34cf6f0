//! The figures of one cell, taken from a column's saved rounds as the
//! group's own tables take them: a load column's successful requests per
//! second, or where its group has equal-load windows what a core of a
//! dedicated server would serve at its CPU per request there; a sweep
//! column's plateau, an idle server's memory per idle connection at the
//! largest size it opened; then its p99 and server CPU per request (or its
//! threads per idle connection). A sweep column whose top steps do not
//! agree has no plateau: its figures are the highest step's, marked still
//! rising (or falling). A p99 with as many requests without an answer as
//! its tail holds is marked a lower bound
//! ([`bench_model::figures::p99_is_lower_bound`]).

use bench_analysis::stats::column_spread;
use bench_analysis::sweep::{at_step, plateau_per_round, top_of, Shape};
use bench_model::figures::{p99_is_lower_bound, p99_ms, server_cpu_us_per_answer};
use bench_model::figures::{requests_per_server_cpu_second, server_cpu_us_per_request};
use bench_model::figures::{step_p99_ms, successful_rps};
use bench_model::Thresholds;
use bench_model::{ColumnResult, GroupResult, IdleCell, IdleServer, Metric, Spread, SweepInfo};

/// What a row's cells are compared by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Successful requests per second over the measured window.
    Throughput,
    /// A sweep's plateau: successful requests per second at its top
    /// steps, or at its highest step where the top steps do not agree
    /// (still rising, or falling).
    Plateau,
    /// Resident memory above idle per idle keep-alive connection, in KiB.
    IdleKib,
    /// Server CPU per request at one arrival rate for every column
    /// ([`bench_model::EqualLoad`]), as what one core of a dedicated
    /// server would serve at it: 1 s / CPU per request. Relative to the
    /// row's best it is the best CPU per request over this column's.
    CapacityAtEqualLoad,
}

impl Figure {
    /// Whether more is better: requests are, memory is a cost.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Figure::IdleKib)
    }

    /// Its unit after a figure: "req/s", "KiB/conn".
    pub fn unit(self) -> &'static str {
        match self {
            Figure::Throughput | Figure::Plateau => "req/s",
            Figure::IdleKib => "KiB/conn",
            Figure::CapacityAtEqualLoad => "req/s/core",
        }
    }

    /// What it is, in the matrix's legend.
    pub fn words(self) -> &'static str {
        match self {
            Figure::Throughput => "successful requests per second",
            Figure::Plateau => "the sweep's plateau (successful req/s at its top steps), or its highest step where they do not agree",
            Figure::IdleKib => "memory per idle connection",
            Figure::CapacityAtEqualLoad => {
                "requests per second per core of a dedicated server: 1 s / server CPU per request at an equal arrival rate"
            }
        }
    }
}

/// One column's figures, as a cell shows them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    /// The figure the row compares, over the rounds.
    pub main: Spread,
    /// p99 latency, ms (the median over rounds; for an idle server, of the
    /// /health probe with the idle connections open).
    pub p99_ms: Option<f64>,
    /// Server CPU per request (per answer, in a sweep), us, the median.
    pub cpu_us_per_request: Option<f64>,
    /// An idle server's threads above idle per idle connection, the median.
    pub threads_per_connection: Option<f64>,
    /// An idle server's size the figures are at: connections open.
    pub open: Option<usize>,
    /// Whether the p99 is only a lower bound: in some round it is taken
    /// from, requests without an answer were as many as its tail holds.
    pub p99_lower_bound: bool,
    /// A sweep column's shape at its top steps: on a plateau the figures
    /// are over the top steps, else at the highest step.
    pub shape: Option<Shape>,
}

fn median(s: Option<Spread>) -> Option<f64> {
    s.map(|s| s.median)
}

/// A load column's figures; `None` without a measured round.
pub fn of_load(c: &ColumnResult) -> Option<Measure> {
    Some(Measure {
        main: column_spread(c, successful_rps)?,
        p99_ms: median(column_spread(c, p99_ms)),
        cpu_us_per_request: median(column_spread(c, server_cpu_us_per_request)),
        threads_per_connection: None,
        open: None,
        p99_lower_bound: c.rounds.iter().any(p99_is_lower_bound),
        shape: None,
    })
}

/// The figure a load group's row compares: what a core of a dedicated
/// server would serve at each column's CPU per request at equal load,
/// where the group has those windows; else, as in runs saved before
/// them, the closed loop's throughput.
pub fn load_figure(g: &GroupResult) -> Figure {
    match &g.equal_load {
        Some(e) if e.measured() => Figure::CapacityAtEqualLoad,
        _ => Figure::Throughput,
    }
}

/// Column `c` of load group `g` by [`load_figure`]'s figure: its
/// equal-load windows' (none for a column without them, such as one that
/// blocks by design), or its own rounds'.
pub fn of_load_column(g: &GroupResult, c: &ColumnResult) -> Option<Measure> {
    match (load_figure(g), &g.equal_load) {
        (Figure::CapacityAtEqualLoad, Some(e)) => of_equal_load(e.column(c.id)?),
        _ => of_load(c),
    }
}

/// A column's equal-load windows: what a core of a dedicated server would
/// serve, p99 at the rate and server CPU per request there.
fn of_equal_load(c: &ColumnResult) -> Option<Measure> {
    Some(Measure {
        main: column_spread(c, requests_per_server_cpu_second)?,
        ..of_load(c)?
    })
}

/// Column `c`'s figure per round, as [`of_load_column`] takes it.
pub fn rounds_of_load_column(g: &GroupResult, c: &ColumnResult) -> Vec<(u32, f64)> {
    match (load_figure(g), &g.equal_load) {
        (Figure::CapacityAtEqualLoad, Some(e)) => e.column(c.id).map_or_else(Vec::new, |c| {
            c.rounds
                .iter()
                .filter_map(|r| Some((r.round, requests_per_server_cpu_second(r)?)))
                .collect()
        }),
        _ => rounds_of_load(c),
    }
}

/// A sweep column's figures at its top steps (the thresholds' plateau
/// steps, as its findings take them): over them on a plateau, at the
/// highest step where it is still rising or falling; `None` without a
/// measured step.
pub fn of_sweep(c: &ColumnResult, sweep: &SweepInfo, t: &Thresholds) -> Option<Measure> {
    let top = t.sweep_plateau_steps;
    let at_top = |metric: Metric| {
        top_of(c, &sweep.steps, (top, t.margin), (successful_rps, metric)).map(|x| x.figure)
    };
    let main = top_of(
        c,
        &sweep.steps,
        (top, t.margin),
        (successful_rps, successful_rps),
    )?;
    let used: Vec<usize> = sweep.steps.iter().rev().take(main.steps).copied().collect();
    Some(Measure {
        main: main.figure,
        p99_ms: median(at_top(step_p99_ms)),
        cpu_us_per_request: median(at_top(server_cpu_us_per_answer)),
        threads_per_connection: None,
        open: None,
        p99_lower_bound: used.iter().any(|&n| at_step(c, n).any(p99_is_lower_bound)),
        shape: Some(main.shape),
    })
}

/// An idle server's figures at the largest of `sizes` it opened in some
/// round; `None` when it opened none.
pub fn of_idle(s: &IdleServer, sizes: &[usize]) -> Option<Measure> {
    let open = s.largest_measured(sizes)?;
    let IdleCell::Measured(steps) = s.cell(open) else {
        return None;
    };
    let kib = Spread::of(
        steps
            .iter()
            .filter_map(|(r, st)| st.kib_per_connection(&r.idle)),
    )?;
    let threads = Spread::of(
        steps
            .iter()
            .filter_map(|(r, st)| st.threads_per_connection(&r.idle)),
    );
    let probe = Spread::of(
        steps
            .iter()
            .filter_map(|(_, st)| st.probe.map(|p| p.p99_ms)),
    );
    Some(Measure {
        main: kib,
        p99_ms: median(probe),
        cpu_us_per_request: None,
        threads_per_connection: median(threads),
        open: Some(open),
        p99_lower_bound: false,
        shape: None,
    })
}

/// A load column's figure per round, as its row compares it: (round,
/// successful requests per second).
pub fn rounds_of_load(c: &ColumnResult) -> Vec<(u32, f64)> {
    c.rounds
        .iter()
        .filter_map(|r| Some((r.round, successful_rps(r)?)))
        .collect()
}

/// A sweep column's figure per round, taken as [`of_sweep`] takes it: the
/// plateau of each round, or its highest step's figure where the top
/// steps do not agree.
pub fn rounds_of_sweep(c: &ColumnResult, sweep: &SweepInfo, t: &Thresholds) -> Vec<(u32, f64)> {
    let top = top_of(
        c,
        &sweep.steps,
        (t.sweep_plateau_steps, t.margin),
        (successful_rps, successful_rps),
    );
    match (top.map(|x| x.shape), sweep.steps.last()) {
        (Some(Shape::Plateau), _) => {
            plateau_per_round(c, &sweep.steps, t.sweep_plateau_steps, successful_rps)
        }
        (Some(_), Some(&highest)) => at_step(c, highest)
            .filter_map(|r| Some((r.round, successful_rps(r)?)))
            .collect(),
        _ => Vec::new(),
    }
}

/// An idle server's memory per idle connection per round, at the size
/// [`of_idle`] takes it at.
pub fn rounds_of_idle(s: &IdleServer, sizes: &[usize]) -> Vec<(u32, f64)> {
    let Some(open) = s.largest_measured(sizes) else {
        return Vec::new();
    };
    let IdleCell::Measured(steps) = s.cell(open) else {
        return Vec::new();
    };
    steps
        .iter()
        .filter_map(|(r, st)| Some((r.round, st.kib_per_connection(&r.idle)?)))
        .collect()
}

/// `m` relative to `best` (both of one figure): its median and range
/// divided by the best's median; `None` when that is 0 or below, where no
/// ratio means anything.
pub fn relative(m: &Spread, best: f64) -> Option<Spread> {
    (best > 0.0).then(|| Spread {
        median: m.median / best,
        min: m.min / best,
        max: m.max / best,
        n: m.n,
    })
}
