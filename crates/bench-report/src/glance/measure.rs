//! The figures of one cell, taken from a column's saved rounds as the
//! group's own tables take them: a load column's successful requests per
//! second, or where its group has equal-load windows what a core of a
//! dedicated server would serve at its CPU per request there; a sweep
//! column's plateau, an idle server's memory per idle connection at the
//! largest size it opened; then its p99 and server CPU per request (or
//! its threads per idle connection).

use bench_analysis::stats::column_spread;
use bench_analysis::sweep::plateau;
use bench_model::figures::{p99_ms, server_cpu_us_per_answer, server_cpu_us_per_request};
use bench_model::figures::{requests_per_server_cpu_second, step_p99_ms, successful_rps};
use bench_model::{ColumnResult, GroupResult, IdleCell, IdleServer, Spread, SweepInfo};

/// What a row's cells are compared by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Successful requests per second over the measured window.
    Throughput,
    /// A sweep's plateau: successful requests per second at its top steps.
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
            Figure::Plateau => "the sweep's plateau (successful req/s at its top steps)",
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

/// A sweep column's figures at its plateau (the `top` highest steps);
/// `None` without a measured step.
pub fn of_sweep(c: &ColumnResult, sweep: &SweepInfo, top: usize) -> Option<Measure> {
    let at_top = |metric| plateau(c, &sweep.steps, top, metric);
    Some(Measure {
        main: at_top(successful_rps)?,
        p99_ms: median(at_top(step_p99_ms)),
        cpu_us_per_request: median(at_top(server_cpu_us_per_answer)),
        threads_per_connection: None,
        open: None,
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
    })
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
