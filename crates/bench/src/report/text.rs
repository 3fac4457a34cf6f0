//! The terminal report: aligned tables, then the findings.

use std::fmt::Write as _;

use super::table::{group_table, Table};
use crate::findings::{Finding, Thresholds};
use crate::model::RunResults;

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
    match f.held {
        Some(true) => "HELD",
        Some(false) => "NOT HELD",
        None => "NOT MEASURED",
    }
}

pub fn render_findings(findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Thresholds: offload within {:.0}% of blocking, async threads <= {:.0}% of blocking's, mixed /health p99 factor >= {}x",
        t.offload_within * 100.0,
        t.thread_fraction * 100.0,
        t.mixed_p99_factor
    );
    for f in findings {
        let _ = writeln!(out, "[{:>12}] {} ({})", verdict(f), f.claim, f.seed);
        let _ = writeln!(out, "               {}", f.evidence);
    }
    out
}

/// The whole terminal report.
pub fn render(results: &RunResults, findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let m = &results.machine;
    let s = &results.settings;
    let _ = writeln!(
        out,
        "Machine: {} cores, {}, {:.1} GiB, {}",
        m.cores,
        m.cpu_model,
        m.memory_bytes as f64 / (1024.0 * 1024.0 * 1024.0),
        m.os
    );
    let _ = writeln!(
        out,
        "Profile {}{}; blocking {} handler threads; async {} workers, {} blocking, {} rayon; pools db {} redis {}; loadgen {} threads; /cpu n={}; servers: {}",
        s.profile,
        if s.cold_start { " (cold start per column)" } else { "" },
        s.blocking_handler_threads,
        s.async_worker_threads,
        s.async_blocking_threads,
        s.async_rayon_threads,
        s.db_pool_size,
        s.redis_pool_size,
        s.loadgen_threads,
        s.cpu_n,
        s.targets
    );
    for g in &results.groups {
        let _ = writeln!(out, "\n{} — {}", g.title, g.load);
        out.push_str(&render_table(&group_table(g)));
    }
    for sk in &results.skipped {
        let _ = writeln!(out, "\nSkipped {}: {}", sk.group, sk.reason);
    }
    let _ = writeln!(out, "\nFindings");
    out.push_str(&render_findings(findings, t));
    out
}
