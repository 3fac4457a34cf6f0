//! The idle-connection group as a table: a column per server, rows per
//! size: threads above idle (and per connection), RSS above idle per
//! connection in KiB, and /health p50 / p99 beside the open connections,
//! after the same figures with none open. Each figure is the median over
//! rounds, with its spread where rounds vary; a size a server could not
//! open or did not try says so, the reason in a note under the table.

use crate::numbers::fmt_ms;
use crate::table::Table;
use bench_model::Spread;
use bench_model::{IdleCell, IdleResult, IdleRound, IdleServer, IdleStep};

const MIB: f64 = 1024.0 * 1024.0;

/// "7.8 ±3%", or "7.8" from one round.
fn with_spread(s: &Spread, text: String) -> String {
    if s.n > 1 {
        format!("{text} ±{:.0}%", s.plus_minus() * 100.0)
    } else {
        text
    }
}

/// A per-round figure's median with its spread, "n/a" without any.
fn figure(values: impl IntoIterator<Item = Option<f64>>, show: impl Fn(f64) -> String) -> String {
    match Spread::of(values.into_iter().flatten()) {
        Some(s) => with_spread(&s, show(s.median)),
        None => "n/a".into(),
    }
}

/// "0.09 / 0.27 ±10%": the medians of p50 and p99, the spread of p99.
fn p50_p99<'a>(
    probes: impl Iterator<Item = Option<&'a bench_model::ProbeStats>> + Clone,
) -> String {
    let p50 = Spread::of(probes.clone().flatten().map(|p| p.p50_ms));
    let p99 = Spread::of(probes.flatten().map(|p| p.p99_ms));
    match (p50, p99) {
        (Some(a), Some(b)) => {
            with_spread(&b, format!("{} / {}", fmt_ms(a.median), fmt_ms(b.median)))
        }
        _ => "n/a".into(),
    }
}

/// The cell of one size's row for one server.
fn size_cell(
    server: &IdleServer,
    size: usize,
    measured: impl Fn(&[(&IdleRound, &IdleStep)]) -> String,
) -> String {
    if server.rounds.is_empty() {
        return "failed".into();
    }
    match server.cell(size) {
        IdleCell::Measured(steps) => measured(&steps),
        IdleCell::Failed(_) => {
            let opened = server.steps(size).map(|(_, s)| s.opened).max().unwrap_or(0);
            format!("failed ({opened} opened)")
        }
        IdleCell::NotTried(_) => "skipped".into(),
    }
}

/// `text`, or "failed" for a server with no round measured.
fn or_failed(s: &IdleServer, text: String) -> String {
    if s.rounds.is_empty() {
        "failed".to_owned()
    } else {
        text
    }
}

/// Builds the idle group's table.
pub fn idle_table(idle: &IdleResult) -> Table {
    let mut header = vec![String::new()];
    header.extend(idle.servers.iter().map(|s| s.label.clone()));
    let row = |name: String, cell: &dyn Fn(&IdleServer) -> String| {
        let mut cells = vec![name];
        cells.extend(idle.servers.iter().map(cell));
        cells
    };
    let mut rows = vec![
        row("Rounds".into(), &|s| s.rounds.len().to_string()),
        row("None open: threads".into(), &|s| {
            or_failed(s, {
                figure(s.rounds.iter().map(|r| Some(r.idle.threads as f64)), |v| {
                    format!("{v:.0}")
                })
            })
        }),
        row("None open: RSS (MiB)".into(), &|s| {
            or_failed(s, {
                figure(
                    s.rounds.iter().map(|r| Some(r.idle.rss_bytes as f64 / MIB)),
                    |v| format!("{v:.1}"),
                )
            })
        }),
        row("None open: /health p50 / p99 (ms)".into(), &|s| {
            or_failed(
                s,
                p50_p99(s.rounds.iter().map(|r| Some(&r.probe_none_open))),
            )
        }),
    ];
    for &size in &idle.sizes {
        rows.push(row(
            format!("{size} open: threads above idle (per conn)"),
            &|s| {
                size_cell(s, size, |steps| {
                    let above =
                        Spread::of(steps.iter().map(|(r, st)| st.threads_above(&r.idle) as f64));
                    let per = Spread::of(
                        steps
                            .iter()
                            .filter_map(|(r, st)| st.threads_per_connection(&r.idle)),
                    );
                    match (above, per) {
                        (Some(a), Some(p)) => format!("{:+.0} ({:.3})", a.median, p.median),
                        _ => "n/a".into(),
                    }
                })
            },
        ));
        rows.push(row(
            format!("{size} open: RSS above idle per conn (KiB)"),
            &|s| {
                size_cell(s, size, |steps| {
                    figure(
                        steps.iter().map(|(r, st)| st.kib_per_connection(&r.idle)),
                        |v| format!("{v:.1}"),
                    )
                })
            },
        ));
        rows.push(row(format!("{size} open: /health p50 / p99 (ms)"), &|s| {
            size_cell(s, size, |steps| {
                p50_p99(steps.iter().map(|(_, st)| st.probe.as_ref()))
            })
        }));
    }
    rows.push(row("Closed again (server's sockets back)".into(), &|s| {
        let back = s
            .rounds
            .iter()
            .filter(|r| r.closed_within_ms.is_some())
            .count();
        format!("{back} of {} rounds", s.rounds.len())
    }));
    Table { header, rows }
}

/// One line per server and size that was not measured, and per failed
/// server: "blocking /health (tiny_http), 10000: skipped: ...".
pub fn idle_notes(idle: &IdleResult) -> Vec<String> {
    let mut out = Vec::new();
    for s in &idle.servers {
        if let Some(f) = &s.failure {
            out.push(format!("{}: failed: {f}", s.label));
        }
        for &size in &idle.sizes {
            let line = match s.cell(size) {
                IdleCell::Measured(_) => continue,
                IdleCell::Failed(why) => format!("{}, {size} open: failed: {why}", s.label),
                IdleCell::NotTried(why) => format!("{}, {size} open: not tried: {why}", s.label),
            };
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

/// The RSS above idle (MiB, median over rounds) of each server at each size
/// it measured: the idle chart's lines.
pub fn rss_above_idle_mib(idle: &IdleResult) -> Vec<(String, Vec<(f64, f64)>)> {
    idle.servers
        .iter()
        .map(|s| {
            let points = idle
                .sizes
                .iter()
                .filter_map(|&size| match s.cell(size) {
                    IdleCell::Measured(steps) => Spread::of(steps.iter().map(|(r, st)| {
                        (st.server.rss_bytes as f64 - r.idle.rss_bytes as f64) / MIB
                    }))
                    .map(|m| (size as f64, m.median)),
                    _ => None,
                })
                .collect();
            (s.label.clone(), points)
        })
        .collect()
}
