//! The matrix in Markdown, for README.md (`bench doc-tables`' `glance`
//! kind): a table with a row per workload, each cell's lines joined by
//! `<br>`, the best cell's figure in bold; then what goes wrong and the
//! calibration columns. A workload links to its group's section of the
//! run's report.md when the caller gives its path.

use std::fmt::Write as _;

use super::words::{beyond_line, calibration_cells, cell_lines, wrong_figures};
use super::{Cell, Glance, Model, Row, RowVerdict};

/// `text` safe in a Markdown table's cell.
fn md(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The anchor GitHub gives a heading: lower case, spaces to hyphens,
/// other punctuation dropped.
pub fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// "HELD `cpu-offload-recovers`", "HELD (design check) `...`", or that
/// no finding judges the row.
fn verdict(v: Option<&RowVerdict>) -> String {
    match v {
        None => "*no finding judges this row*".to_owned(),
        Some(v) => format!("{} `{}`", v.words(), v.finding),
    }
}

fn cell(row: &Row, model: Model, c: &Cell) -> String {
    let mut lines = cell_lines(row.figure, c);
    lines.extend(
        row.beyond_of(model)
            .map(|b| format!("*{}*", beyond_line(row.figure, b))),
    );
    let best =
        matches!(c, Cell::Best { relative: Some(r), .. } if format!("{:.2}", r.median) == "1.00");
    if let (true, Some(first)) = (best, lines.first_mut()) {
        *first = format!("**{first}**");
    }
    lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| md(l))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The matrix as Markdown; `report` is the path of the run's report.md
/// from the file the table goes in, when there is one to link to.
pub fn render(g: &Glance, report: Option<&str>) -> String {
    let mut out = String::from("| workload |");
    for m in Model::ALL {
        let _ = write!(out, " {} |", m.name());
    }
    out.push_str(" verdict · how the models stood, round by round |\n|---|---|---|---|---|\n");
    for row in &g.rows {
        let name = match report {
            Some(path) => format!("[{}]({path}#{})", row.workload.name, anchor(&row.title)),
            None => row.workload.name.to_owned(),
        };
        let _ = write!(out, "| **{name}**<br>`{}` |", md(&row.route));
        for (model, c) in &row.cells {
            let _ = write!(out, " {} |", cell(row, *model, c));
        }
        let _ = writeln!(
            out,
            " {}<br>{} |",
            md(&verdict(row.verdict.as_ref())),
            md(&row.standing_words())
        );
    }
    if !g.wrongs.is_empty() {
        out.push_str("\n| what goes wrong | the wrong variant | what it did | verdict |\n|---|---|---|---|\n");
        for w in &g.wrongs {
            let _ = writeln!(
                out,
                "| {} | `{}`: {} | {} | {} |",
                w.kind.words(),
                w.column,
                md(&w.what),
                md(&wrong_figures(w)),
                md(&verdict(w.verdict.as_ref()))
            );
        }
    }
    if !g.calibration.is_empty() {
        out.push_str("\nOther implementations, for calibration:\n\n| implementation | workload | against our best | figure | p99 · server CPU |\n|---|---|---|---|---|\n");
        for c in &g.calibration {
            let cells: Vec<String> = calibration_cells(c).iter().map(|x| md(x)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("CPU-bound (seed 000)"), "cpu-bound-seed-000");
        assert_eq!(
            anchor("I/O-bound, database (seed 000)"),
            "io-bound-database-seed-000"
        );
        assert_eq!(
            anchor("Slow downstream, 300 ms (seed 001)"),
            "slow-downstream-300-ms-seed-001"
        );
    }
}
