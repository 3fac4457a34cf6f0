//! `report.md`: the same tables and findings as the terminal, in Markdown.

use std::fmt::Write as _;

use super::text::verdict;
use crate::group_parts::{parts, Part};
use crate::table::Table;
use bench_model::RunResults;
use bench_model::{Finding, Thresholds};

pub fn render_table(t: &Table) -> String {
    let mut out = String::new();
    // A `|` inside a cell would end it: escape it.
    let row = |cells: &Vec<String>| {
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    out.push_str(&row(&t.header));
    let mut sep = vec!["---".to_owned()];
    sep.extend(std::iter::repeat_n("---:".to_owned(), t.header.len() - 1));
    out.push_str(&row(&sep));
    for r in &t.rows {
        out.push_str(&row(r));
    }
    out
}

pub fn render(results: &RunResults, findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Bench report, {}\n", results.started_at);
    let _ = writeln!(out, "Machine: {}.  ", crate::lines::machine_line(results));
    let _ = writeln!(
        out,
        "Settings: {}. Wall time {:.0} s.\n",
        crate::lines::settings_line(results),
        results.wall_seconds
    );
    let _ = writeln!(out, "{}\n", crate::lines::quiet_line(results, t));
    let _ = writeln!(
        out,
        "Each cell: the median over the rounds, ±spread where rounds vary (the farther end of the rounds' range, as a share of the median), then in brackets the median's ratio to the group's first column. Threads and RSS read idle (just after the server started) -> peak (within the measured window).\n"
    );
    for g in &results.groups {
        let _ = writeln!(
            out,
            "## {}\n\n{}\n",
            g.title,
            crate::lines::group_load_line(g)
        );
        for part in parts(g, t) {
            group_part(&mut out, part);
        }
        if g.sweep.is_some() {
            let _ = writeln!(
                out,
                "![{0} throughput]({0}-throughput.svg) ![{0} p99]({0}-p99.svg)\n",
                g.id
            );
        }
    }
    for sk in &results.skipped {
        let _ = writeln!(out, "Skipped **{}**: {}\n", sk.group, sk.reason);
    }
    for line in crate::lines::failure_lines(results) {
        let _ = writeln!(out, "**FAILED**: {line}\n");
    }
    out.push_str(&findings_section(findings, t));
    out
}

/// One part of a group's section, an empty line after it.
fn group_part(out: &mut String, part: Part) {
    match part {
        Part::SweepLine(line) => {
            let _ = writeln!(out, "{line}\n");
        }
        Part::SweepTable(title, table) => {
            let _ = writeln!(out, "{title}:\n");
            out.push_str(&render_table(&table));
            out.push('\n');
        }
        Part::Table(table) => {
            out.push_str(&render_table(&table));
            out.push('\n');
        }
        Part::Idle(table, notes) => {
            out.push_str(&render_table(&table));
            out.push('\n');
            for note in notes {
                let _ = writeln!(out, "{note}  ");
            }
            out.push('\n');
        }
        Part::ColdStart(line, table) | Part::EqualLoad(line, table) => {
            let _ = writeln!(out, "{line}\n");
            out.push_str(&render_table(&table));
            out.push('\n');
        }
    }
}

/// The findings: the thresholds, the headline, the predictions' table,
/// then the design checks' apart.
fn findings_section(findings: &[Finding], t: &Thresholds) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Findings\n");
    let _ = writeln!(out, "{}\n", super::text::thresholds_line(t));
    let _ = writeln!(out, "{}", crate::headline::headline(findings));
    for (title, these) in crate::headline::sections(findings) {
        let _ = writeln!(
            out,
            "\n### {title}\n\n| verdict | claim | seed | evidence |\n|---|---|---|---|"
        );
        for f in these {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                verdict(f),
                f.claim,
                f.seed,
                f.evidence
            );
        }
    }
    out
}
