//! `compare.md`: the comparison in Markdown, the warnings with it, the
//! matrices side by side, every
//! finding with both runs' evidence, then every group's figures.

use std::fmt::Write as _;

use super::findings::summary;
use super::tables::{figures_legend, findings_table, group_heading, group_notes, group_table};
use super::text::{label_line, outcome_line};
use super::Comparison;
use crate::markdown::render_table;
use crate::table::Table;

/// `t` with every column left-aligned: the findings table is words, not
/// figures. A `|` inside a cell would end it, so it is escaped.
fn left_aligned(t: &Table) -> String {
    let row = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = row(&t.header);
    out.push_str(&row(&vec!["---".to_owned(); t.header.len()]));
    for r in &t.rows {
        out.push_str(&row(r));
    }
    out
}

/// The whole comparison as Markdown.
pub fn render(cmp: &Comparison) -> String {
    let mut out = String::from("# Bench comparison\n\n");
    let _ = writeln!(out, "{}  ", label_line("OLD", &cmp.old));
    let _ = writeln!(out, "{}\n", label_line("NEW", &cmp.new));
    for w in &cmp.warnings {
        let _ = writeln!(out, "**WARNING:** {w}.\n");
    }
    let _ = writeln!(out, "**{}**\n", outcome_line(cmp));
    if !cmp.glance.is_empty() {
        let _ = writeln!(out, "## At a glance\n\n{}\n", super::glance::LEGEND);
        out.push_str(&left_aligned(&super::glance::glance_table(&cmp.glance)));
        out.push('\n');
    }
    let _ = writeln!(out, "## Findings\n\n{}\n", summary(&cmp.findings));
    out.push_str(&left_aligned(&findings_table(&cmp.findings, true)));
    let _ = writeln!(out, "\n## Columns\n\n{}\n", figures_legend(cmp.margin));
    for g in &cmp.groups {
        let _ = writeln!(out, "### {}\n", group_heading(g));
        if !g.rows.is_empty() {
            out.push_str(&render_table(&group_table(g)));
            out.push('\n');
        }
        for note in group_notes(g) {
            let _ = writeln!(out, "- {note}");
        }
        if !g.columns_only_in.is_empty() || !g.not_compared.is_empty() {
            out.push('\n');
        }
    }
    out
}
