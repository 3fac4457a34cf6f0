//! What a group shows in the terminal report and `report.md`, in order,
//! the same for both (each writes a part in its own format): a sweep's
//! lines and tables; or the group's table (unless it is the idle group
//! alone), the idle group's table and notes, its equal-load windows' line
//! and table, and the cold-start probe's line and table. (`report.html` shows a compact table first, the full
//! one folded: [`crate::html`].)

use bench_model::{GroupResult, Thresholds};

use crate::cold_start_table::cold_start_table;
use crate::equal_load_table::{equal_load_line, equal_load_table};
use crate::idle_table::{idle_notes, idle_table};
use crate::lines::{cold_start_line, sweep_lines};
use crate::sweep_table::sweep_tables;
use crate::table::{group_table, Table};

/// One part of a group's section.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A line saying what a sweep is (its steps, its cap).
    SweepLine(String),
    /// One of a sweep's tables, with its title.
    SweepTable(String, Table),
    /// The group's table in seed 000's layout.
    Table(Table),
    /// The idle group's table and the notes under it.
    Idle(Table, Vec<String>),
    /// The equal-load windows: their line and their table.
    EqualLoad(String, Table),
    /// The cold-start probe: its line and its table.
    ColdStart(String, Table),
}

/// The parts of `g`'s section, in order.
pub fn parts(g: &GroupResult, t: &Thresholds) -> Vec<Part> {
    if let Some(lines) = sweep_lines(g) {
        let tables = sweep_tables(g)
            .into_iter()
            .map(|(title, table)| Part::SweepTable(title, table));
        return lines
            .into_iter()
            .map(Part::SweepLine)
            .chain(tables)
            .collect();
    }
    let mut out = Vec::new();
    if !g.columns.is_empty() || g.idle.is_none() {
        out.push(Part::Table(group_table(g)));
    }
    if let Some(idle) = &g.idle {
        out.push(Part::Idle(idle_table(idle), idle_notes(idle)));
    }
    if let Some(e) = &g.equal_load {
        out.push(Part::EqualLoad(equal_load_line(e), equal_load_table(g, e)));
    }
    if let Some(probe) = &g.cold_start {
        out.push(Part::ColdStart(
            cold_start_line(probe),
            cold_start_table(probe, t),
        ));
    }
    out
}
