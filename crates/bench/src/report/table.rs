//! One group as a table in seed 000's layout: a row per metric, a column per
//! variant, each cell followed by its ratio to the group's first column.

use crate::model::{ColumnResult, GroupResult};

/// Rows and cells, ready for a text or Markdown printer.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// How a metric is written.
#[derive(Clone, Copy)]
enum Unit {
    Count,
    Ms,
    Percent,
    Rps,
    MiB,
    Seconds,
}

struct Row {
    name: &'static str,
    value: fn(&ColumnResult) -> f64,
    unit: Unit,
    /// Whether "x first column" means anything for this row.
    ratio: bool,
}

const ROWS: &[Row] = &[
    Row {
        name: "Total Requests",
        value: |c| c.load.total_requests as f64,
        unit: Unit::Count,
        ratio: true,
    },
    Row {
        name: "Average (ms)",
        value: |c| c.load.latency_ms.avg,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "Min (ms)",
        value: |c| c.load.latency_ms.min,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "Max (ms)",
        value: |c| c.load.latency_ms.max,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "Std. Dev. (ms)",
        value: |c| c.load.latency_ms.stdev,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "Error Rate",
        value: |c| c.load.error_rate(),
        unit: Unit::Percent,
        ratio: false,
    },
    Row {
        name: "Throughput (req/s)",
        value: |c| c.load.throughput_rps,
        unit: Unit::Rps,
        ratio: true,
    },
    Row {
        name: "Peak Thread Count",
        value: |c| c.server_process.peak_threads as f64,
        unit: Unit::Count,
        ratio: true,
    },
    Row {
        name: "p50 (ms)",
        value: |c| c.load.latency_ms.p50,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "p95 (ms)",
        value: |c| c.load.latency_ms.p95,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "p99 (ms)",
        value: |c| c.load.latency_ms.p99,
        unit: Unit::Ms,
        ratio: true,
    },
    Row {
        name: "Peak RSS (MiB)",
        value: |c| c.server_process.peak_rss_bytes as f64 / (1024.0 * 1024.0),
        unit: Unit::MiB,
        ratio: true,
    },
    Row {
        name: "Server CPU (s)",
        value: |c| c.server_process.cpu_seconds,
        unit: Unit::Seconds,
        ratio: true,
    },
];

/// Milliseconds with as many decimals as make sense for their size.
pub fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

fn fmt(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Count => format!("{v:.0}"),
        Unit::Ms => fmt_ms(v),
        Unit::Percent => format!("{:.2}%", v * 100.0),
        Unit::Rps => format!("{v:.1}"),
        Unit::MiB => format!("{v:.1}"),
        Unit::Seconds => format!("{v:.2}"),
    }
}

/// Builds the table of `group`. A column whose server was not sampled (a
/// server given by URL) shows "n/a" in the process rows.
pub fn group_table(group: &GroupResult) -> Table {
    let mut header = vec![String::new()];
    header.extend(group.columns.iter().map(|c| c.label.clone()));
    let rows = ROWS
        .iter()
        .map(|row| {
            let base = group.columns.first().map(row.value).unwrap_or(0.0);
            let mut cells = vec![row.name.to_owned()];
            for (i, c) in group.columns.iter().enumerate() {
                let process_row = matches!(
                    row.name,
                    "Peak Thread Count" | "Peak RSS (MiB)" | "Server CPU (s)"
                );
                if process_row && c.server_process.samples == 0 {
                    cells.push("n/a".into());
                    continue;
                }
                let v = (row.value)(c);
                let mut cell = fmt(row.unit, v);
                if row.ratio && i > 0 && base > 0.0 {
                    cell.push_str(&format!(" ({:.2}x)", v / base));
                }
                cells.push(cell);
            }
            cells
        })
        .collect();
    Table { header, rows }
}
