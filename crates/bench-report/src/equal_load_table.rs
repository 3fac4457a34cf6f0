//! A group's equal-load windows ([`bench_model::EqualLoad`]) as a line
//! and a table: a column per ranked column of the group, each at the same
//! arrival rate; its achieved rate, server CPU per request (the figure the
//! row is ranked by) and what a core of a dedicated server would serve at
//! it, latency from each request's intended start, errors, and the CPU the
//! load generator, Postgres and Redis spent per request beside it; last,
//! the closed loop's throughput, which the load generator shared.

use bench_analysis::stats::column_spread;
use bench_model::figures::{
    load_generator_cpu_us_per_request, p50_ms, p99_9_ms, p99_ms, postgres_cpu_us_per_request,
    redis_cpu_us_per_request, requests_per_server_cpu_second, server_cpu_us_per_request,
    successful_rps,
};
use bench_model::{ColumnResult, EqualLoad, GroupResult, Metric};

use crate::numbers::{fmt_ms, number};
use crate::table::Table;

/// What the windows are, in one line.
pub fn equal_load_line(e: &EqualLoad) -> String {
    let warm_up = if e.warm_up_seconds > 0.0 {
        format!(" after {} s at the same rate", e.warm_up_seconds)
    } else {
        " with no warm-up".to_owned()
    };
    format!(
        "At an equal load, where the cores decide: each column that does not block by design again, at {}, open model, latency from each request's intended start; {} s windows{warm_up}, a fresh server per column round. Ranked by server CPU per request (on a dedicated server, capacity is cores / CPU per request); the closed loop's throughput above is shared with the load generator.",
        e.rate_words(),
        e.window_seconds
    )
}

/// A figure's median over a column's windows, with its spread where the
/// rounds vary: "7.12 ±4%"; "n/a" without one.
fn spread_cell(c: &ColumnResult, metric: Metric, show: fn(f64) -> String) -> String {
    match column_spread(c, metric) {
        None => "n/a".to_owned(),
        Some(s) if s.n > 1 => format!("{} ±{:.0}%", show(s.median), s.plus_minus() * 100.0),
        Some(s) => show(s.median),
    }
}

/// The achieved rate: "29770 (99.8%)" of the target.
fn achieved(c: &ColumnResult, rate: f64) -> String {
    column_spread(c, successful_rps).map_or("n/a".to_owned(), |s| {
        format!("{:.0} ({:.1}%)", s.median, s.median / rate * 100.0)
    })
}

/// The median of each round's errors.
fn errors(c: &ColumnResult) -> String {
    column_spread(c, |r| Some(r.load.errors as f64)).map_or("n/a".to_owned(), |s| number(s.median))
}

/// Server CPU per request relative to the cheapest column's: "1.00" at
/// the cheapest, "0.80" for one that spends 1.25 times as much.
fn relative(c: &ColumnResult, cheapest: Option<f64>) -> String {
    let mine = column_spread(c, server_cpu_us_per_request).map(|s| s.median);
    match (cheapest, mine) {
        (Some(best), Some(mine)) if mine > 0.0 => format!("{:.2}", best / mine),
        _ => "n/a".to_owned(),
    }
}

/// Whether some window of `e` has `metric` above zero.
fn any(e: &EqualLoad, metric: Metric) -> bool {
    e.columns
        .iter()
        .flat_map(|c| &c.rounds)
        .any(|r| metric(r).is_some_and(|v| v > 0.0))
}

fn us(v: f64) -> String {
    format!("{v:.2}")
}

fn rps(v: f64) -> String {
    format!("{v:.0}")
}

/// A row of the table: its name, and how it writes a column's cell.
type Row<'a> = (&'static str, Box<dyn Fn(&ColumnResult) -> String + 'a>);

/// The table of `g`'s equal-load windows `e`.
pub fn equal_load_table(g: &GroupResult, e: &EqualLoad) -> Table {
    let cheapest = e
        .columns
        .iter()
        .filter_map(|c| column_spread(c, server_cpu_us_per_request))
        .map(|s| s.median)
        .filter(|v| *v > 0.0)
        .min_by(f64::total_cmp);
    let closed = |c: &ColumnResult| {
        g.columns
            .iter()
            .find(|o| o.id == c.id)
            .map_or("n/a".to_owned(), |o| spread_cell(o, successful_rps, rps))
    };
    let mut rows: Vec<Row<'_>> = vec![
        ("Rounds", Box::new(|c| c.rounds.len().to_string())),
        ("Target rate (req/s)", Box::new(|_| rps(e.rate_rps))),
        ("Achieved (req/s)", Box::new(|c| achieved(c, e.rate_rps))),
        (
            "Server CPU per request (us)",
            Box::new(|c| spread_cell(c, server_cpu_us_per_request, us)),
        ),
        (
            "Relative, cheapest = 1.00",
            Box::new(move |c| relative(c, cheapest)),
        ),
        (
            "Req/s per core of a dedicated server",
            Box::new(|c| spread_cell(c, requests_per_server_cpu_second, rps)),
        ),
        ("p50 (ms)", Box::new(|c| spread_cell(c, p50_ms, fmt_ms))),
        ("p99 (ms)", Box::new(|c| spread_cell(c, p99_ms, fmt_ms))),
        ("p99.9 (ms)", Box::new(|c| spread_cell(c, p99_9_ms, fmt_ms))),
        ("Errors", Box::new(errors)),
        (
            "Load generator CPU per request (us)",
            Box::new(|c| spread_cell(c, load_generator_cpu_us_per_request, us)),
        ),
    ];
    for (name, metric) in [
        (
            "Postgres CPU per request (us)",
            postgres_cpu_us_per_request as Metric,
        ),
        ("Redis CPU per request (us)", redis_cpu_us_per_request),
    ] {
        if any(e, metric) {
            rows.push((name, Box::new(move |c| spread_cell(c, metric, us))));
        }
    }
    rows.push((
        "Closed loop, shared with the load generator (req/s)",
        Box::new(closed),
    ));
    let mut header = vec![String::new()];
    header.extend(e.columns.iter().map(|c| c.label.clone()));
    let rows = rows
        .iter()
        .map(|(name, cell)| {
            let mut cells = vec![(*name).to_owned()];
            cells.extend(e.columns.iter().map(|c| {
                if c.rounds.is_empty() && *name != "Rounds" {
                    "failed".to_owned()
                } else {
                    cell(c)
                }
            }));
            cells
        })
        .collect();
    Table { header, rows }
}
