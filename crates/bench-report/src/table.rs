//! One group as a table in seed 000's layout: a row per metric, a column per
//! variant. Each cell is the median over the column's rounds; rows that vary
//! from run to run also show the spread (`12807 ±4%`: the farther end of the
//! rounds' range, as a share of the median); then, in brackets, the ratio of
//! the median to the group's first column. Process rows read `idle -> peak`.
//! A latency percentile that some round has only as a lower bound (too
//! many requests without an answer) reads "≥" before it.

use crate::numbers::fmt_ms;
use bench_analysis::stats::column_spread;
use bench_model::figures::percentile_is_lower_bound;
use bench_model::figures::{connect_p50_ms, connect_p99_ms};
use bench_model::figures::{delivered_round_trip_ms, p99_ms, peak_threads, successful_rps};
use bench_model::figures::{postgres_round_trips_per_request, server_cpu_us_per_request};
use bench_model::{ColumnResult, CpuUse, GroupResult, Metric, Spread};

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
    Micros,
    /// A count per request, e.g. round trips: two decimals.
    PerRequest,
}

enum Cells {
    /// The median (with its spread when `spread`), and the ratio to the first column when `ratio`.
    Value {
        metric: Metric,
        unit: Unit,
        spread: bool,
        ratio: bool,
    },
    /// A latency percentile's median, "≥" before it where some round's is
    /// only a lower bound ([`bench_model::figures::percentile_is_lower_bound`]).
    Percentile { metric: Metric, percentile: f64 },
    /// "idle -> peak", medians of both.
    IdlePeak {
        idle: Metric,
        peak: Metric,
        unit: Unit,
    },
    /// The stall detector's figures ([`detector_cell`]): "-" where the
    /// column's server does not give them.
    Detector(fn(&ColumnResult) -> Option<String>),
}

struct Row {
    name: &'static str,
    cells: Cells,
    /// Read from /proc: "n/a" for a server bench did not start.
    process: bool,
}

/// The route a column loads: its own, or in the mixed group its background's.
fn loaded_route(c: &ColumnResult) -> Option<&'static str> {
    contract::routes::label_of(c.background_path.as_deref().unwrap_or(&c.path))
}

/// The detector's figures of `route` over a column's rounds.
fn route_windows<'a>(
    c: &'a ColumnResult,
    route: Option<&'a str>,
) -> impl Iterator<Item = &'a bench_model::RouteWindow> + 'a {
    c.rounds
        .iter()
        .filter_map(move |r| r.detector.as_ref()?.route(route?))
}

/// "41 (3.4%)": the medians of the slow polls and of their share of polls.
fn slow_polls_cell(c: &ColumnResult, route: Option<&str>) -> Option<String> {
    count_and_rate_cell(
        c,
        route,
        |w| w.slow_polls,
        |w| w.slow_poll_share(),
        bench_analysis::stats::percent,
    )
}

/// "61113 (1.00 per poll)": the medians of the blocking calls made on an
/// event-loop worker and of their rate per poll.
fn blocking_calls_cell(c: &ColumnResult, route: Option<&str>) -> Option<String> {
    count_and_rate_cell(
        c,
        route,
        |w| w.blocking_calls,
        |w| w.blocking_calls_per_poll(),
        |rate| format!("{} per poll", bench_analysis::stats::per_poll(rate)),
    )
}

/// "count (rate)": the medians over rounds of a detector counter of `route`
/// and of its rate, over the windows that counted polls.
fn count_and_rate_cell(
    c: &ColumnResult,
    route: Option<&str>,
    count: fn(&bench_model::RouteWindow) -> Option<u64>,
    rate: fn(&bench_model::RouteWindow) -> Option<f64>,
    show_rate: impl Fn(f64) -> String,
) -> Option<String> {
    let windows: Vec<_> = route_windows(c, route)
        .filter(|w| w.polls.is_some())
        .collect();
    let n = Spread::of(windows.iter().filter_map(|w| count(w).map(|n| n as f64)))?;
    let r = Spread::of(windows.iter().filter_map(|w| rate(w)))
        .map_or_else(|| "no polls".to_owned(), |s| show_rate(s.median));
    Some(format!("{:.0} ({r})", n.median))
}

