//! A sweep group's tables: one per figure, a row per step (connections), a
//! column per server; each cell the median over column rounds (±spread for
//! throughput). Latency counts every request of the window: answered ones,
//! timed-out ones at the timeout, those unfinished at the window's end at
//! their age then; a "≥" marks a lower bound (in some round the requests
//! without an answer were as many as the percentile's tail holds:
//! [`bench_model::figures::percentile_is_lower_bound`]).

use crate::numbers::fmt_ms;
use crate::table::{Table, MIB};
use bench_analysis::sweep::{self as sw, step_spread};
use bench_model::figures::{peak_threads, server_cpu_us_per_answer, step_p99_ms, successful_rps};
use bench_model::figures::{percentile_is_lower_bound, unanswered};
use bench_model::{ColumnResult, GroupResult, Metric, SweepInfo};

/// One cell of a sweep table: a column at a step.
type Cell<'a> = &'a dyn Fn(&ColumnResult, usize) -> String;

/// A sweep group's tables, each with its title.
pub fn sweep_tables(group: &GroupResult) -> Vec<(String, Table)> {
    let Some(info) = &group.sweep else {
        return Vec::new();
    };
    let table = |cell: Cell<'_>| steps_table(group, info, cell);
    let mut tables = vec![
        (
            "Successful requests per second (median ±spread over rounds)".to_owned(),
            table(&throughput_cell),
        ),
        (
            "p50 / p99 latency (ms), every request of the window counted; ≥: a lower bound, as many requests got no answer as the tail above it holds".to_owned(),
            table(&latency_cell),
        ),
        (
            "Unanswered: in flight at the window's end or timed out (share of the window's requests)".to_owned(),
            table(&unanswered_cell),
        ),
        (
            "Peak threads / peak RSS (MiB) within the window".to_owned(),
            table(&peaks_cell),
        ),
        (
            "Server CPU per answered request (us)".to_owned(),
            table(&cpu_cell),
        ),
    ];
    // Where a backlog dropped connections: Tomcat's acceptCount (100, as
    // Spring Boot's server.tomcat.accept-count) at a step whose connections
    // all open at once. Each such client tries again a second later, which
    // its latency shows and no thread of the server sees.
    if group.columns.iter().flat_map(|c| &c.rounds).any(|r| {
        r.step
            .and_then(|s| s.listen_overflows)
            .is_some_and(|n| n > 0)
    }) {
        tables.push((
            "Connections dropped by a full listen backlog in the window (TcpExtListenOverflows, the machine's; median over rounds): each client tried again 1 s later".to_owned(),
            table(&overflows_cell),
        ));
    }
    tables
}

fn overflows_cell(c: &ColumnResult, n: usize) -> String {
    median(c, n, |r| r.step?.listen_overflows.map(|v| v as f64))
        .map_or("n/a".into(), |v| format!("{v:.0}"))
}

/// A row per step, a column per server, `cell` in each where the step ran.
fn steps_table(group: &GroupResult, info: &SweepInfo, cell: Cell<'_>) -> Table {
    let mut header = vec!["connections".to_owned()];
    header.extend(group.columns.iter().map(|c| c.label.clone()));
    let rows = info
        .steps
        .iter()
        .map(|&n| {
            let mut row = vec![n.to_string()];
            row.extend(group.columns.iter().map(|c| {
                if sw::at_step(c, n).next().is_some() {
                    cell(c, n)
                } else if c.failure.is_some() {
                    "failed".into()
                } else {
                    "n/a".into()
                }
            }));
            row
        })
        .collect();
    Table { header, rows }
}

fn median(c: &ColumnResult, n: usize, m: Metric) -> Option<f64> {
    step_spread(c, n, m).map(|s| s.median)
}

fn sampled(c: &ColumnResult, n: usize) -> bool {
    sw::at_step(c, n).any(|r| r.server_process.samples > 0)
}

fn throughput_cell(c: &ColumnResult, n: usize) -> String {
    match step_spread(c, n, successful_rps) {
        Some(s) if s.n > 1 => format!("{:.1} ±{:.0}%", s.median, s.plus_minus() * 100.0),
        Some(s) => format!("{:.1}", s.median),
        None => "n/a".into(),
    }
}

fn latency_cell(c: &ColumnResult, n: usize) -> String {
    let p50 = median(c, n, |r| r.step.map(|s| s.latency_lower_bound_ms.p50));
    let p99 = median(c, n, step_p99_ms);
    let bound = |percentile: f64| {
        if sw::at_step(c, n).any(|r| percentile_is_lower_bound(r, percentile)) {
            "≥"
        } else {
            ""
        }
    };
    match (p50, p99) {
        (Some(a), Some(b)) => format!(
            "{}{} / {}{}",
            bound(50.0),
            fmt_ms(a),
            bound(99.0),
            fmt_ms(b)
        ),
        _ => "n/a".into(),
    }
}

fn unanswered_cell(c: &ColumnResult, n: usize) -> String {
    let u = median(c, n, unanswered).unwrap_or(0.0);
    let share = median(c, n, |r| {
        let total = r.load.total_requests as f64;
        Some(if total > 0.0 {
            unanswered(r)? / total
        } else {
            0.0
        })
    })
    .unwrap_or(0.0);
    format!("{u:.0} ({:.0}%)", share * 100.0)
}

fn peaks_cell(c: &ColumnResult, n: usize) -> String {
    if !sampled(c, n) {
        return "n/a".into();
    }
    let threads = median(c, n, peak_threads);
    let rss = median(c, n, |r| Some(r.server_process.peak_rss_bytes as f64 / MIB));
    match (threads, rss) {
        (Some(t), Some(m)) => format!("{t:.0} / {m:.1}"),
        _ => "n/a".into(),
    }
}

fn cpu_cell(c: &ColumnResult, n: usize) -> String {
    if !sampled(c, n) {
        return "n/a".into();
    }
    match median(c, n, server_cpu_us_per_answer) {
        // /proc counts CPU in ticks (10 ms): no tick in the window (two
        // equal readings, within float error) is "less than one tick's
        // worth", not zero.
        Some(v) if v < 0.05 => {
            let answered = median(c, n, |r| {
                Some(r.load.total_requests as f64 - unanswered(r)?)
            })
            .unwrap_or(0.0);
            if answered > 0.0 {
                format!("<{:.0}", 10_000.0 / answered)
            } else {
                "n/a".into()
            }
        }
        Some(v) => format!("{v:.1}"),
        None => "n/a".into(),
    }
}

/// The steps that ran on a fresh server because the one before was not
/// idle in time, per column: "async /posts/1/blocking at 400, 3200".
pub fn sweep_fresh_servers(group: &GroupResult) -> Vec<String> {
    group
        .columns
        .iter()
        .filter_map(|c| {
            let mut steps: Vec<usize> = c
                .rounds
                .iter()
                .filter_map(|r| r.step.filter(|s| s.fresh_server).map(|s| s.connections))
                .collect();
            steps.sort_unstable();
            steps.dedup();
            (!steps.is_empty()).then(|| {
                let list: Vec<String> = steps.iter().map(|n| n.to_string()).collect();
                format!("{} at {}", c.label, list.join(", "))
            })
        })
        .collect()
}
