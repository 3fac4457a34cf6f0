//! The run at a glance as a picture (`glance.svg`): per workload a header
//! (its name, route and the verdict that judges it), then a horizontal bar
//! per model whose best variant is ranked, its length how close it came to
//! the row's best (full width = the best: its figure over the best's, or
//! for memory, a cost, the best's over its) and its shade the same in five
//! steps, so that it reads in grey scale; each bar labelled in words with
//! its relative figure, the figure and the variant. A variant that blocks
//! by design, or a model not measured, is a line of text, never a bar.
//! The `<title>` and `<desc>` say the same for a screen reader.

use std::fmt::Write as _;

use super::svg::{escape, W};
use crate::glance::words::{pick_figure, relative, verdict};
use crate::glance::{Cell, Glance, Row};
use bench_model::{Spread, Verdict};

/// Where each model's name ends and its bar starts.
const BAR_X: f64 = 120.0;
/// A bar at the row's best.
pub const BAR_MAX: f64 = 280.0;
/// Each bar's height, and a model's line.
const BAR_H: f64 = 12.0;
const LINE: f64 = 16.0;
/// A workload's header line, and the room after its bars.
const HEADER: f64 = 20.0;
const GAP: f64 = 10.0;
/// Above the first workload: the title and the legend.
const TOP: f64 = 62.0;

/// How close a cell came to its row's best, 1 at the best: its relative
/// figure, or for a cost (lower is better) its inverse; in 0..=1.
pub fn closeness(higher_is_better: bool, rel: &Spread) -> f64 {
    let c = if higher_is_better {
        rel.median
    } else if rel.median > 0.0 {
        1.0 / rel.median
    } else {
        0.0
    };
    c.clamp(0.0, 1.0)
}

/// Which of five bands a closeness falls in: 4 within 5% of the best,
/// then 80%, 60%, 40%, and 0 below; the page's cells and the picture's
/// bars are shaded by it alike.
pub fn band(closeness: f64) -> usize {
    [0.4, 0.6, 0.8, 0.95]
        .iter()
        .filter(|&&edge| closeness >= edge)
        .count()
}

/// The shade of a bar, darker closer to the best, by its [`band`].
fn shade(closeness: f64) -> &'static str {
    ["#eef7e4", "#d4eed8", "#a8dcc9", "#74c4b4", "#2f8f7b"][band(closeness)]
}

/// A verdict's badge colour, the page's; its word is always beside it.
fn verdict_colour(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::Held) => "#1b7f3b",
        Some(Verdict::NotHeld) => "#b3261e",
        Some(Verdict::Same) => "#0b5cad",
        Some(Verdict::Inconclusive) => "#9a6700",
        _ => "#6b6b6b",
    }
}

/// One model's line in words: "1.00 · 1121 req/s · inline", "blocks by
/// design (not ranked): pinning driver, 1085 req/s", "not run".
fn cell_words(row: &Row, cell: &Cell) -> String {
    match cell {
        Cell::Best { pick, relative: r } => {
            let variant = if pick.variant.is_empty() {
                String::new()
            } else {
                format!(" · {}", pick.variant)
            };
            format!(
                "{} · {}{variant}",
                relative(r.as_ref()),
                pick_figure(row.figure, &pick.measure)
            )
        }
        Cell::OnlyByDesign(pick) => format!(
            "blocks by design (not ranked): {}, {}",
            pick.variant,
            pick_figure(row.figure, &pick.measure)
        ),
        Cell::Missing { why, .. } => (*why).to_owned(),
    }
}

/// The whole picture's height for `rows`.
fn height(rows: usize) -> f64 {
    TOP + rows as f64 * (HEADER + 3.0 * LINE + GAP) + 8.0
}

/// What the picture says, in sentences, for its `<desc>`.
fn description(g: &Glance) -> String {
    let rows: Vec<String> = g
        .rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|(m, c)| format!("{} {}", m.name(), cell_words(row, c)))
                .collect();
            format!(
                "{}: {}; {}.",
                row.workload.name,
                cells.join("; "),
                verdict(row.verdict.as_ref())
            )
        })
        .collect();
    format!(
        "Each model's best variant per workload, relative to the row's best (1.00 = best). {}",
        rows.join(" ")
    )
}

