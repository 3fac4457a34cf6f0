//! One section per group: its load, its charts, a compact table of the
//! figures a reader compares first, and the full table folded underneath;
//! sweeps, the idle group and the cold-start probe with their own tables.

use std::fmt::Write as _;

use super::page::{escape, fold, table};
use crate::charts;
use crate::cold_start_table::cold_start_table;
use crate::equal_load_table::{equal_load_line, equal_load_table};
use crate::idle_table::{idle_notes, idle_table};
use crate::lines::{cold_start_line, group_load_line, sweep_lines};
use crate::sweep_table::sweep_tables;
use crate::table::{compact_table, group_table};
use bench_model::GroupResult;
use bench_model::Thresholds;

/// A table that may be wider than the page, scrolled on its own.
fn scrolled(inner: String) -> String {
    format!("<div class=\"scroll\">\n{inner}</div>\n")
}

/// The section of group `g`.
pub(super) fn section(g: &GroupResult, t: &Thresholds) -> String {
    let mut out = format!(
        "<section class=\"group\" id=\"group-{id}\">\n<h2>{title}</h2>\n<p class=\"load\">{load}</p>\n",
        id = g.id,
        title = escape(&g.title),
        load = escape(&group_load_line(g)),
    );
    for line in sweep_lines(g).unwrap_or_default() {
        let _ = writeln!(out, "<p class=\"load\">{}</p>", escape(&line));
    }
    out.push_str("<div class=\"charts\">\n");
    for (_, svg) in charts::of_group(g) {
        out.push_str(&svg);
    }
    out.push_str("</div>\n");
    out.push_str(&tables(g, t));
    out.push_str("</section>\n");
    out
}

/// The group's tables: a sweep's, the idle group's, or the compact table
/// with the full one folded; then a cold-start probe's.
fn tables(g: &GroupResult, t: &Thresholds) -> String {
    let mut out = String::new();
    if g.sweep.is_some() {
        let all = sweep_tables(g);
        for (i, (title, table_)) in all.iter().enumerate() {
            let shown = format!(
                "<h3>{}</h3>\n{}",
                escape(title),
                scrolled(table(table_, "sweep"))
            );
            // The throughput and latency tables first; the rest folded.
            if i < 2 {
                out.push_str(&shown);
            } else {
                out.push_str(&fold(title, &shown));
            }
        }
        return out;
    }
    if let Some(idle) = &g.idle {
        out.push_str(&scrolled(table(&idle_table(idle), "idle")));
        for note in idle_notes(idle) {
            let _ = writeln!(out, "<p class=\"muted\">{}</p>", escape(&note));
        }
    }
    if !g.columns.is_empty() {
        let full = group_table(g);
        out.push_str(&scrolled(table(&compact_table(g), "compact")));
        out.push_str(&fold(
            "Every figure of this group",
            &scrolled(table(&full, "full")),
        ));
    }
    if let Some(e) = &g.equal_load {
        let rows = table(&equal_load_table(g, e), "equal-load");
        out.push_str(&titled("At an equal load", &equal_load_line(e), rows));
    }
    if let Some(probe) = &g.cold_start {
        let rows = table(&cold_start_table(probe, t), "cold-start");
        out.push_str(&titled("Cold-start probe", &cold_start_line(probe), rows));
    }
    out
}

/// A part of a group's section with a title of its own: the title, the
/// line that says what was run, and its table (`rows`, as HTML).
fn titled(title: &str, line: &str, rows: String) -> String {
    format!(
        "<h3>{title}</h3>\n<p class=\"load\">{}</p>\n{}",
        escape(line),
        scrolled(rows)
    )
}
