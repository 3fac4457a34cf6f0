//! The matrix on a terminal, within [`WIDTH`] columns: a row per workload
//! (its cells' lines side by side, then its verdict and how the models
//! stood),
//! what goes wrong, and the calibration columns, a line each.

use std::fmt::Write as _;

use super::words::{beyond_line, calibration_line, cell_lines, verdict, wrong_figures};
use super::{Glance, Model, Row};

/// The widest line the matrix prints.
pub const WIDTH: usize = 100;

/// The workload's column.
const LABEL: usize = 17;
/// Each model's column.
const CELL: usize = 25;
/// Between columns.
const GAP: usize = 2;

/// `text` in lines of at most `width` characters, broken between words
/// (a word longer than a line, between its characters).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let width = width.max(1);
    let pieces = text.split_whitespace().flat_map(|word| {
        let chars: Vec<char> = word.chars().collect();
        chars
            .chunks(width)
            .map(|c| c.iter().collect::<String>())
            .collect::<Vec<_>>()
    });
    for word in pieces {
        let wanted = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && wanted > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `lines` each wrapped to `width`, flattened.
fn wrap_all(lines: &[String], width: usize) -> Vec<String> {
    lines.iter().flat_map(|l| wrap(l, width)).collect()
}

/// `text` wrapped within [`WIDTH`], its first line after `first` spaces,
/// the others after `rest`.
fn paragraph(out: &mut String, text: &str, (first, rest): (usize, usize)) {
    for (i, line) in wrap(text, WIDTH - first.max(rest)).into_iter().enumerate() {
        let pad = if i == 0 { first } else { rest };
        let _ = writeln!(out, "{}{line}", " ".repeat(pad));
    }
}

/// Columns side by side, each padded to its width, the line's end trimmed.
fn side_by_side(out: &mut String, columns: &[(Vec<String>, usize)]) {
    let height = columns.iter().map(|c| c.0.len()).max().unwrap_or(0);
    for i in 0..height {
        let mut line = String::new();
        for (n, (lines, width)) in columns.iter().enumerate() {
            if n > 0 {
                line.push_str(&" ".repeat(GAP));
            }
            let cell = lines.get(i).map_or("", String::as_str);
            line.push_str(cell);
            line.push_str(&" ".repeat(width.saturating_sub(cell.chars().count())));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

fn row_lines(out: &mut String, row: &Row) {
    let mut columns = vec![(
        wrap_all(&[row.workload.name.to_owned(), row.route.clone()], LABEL),
        LABEL,
    )];
    for (model, cell) in &row.cells {
        let mut lines = cell_lines(row.figure, cell);
        lines.extend(row.beyond_of(*model).map(|b| beyond_line(row.figure, b)));
        columns.push((wrap_all(&lines, CELL), CELL));
    }
    side_by_side(out, &columns);
    let line = format!(
        "{} · {}",
        verdict(row.verdict.as_ref()),
        row.standing_words()
    );
    paragraph(out, &line, (2, 4));
}

/// The whole matrix as text.
pub fn render(g: &Glance) -> String {
    let mut out = String::new();
    paragraph(
        &mut out,
        "At a glance: per workload, each model as Spring Boot ships it (MVC, WebFlux, MVC on virtual threads); its figure relative to the row's best (1.00 = best) and the figure (successful req/s; where the cores decide, req/s per core of a dedicated server at the server CPU per request measured at one arrival rate for all; the sweep's plateau, or its highest step where still rising; memory per idle connection), then p99 (≥: a lower bound) and server CPU per request; beside it, a variant beyond Spring's defaults that did better.",
        (0, 0),
    );
    if g.rows.is_empty() {
        let _ = writeln!(out, "No workload of the matrix was measured in this run.");
    } else {
        out.push('\n');
        let header: Vec<(Vec<String>, usize)> =
            std::iter::once((vec!["workload".to_owned()], LABEL))
                .chain(Model::ALL.iter().map(|m| (vec![m.name().to_owned()], CELL)))
                .collect();
        side_by_side(&mut out, &header);
        let _ = writeln!(out, "{}", "-".repeat(LABEL + 3 * (GAP + CELL)));
        for row in &g.rows {
            row_lines(&mut out, row);
        }
    }
    if !g.wrongs.is_empty() {
        let _ = writeln!(out, "\nWhat goes wrong");
        for w in &g.wrongs {
            let verdict = w
                .verdict
                .as_ref()
                .map_or(String::new(), |v| format!(" [{}]", verdict(Some(v))));
            let line = format!(
                "- {}: {} ({}): {}{verdict}",
                w.kind.words(),
                w.what,
                w.group,
                wrong_figures(w)
            );
            paragraph(&mut out, &line, (0, 2));
        }
    }
    if !g.calibration.is_empty() {
        let _ = writeln!(
            out,
            "\nCalibration: other implementations, against our models"
        );
        for c in &g.calibration {
            paragraph(&mut out, &format!("- {}", calibration_line(c)), (0, 2));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_wrapped_between_words_within_its_width() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("", 6), [""]);
        assert_eq!(wrap("abcdefgh ij", 4), ["abcd", "efgh", "ij"]);
    }
}