/// The median of a detector figure in ms, "-" when no round has it.
fn ms_cell(values: impl Iterator<Item = f64>) -> Option<String> {
    Spread::of(values).map(|s| fmt_ms(s.median))
}

/// The detector rows: the loaded route's figures, then the mixed group's
/// /health probe's (only in a group with a background load).
const DETECTOR_ROWS: &[Row] = &[
    detector("Slow polls (share of polls)", |c| {
        slow_polls_cell(c, loaded_route(c))
    }),
    detector("Blocking calls on the event loop", |c| {
        blocking_calls_cell(c, loaded_route(c))
    }),
    detector("Event-loop lag p99 (ms)", |c| {
        ms_cell(
            c.rounds
                .iter()
                .filter_map(|r| r.detector.as_ref()?.event_loop_lag_p99_ms),
        )
    }),
    detector("Queue wait p99 (ms)", |c| {
        ms_cell(route_windows(c, loaded_route(c)).filter_map(|w| w.queue_wait_p99_ms))
    }),
];

const PROBE_DETECTOR_ROWS: &[Row] = &[
    detector("Slow polls, /health probe", |c| {
        slow_polls_cell(c, Some("/health"))
    }),
    detector("Queue wait p99, /health probe (ms)", |c| {
        ms_cell(route_windows(c, Some("/health")).filter_map(|w| w.queue_wait_p99_ms))
    }),
];

/// A Java column's JVM ([`crate::jvm_cells`]): rows only in a group
/// that has one, `-` for our servers.
const JVM_ROWS: &[Row] = &[
    detector("JVM (as it says)", crate::jvm_cells::runtime),
    detector("JVM warm-up before the window", crate::jvm_cells::warm_up),
    detector("JIT compiling in the window (s)", crate::jvm_cells::compile),
    detector(COMPILER_CPU_ROW, crate::jvm_cells::compiler_cpu),
    detector("GC in the window (collections, time)", crate::jvm_cells::gc),
    detector(
        "Pinned virtual threads per request (in all)",
        crate::jvm_cells::pins,
    ),
];

/// The JVM rows of `group`: none without a Java column, the compiler
/// threads' CPU only where some column's JVM told it.
fn jvm_rows(group: &GroupResult) -> Vec<&'static Row> {
    if !crate::jvm_cells::any(group) {
        return Vec::new();
    }
    let told = group
        .columns
        .iter()
        .any(|c| crate::jvm_cells::compiler_cpu(c).is_some());
    JVM_ROWS
        .iter()
        .filter(|row| told || row.name != COMPILER_CPU_ROW)
        .collect()
}

/// Shown where some column's JVM told it (runs saved before it was read
/// render as they did).
const COMPILER_CPU_ROW: &str = "JIT compiler threads' CPU in the window (s)";

const fn detector(name: &'static str, cell: fn(&ColumnResult) -> Option<String>) -> Row {
    Row {
        name,
        cells: Cells::Detector(cell),
        process: false,
    }
}

const fn value(name: &'static str, metric: Metric, unit: Unit, spread: bool) -> Row {
    Row {
        name,
        cells: Cells::Value {
            metric,
            unit,
            spread,
            ratio: true,
        },
        process: false,
    }
}

/// A latency percentile's row.
const fn percentile(name: &'static str, metric: Metric, percentile: f64) -> Row {
    Row {
        name,
        cells: Cells::Percentile { metric, percentile },
        process: false,
    }
}

/// A row of where the machine's CPU went, in seconds over the window.
const fn cpu(name: &'static str, seconds: Metric) -> Row {
    value(name, seconds, Unit::Seconds, false)
}

/// [`value`], of the server process (read from /proc).
const fn process(name: &'static str, metric: Metric, unit: Unit, spread: bool) -> Row {
    Row {
        process: true,
        ..value(name, metric, unit, spread)
    }
}