/// One workload: its header, then a line per model.
fn row_svg(out: &mut String, row: &Row, y: f64) {
    let v = row.verdict.as_ref();
    let _ = writeln!(
        out,
        r##"<text class="workload" x="8" y="{:.1}" font-weight="bold">{} <tspan font-weight="normal" fill="#555">{}</tspan></text>"##,
        y + 14.0,
        escape(row.workload.name),
        escape(&row.route)
    );
    let words = verdict(v);
    let _ = writeln!(
        out,
        r##"<rect x="{:.1}" y="{:.1}" width="6" height="12" fill="{}"/><text class="verdict" x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"##,
        W - 14.0,
        y + 4.0,
        verdict_colour(v.map(|v| v.verdict)),
        W - 18.0,
        y + 14.0,
        escape(&words)
    );
    for (i, (model, cell)) in row.cells.iter().enumerate() {
        let line_y = y + HEADER + LINE * i as f64;
        let _ = writeln!(
            out,
            r#"<text class="model" x="16" y="{:.1}" font-size="11">{}</text>"#,
            line_y + 10.0,
            model.name()
        );
        let text_x = match cell {
            Cell::Best {
                relative: Some(r), ..
            } => {
                let close = closeness(row.figure.higher_is_better(), r);
                let _ = writeln!(
                    out,
                    r##"<rect class="bar" data-model="{}" data-closeness="{close:.4}" x="{BAR_X}" y="{:.1}" width="{:.2}" height="{BAR_H}" fill="{}" stroke="#1f2328" stroke-width="0.6"/>"##,
                    model.slug(),
                    line_y,
                    close * BAR_MAX,
                    shade(close)
                );
                BAR_X + BAR_MAX + 8.0
            }
            _ => BAR_X,
        };
        let _ = writeln!(
            out,
            r#"<text class="cell" x="{text_x:.1}" y="{:.1}" font-size="11">{}</text>"#,
            line_y + 10.0,
            escape(&cell_words(row, cell))
        );
    }
}

/// The matrix `g` as an SVG picture.
pub fn glance_chart(g: &Glance) -> String {
    let h = height(g.rows.len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart glance" role="img" aria-labelledby="glance-title glance-desc" width="{W}" height="{h:.0}" viewBox="0 0 {W} {h:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r#"<title id="glance-title">At a glance: which model for which workload</title>"#
    );
    let _ = writeln!(
        out,
        r#"<desc id="glance-desc">{}</desc>"#,
        escape(&description(g))
    );
    let _ = writeln!(out, r#"<rect width="{W}" height="{h:.0}" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text class="title" x="8" y="22" font-size="15">At a glance: which model for which workload</text>"#
    );
    let _ = writeln!(
        out,
        r##"<text class="subtitle" x="8" y="40" fill="#555">Each bar: a model's best variant that does not block by design; full length and darkest = the row's best (memory: the best's over its).</text>"##
    );
    let _ = writeln!(
        out,
        r##"<text class="subtitle" x="8" y="54" fill="#555">Beside it: its figure relative to the best (1.00 = best), the figure, the variant. Right: the verdict that judges the row.</text>"##
    );
    for (i, row) in g.rows.iter().enumerate() {
        row_svg(&mut out, row, TOP + i as f64 * (HEADER + 3.0 * LINE + GAP));
    }
    if g.rows.is_empty() {
        let _ = writeln!(
            out,
            r#"<text x="8" y="{:.1}">No workload of the matrix was measured in this run.</text>"#,
            TOP + 14.0
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closeness_is_the_relative_figure_or_its_inverse_for_a_cost() {
        let rel = |m: f64| Spread {
            median: m,
            min: m,
            max: m,
            n: 1,
        };
        assert_eq!(closeness(true, &rel(0.5)), 0.5);
        assert_eq!(closeness(false, &rel(2.0)), 0.5);
        assert_eq!(closeness(true, &rel(1.2)), 1.0);
        assert_eq!(closeness(false, &rel(0.0)), 0.0);
    }
}
