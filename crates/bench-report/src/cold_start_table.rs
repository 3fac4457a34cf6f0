//! The cold-start probe of a group as a table: a column per probed server,
//! the connections each cold start left unanswered, and the slowest first
//! answer.

use crate::numbers::fmt_ms;
use crate::table::Table;
use bench_model::{ColdStartResult, Thresholds};

/// The cold-start probe of a group: a column per probed server; how many
/// connections were starved (no answer within the threshold) on each cold
/// start, on how many starts any was, and the slowest first answer.
pub fn cold_start_table(probe: &ColdStartResult, t: &Thresholds) -> Table {
    let within = t.cold_start_answer_within_ms;
    let mut header = vec![String::new()];
    header.extend(probe.servers.iter().map(|s| s.label.clone()));
    let row = |name: String, cell: &dyn Fn(&bench_model::ColdStartServer) -> String| {
        let mut cells = vec![name];
        cells.extend(probe.servers.iter().map(|s| match &s.failure {
            Some(_) => "not probed".to_owned(),
            None => cell(s),
        }));
        cells
    };
    let rows = vec![
        row("Cold starts".into(), &|s| s.starts.len().to_string()),
        row(
            format!(
                "Unanswered over {within:.0} ms, each start (of {})",
                probe.connections
            ),
            &|s| {
                let late: Vec<String> = s
                    .late_per_start(within)
                    .iter()
                    .map(|n| n.to_string())
                    .collect();
                late.join(", ")
            },
        ),
        row("Starts with any unanswered".into(), &|s| {
            let late = s.late_per_start(within);
            format!(
                "{} of {}",
                late.iter().filter(|&&n| n > 0).count(),
                late.len()
            )
        }),
        row("Slowest first answer (ms)".into(), &|s| {
            let firsts = s.starts.iter().flatten();
            let never = firsts.clone().filter(|f| f.is_none()).count();
            if never > 0 {
                format!(
                    "never ({never} connection{})",
                    if never == 1 { "" } else { "s" }
                )
            } else {
                firsts
                    .flatten()
                    .copied()
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
                    .map_or_else(|| "n/a".to_owned(), fmt_ms)
            }
        }),
    ];
    Table { header, rows }
}