pub(super) const MIB: f64 = 1024.0 * 1024.0;

const ROWS: &[Row] = &[
    value(
        "Total Requests",
        |r| Some(r.load.total_requests as f64),
        Unit::Count,
        false,
    ),
    value(
        "Average (ms)",
        |r| Some(r.load.latency_ms.avg),
        Unit::Ms,
        false,
    ),
    value("Min (ms)", |r| Some(r.load.latency_ms.min), Unit::Ms, false),
    value("Max (ms)", |r| Some(r.load.latency_ms.max), Unit::Ms, false),
    value(
        "Std. Dev. (ms)",
        |r| Some(r.load.latency_ms.stdev),
        Unit::Ms,
        false,
    ),
    Row {
        name: "Error Rate",
        cells: Cells::Value {
            metric: |r| Some(r.load.error_rate()),
            unit: Unit::Percent,
            spread: false,
            ratio: false,
        },
        process: false,
    },
    // Seed 000's "Throughput": every request that ended, failed ones too;
    // the figure every other printer compares is the successful one below.
    value(
        "Throughput (req/s)",
        |r| Some(r.load.throughput_rps),
        Unit::Rps,
        true,
    ),
    value("Successful (req/s)", successful_rps, Unit::Rps, true),
    Row {
        name: ROUND_TRIPS_ROW,
        cells: Cells::Value {
            metric: postgres_round_trips_per_request,
            unit: Unit::PerRequest,
            spread: true,
            ratio: false,
        },
        process: false,
    },
    Row {
        name: DELIVERED_ROW,
        cells: Cells::Value {
            metric: delivered_round_trip_ms,
            unit: Unit::Ms,
            spread: true,
            ratio: false,
        },
        process: false,
    },
    Row {
        name: "Threads idle -> peak",
        cells: Cells::IdlePeak {
            idle: |r| Some(r.server_process.idle_threads as f64),
            peak: peak_threads,
            unit: Unit::Count,
        },
        process: true,
    },
    percentile("p50 (ms)", |r| Some(r.load.latency_ms.p50), 50.0),
    percentile("p95 (ms)", |r| Some(r.load.latency_ms.p95), 95.0),
    percentile("p99 (ms)", p99_ms, 99.0),
    value(CONNECT_P50_ROW, connect_p50_ms, Unit::Ms, true),
    value(CONNECT_P99_ROW, connect_p99_ms, Unit::Ms, true),
    Row {
        name: "RSS idle -> peak (MiB)",
        cells: Cells::IdlePeak {
            idle: |r| Some(r.server_process.idle_rss_bytes as f64 / MIB),
            peak: |r| Some(r.server_process.peak_rss_bytes as f64 / MIB),
            unit: Unit::MiB,
        },
        process: true,
    },
    process(
        "Server CPU (s)",
        |r| Some(r.server_process.cpu_seconds),
        Unit::Seconds,
        false,
    ),
    process(
        "Server CPU per request (us)",
        server_cpu_us_per_request,
        Unit::Micros,
        true,
    ),
    cpu("CPU: load generator (s)", |r| {
        Some(r.cpu.load_generator_seconds)
    }),
    cpu("CPU: Postgres (s)", |r| Some(r.cpu.postgres_seconds)),
    cpu("CPU: Redis (s)", |r| Some(r.cpu.redis_seconds)),
    cpu(PROXY_ROW, |r| Some(r.cpu.proxy_seconds)),
    cpu(SOFTIRQ_ROW, |r| {
        r.cpu.softirq_is_a_part().then_some(r.cpu.softirq_seconds)
    }),
    cpu(STOLEN_ROW, |r| Some(r.cpu.stolen_seconds)),
    cpu("CPU: everything else (s)", |r| Some(r.cpu.other_seconds)),
    cpu(SOFTIRQ_INSIDE_ROW, |r| {
        (!r.cpu.softirq_is_a_part()).then_some(r.cpu.softirq_seconds)
    }),
    cpu(KERNEL_THREADS_ROW, |r| {
        r.cpu
            .ticks
            .map(|t| t.kernel_threads as f64 / t.per_second as f64)
    }),
];

