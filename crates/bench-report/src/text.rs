//! The terminal report: aligned tables, then the findings, then the
//! matrix of the run at a glance to close it.

use std::fmt::Write as _;

use crate::group_parts::{parts, Part};
use crate::table::Table;
use bench_model::RunResults;
use bench_model::{Finding, Thresholds};

/// Pads every column to its widest cell; the first column left-aligned, the rest right-aligned.
pub fn render_table(t: &Table) -> String {
    let ncols = t.header.len();
    let mut widths = vec![0usize; ncols];
    for row in std::iter::once(&t.header).chain(&t.rows) {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |row: &Vec<String>| -> String {
        let mut s = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
        }
        s.trim_end().to_owned()
    };
    let mut out = line(&t.header);
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (ncols - 1)));
    out.push('\n');
    for row in &t.rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// A verdict word for a finding.
pub fn verdict(f: &Finding) -> &'static str {
    f.verdict.word()
}

/// The thresholds in one sentence.
pub fn thresholds_line(t: &Thresholds) -> String {
    format!(
        "Thresholds: a claim HELD when every round clears its line by more than {:.0}%, NOT HELD when every round misses it by more than {:.0}%, SAME when two figures compared are within {:.0}% of each other in every round (none clearing or missing the line), INCONCLUSIVE otherwise; \"beats\" means a ratio above 1; an offload is \"close\" within {:.0}% of blocking's throughput; \"far fewer threads\" is at most {:.0}% of blocking's; a mixed-load stall is a /health p99 at least {}x higher; a window is quiet when other programs use at most {:.0}% of one core; a cold-start probe's connection is starved without an answer within {:.0} ms, and {} clean cold starts refute a starving server; the stall detector flags a route in a window when at least {}% of its polls were slow or it made at least {} blocking calls on an event-loop worker per poll; \"a thread per idle connection\" is at least {} threads above idle per connection, \"no threads\" at most {:.0} above idle; a sweep's plateau is the median throughput at its {} highest steps, and \"at the cap\" means within {:.0}% of Little's law's prediction; virtual threads \"pass the cap\" at {}x it, the yielding driver \"reaches the pool\" at {}x pool size / round trip, the pinning driver \"caps at the carriers\" within {:.0}% of carriers / query time and at most {}x the yielding driver's throughput, and the virtual-thread detector flags a route at {} blocking calls on a carrier or {}% carrier stalls per request; a driver's round trips per request are its design's within {:.0}%, a pooled driver whose pool is the queue serves within {:.0}% of pool / (round trips per request x delivered round trip), the pipelined driver \"passes the pool's bound\" at {}x blocking, and in the pool sweep two pipelined clients come within {:.0}% of their best while each pooled driver at pool 2 serves below {}x its best; a calibration \"matches\" a Java server within {:.0}% of its throughput, with errors above its by at most that share of the requests; Tomcat on virtual threads on Java 21 \"caps at the carriers\" within {:.0}% of carriers / delivered round trip, pinning at least {} times per request, and on Java 25 under {} times per request.",
        t.margin * 100.0,
        t.margin * 100.0,
        t.margin * 100.0,
        t.offload_within * 100.0,
        t.thread_fraction * 100.0,
        t.mixed_p99_factor,
        t.quiet_other_cores * 100.0,
        t.cold_start_answer_within_ms,
        t.cold_start_refute_starts,
        t.detector_slow_poll_share * 100.0,
        t.detector_blocking_calls_per_poll,
        t.idle_threads_per_connection,
        t.idle_threads_allowance,
        t.sweep_plateau_steps,
        t.sweep_cap_within * 100.0,
        t.virtual_plateau_factor,
        t.pool_bound_fraction,
        t.carrier_cap_within * 100.0,
        t.pinning_share_of_yielding,
        t.detector_blocking_calls_per_request,
        t.detector_carrier_stalls_per_request * 100.0,
        t.round_trips_within * 100.0,
        t.pool_queue_within * 100.0,
        t.pipelined_over_blocking,
        t.pool_sweep_pipelined_within * 100.0,
        t.pool_sweep_small_pool_share,
        t.calibration_within * 100.0,
        t.loom_carrier_cap_within * 100.0,
        t.loom_pins_per_request,
        t.loom_unpinned_pins_per_request
    )
}

/// The findings: the thresholds, the headline (the predictions counted),
/// each prediction, then the design checks apart.
pub fn render_findings(findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", thresholds_line(t));
    let _ = writeln!(out, "{}", crate::headline::headline(findings));
    for (title, these) in crate::headline::sections(findings) {
        let _ = writeln!(out, "\n{title}");
        for f in these {
            let _ = writeln!(out, "[{:>12}] {} ({})", verdict(f), f.claim, f.seed);
            let _ = writeln!(out, "               {}", f.evidence);
        }
    }
    out
}

/// The whole terminal report.
pub fn render(results: &RunResults, findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Machine: {}", crate::lines::machine_line(results));
    let _ = writeln!(out, "Settings: {}", crate::lines::settings_line(results));
    let _ = writeln!(
        out,
        "Each cell: the median over the rounds, ±spread where rounds vary, (ratio to the group's first column)."
    );
    for g in &results.groups {
        let _ = writeln!(out, "\n{}\n{}", g.title, crate::lines::group_load_line(g));
        for part in parts(g, t) {
            match part {
                Part::SweepLine(line) => {
                    let _ = writeln!(out, "{line}");
                }
                Part::SweepTable(title, table) => {
                    let _ = writeln!(out, "\n{title}");
                    out.push_str(&render_table(&table));
                }
                Part::Table(table) => out.push_str(&render_table(&table)),
                Part::Idle(table, notes) => {
                    out.push_str(&render_table(&table));
                    for note in notes {
                        let _ = writeln!(out, "{note}");
                    }
                }
                Part::ColdStart(line, table) | Part::EqualLoad(line, table) => {
                    let _ = writeln!(out, "\n{line}");
                    out.push_str(&render_table(&table));
                }
            }
        }
    }
    for sk in &results.skipped {
        let _ = writeln!(out, "\nSkipped {}: {}", sk.group, sk.reason);
    }
    for line in crate::lines::failure_lines(results) {
        let _ = writeln!(out, "\nFAILED: {line}");
    }
    let _ = writeln!(out, "\n{}", crate::lines::quiet_line(results, t));
    let _ = writeln!(out, "\nFindings");
    out.push_str(&render_findings(findings, t));
    // The closing summary: the matrix, last, where the terminal stops.
    out.push('\n');
    out.push_str(&crate::glance::text::render(&crate::glance::build(
        results, findings, t,
    )));
    out
}
