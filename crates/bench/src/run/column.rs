//! A column's name and shape in the results: its label, its empty result
//! before any round, the routes whose detector figures it keeps, and its
//! progress line per round.

use crate::plan::{Column, PathValues};
use bench_model::{ColumnResult, RoundResult};

/// A column with no rounds yet.
pub(crate) fn empty_column(column: &Column, paths: PathValues) -> ColumnResult {
    let with_n = |p: &str| paths.fill(p);
    ColumnResult {
        id: column.id,
        label: column_label(column),
        server: column.target,
        method: column.method.to_owned(),
        path: with_n(column.path),
        background_path: column.background.map(with_n),
        rounds: Vec::new(),
        failure: None,
    }
}

/// "async /cpu/rayon", or for the mixed group "async /health | /cpu".
pub(super) fn column_label(c: &Column) -> String {
    let strip = |p: &str| p.split('?').next().unwrap_or(p).to_owned();
    let label = match c.background {
        Some(bg) => format!("{} /health | {}", c.target.name(), strip(bg)),
        None => format!(
            "{} {} {}",
            c.target.name(),
            if c.method == "GET" { "" } else { c.method },
            strip(c.path)
        )
        .replace("  ", " "),
    };
    match c.variant {
        Some(v) => format!("{label} ({v})"),
        None => label,
    }
}

/// The routes whose detector figures a column keeps: its own, then in the
/// mixed group the background's (the route under load, which the detector
/// should flag, not the /health probe).
pub(super) fn detector_routes(column: &Column) -> Vec<&'static str> {
    std::iter::once(column.path)
        .chain(column.background)
        .filter_map(bench_analysis::routes::route_pattern)
        .collect()
}

/// One column round's progress line.
pub(super) fn round_line(label: &str, round: u32, rounds: u32, r: &RoundResult) -> String {
    format!(
        "  [{round}/{rounds}] {label}: {:.1} req/s, p99 {:.1} ms, {} errors, threads {} -> {}, other CPU {:.0}% of a core",
        r.load.throughput_rps,
        r.load.latency_ms.p99,
        r.load.errors,
        r.server_process.idle_threads,
        r.server_process.peak_threads,
        r.cpu.other_cores() * 100.0
    )
}