fn fmt(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Count => format!("{v:.0}"),
        Unit::Ms => fmt_ms(v),
        Unit::Percent => format!("{:.2}%", v * 100.0),
        Unit::Rps => format!("{v:.1}"),
        Unit::MiB => format!("{v:.1}"),
        Unit::Seconds => format!("{v:.2}"),
        Unit::Micros => format!("{v:.1}"),
        Unit::PerRequest => format!("{v:.2}"),
    }
}

fn median(c: &ColumnResult, m: Metric) -> Option<Spread> {
    column_spread(c, m)
}

fn cell(row: &Row, c: &ColumnResult, base: Option<f64>, first: bool) -> String {
    let sampled = c.rounds.iter().any(|r| r.server_process.samples > 0);
    if c.rounds.is_empty() {
        return "failed".into();
    }
    // An import, or a server bench could not read: the figure was never
    // taken, which is not the same as zero.
    let cpu_unknown = c.rounds.iter().all(|r| !r.machine_cpu_measured);
    if (row.process && !sampled && cpu_unknown) || (cpu_unknown && row.name.starts_with("CPU:")) {
        return "not measured".into();
    }
    if row.process && !sampled {
        return "n/a".into();
    }
    if c.rounds
        .iter()
        .all(|r| r.not_measured.iter().any(|m| m == row.name))
    {
        return "not measured".into();
    }
    match row.cells {
        Cells::Value {
            metric,
            unit,
            spread,
            ratio,
        } => {
            let Some(s) = median(c, metric) else {
                return "n/a".into();
            };
            let mut out = fmt(unit, s.median);
            if spread && s.n > 1 {
                out.push_str(&format!(" ±{:.0}%", s.plus_minus() * 100.0));
            }
            if let (true, false, Some(b)) = (ratio, first, base) {
                if b > 0.0 {
                    out.push_str(&format!(" ({:.2}x)", s.median / b));
                }
            }
            out
        }
        Cells::Percentile { metric, percentile } => {
            let bound = c
                .rounds
                .iter()
                .any(|r| percentile_is_lower_bound(r, percentile));
            let value = cell(&value("", metric, Unit::Ms, true), c, base, first);
            if bound {
                format!("≥{value}")
            } else {
                value
            }
        }
        Cells::IdlePeak { idle, peak, unit } => match (median(c, idle), median(c, peak)) {
            (Some(i), Some(p)) => format!("{} -> {}", fmt(unit, i.median), fmt(unit, p.median)),
            _ => "n/a".into(),
        },
        Cells::Detector(figure) => figure(c).unwrap_or_else(|| "-".into()),
    }
}

/// The rows of a group's table a reader compares first.
pub const COMPACT_ROWS: &[&str] = &[
    "Throughput (req/s)",
    ROUND_TRIPS_ROW,
    DELIVERED_ROW,
    "p50 (ms)",
    "p99 (ms)",
    "Error Rate",
    "Threads idle -> peak",
    "RSS idle -> peak (MiB)",
    "Server CPU per request (us)",
];

/// The table of `group` with only the [`COMPACT_ROWS`].
pub fn compact_table(group: &GroupResult) -> Table {
    let full = group_table(group);
    Table {
        header: full.header,
        rows: full
            .rows
            .into_iter()
            .filter(|r| {
                r.first()
                    .is_some_and(|name| COMPACT_ROWS.contains(&name.as_str()))
            })
            .collect(),
    }
}

/// Rows shown only in a group where some round has a figure above zero:
/// the proxies' CPU (a group with proxies), the kernel's softirqs (a part
/// of their own where the kernel keeps them out of process times and in
/// runs saved before the windows' ticks; otherwise "of which", inside the
/// parts above), kernel threads (inside everything else) and the
/// hypervisor's steal (runs saved before they were split out of
/// "everything else" have none).
const PROXY_ROW: &str = "CPU: proxies in front of Postgres and Redis (s)";
const SOFTIRQ_ROW: &str = "CPU: kernel softirqs (s)";
const STOLEN_ROW: &str = "CPU: stolen by the hypervisor (s)";
const SOFTIRQ_INSIDE_ROW: &str = "CPU: of the parts above, in softirqs (s)";
const KERNEL_THREADS_ROW: &str = "CPU: of everything else, kernel threads (s)";

/// Rows shown only in a group whose servers reached Postgres through a
/// proxy bench read around its windows (the remote groups): the round
/// trips per successful request it counted, and the round trip it
/// delivered.
const ROUND_TRIPS_ROW: &str = "Postgres round trips per request";
const DELIVERED_ROW: &str = "Postgres round trip delivered (ms)";
/// A burst's connects: before its release, or inside each latency.
const CONNECT_P50_ROW: &str = "Connect p50 (ms)";
const CONNECT_P99_ROW: &str = "Connect p99 (ms)";

/// Whether some round of `group` has `figure` above zero.
fn group_any(group: &GroupResult, figure: impl Fn(&CpuUse) -> f64) -> bool {
    group
        .columns
        .iter()
        .flat_map(|c| &c.rounds)
        .any(|r| figure(&r.cpu) > 0.0)
}

/// Builds the table of `group`.
pub fn group_table(group: &GroupResult) -> Table {
    let any = |figure: fn(&CpuUse) -> f64| group_any(group, figure);
    let softirq_as = |part: bool| {
        move |c: &CpuUse| {
            if c.softirq_is_a_part() == part {
                c.softirq_seconds
            } else {
                0.0
            }
        }
    };
    let proxied = group
        .columns
        .iter()
        .flat_map(|c| &c.rounds)
        .any(|r| r.postgres_proxy.is_some());
    let connects = group
        .columns
        .iter()
        .flat_map(|c| &c.rounds)
        .any(|r| r.load.connect_ms.is_some());
    let hidden: Vec<&str> = [
        (PROXY_ROW, any(|c| c.proxy_seconds)),
        (SOFTIRQ_ROW, group_any(group, softirq_as(true))),
        (SOFTIRQ_INSIDE_ROW, group_any(group, softirq_as(false))),
        (STOLEN_ROW, any(|c| c.stolen_seconds)),
        (
            KERNEL_THREADS_ROW,
            any(|c| c.ticks.map_or(0.0, |t| t.kernel_threads as f64)),
        ),
        (ROUND_TRIPS_ROW, proxied),
        (DELIVERED_ROW, proxied),
        (CONNECT_P50_ROW, connects),
        (CONNECT_P99_ROW, connects),
    ]
    .into_iter()
    .filter(|(_, shown)| !shown)
    .map(|(row, _)| row)
    .collect();
    let mut header = vec![String::new()];
    header.extend(group.columns.iter().map(|c| c.label.clone()));
    let rounds = {
        let mut cells = vec!["Rounds".to_owned()];
        cells.extend(group.columns.iter().map(|c| c.rounds.len().to_string()));
        cells
    };
    let mixed = group.columns.iter().any(|c| c.background_path.is_some());
    let probe_rows = if mixed { PROBE_DETECTOR_ROWS } else { &[] };
    let jvm_rows = jvm_rows(group);
    let rows = std::iter::once(rounds)
        .chain(
            ROWS.iter()
                .filter(|row| !hidden.contains(&row.name))
                .chain(DETECTOR_ROWS)
                .chain(probe_rows)
                .chain(jvm_rows)
                .map(|row| {
                    let base = group.columns.first().and_then(|c| match row.cells {
                        Cells::Value { metric, .. } | Cells::Percentile { metric, .. } => {
                            median(c, metric).map(|s| s.median)
                        }
                        Cells::IdlePeak { .. } | Cells::Detector(_) => None,
                    });
                    let mut cells = vec![row.name.to_owned()];
                    for (i, c) in group.columns.iter().enumerate() {
                        cells.push(cell(row, c, base, i == 0));
                    }
                    cells
                }),
        )
        .collect();
    Table { header, rows }
}
