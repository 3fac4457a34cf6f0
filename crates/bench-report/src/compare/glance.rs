//! The two runs' matrices side by side ([`crate::glance`], each built from
//! its run's rounds and saved findings): a row per workload either run
//! measured, each model's cell in both, and the row's verdict in both.
//!
//! A change is marked where a reader should look: a row whose verdict
//! changed (another verdict, or another finding judging it), and a cell
//! whose figure relative to its row's best moved beyond both runs' spreads
//! (the new median outside the old run's range over rounds, and the old
//! median outside the new one's): a move within a run's own spread is no
//! evidence of a change.

use std::fmt::Write as _;

use bench_model::{GroupId, Spread};

use crate::glance::words::{pick_figure, relative};
use crate::glance::{workloads, Cell, Glance, Model, Row, RowVerdict};
use crate::html::page::{escape, verdict_class};
use crate::table::Table;

/// One workload across the two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct GlanceRowChange {
    pub group: GroupId,
    pub name: &'static str,
    pub old: Option<Row>,
    pub new: Option<Row>,
    /// Per model (in [`Model::ALL`]'s order), whether its cell moved.
    pub moved: Vec<(Model, bool)>,
    pub verdict_changed: bool,
}

impl GlanceRowChange {
    /// Whether anything in the row is marked.
    pub fn changed(&self) -> bool {
        self.verdict_changed || self.moved.iter().any(|m| m.1)
    }

    fn cell(row: Option<&Row>, model: Model) -> Option<&Cell> {
        row?.cells.iter().find(|c| c.0 == model).map(|c| &c.1)
    }
}

/// The relative figure of a ranked cell.
fn ranked(c: Option<&Cell>) -> Option<&Spread> {
    match c? {
        Cell::Best { relative, .. } => relative.as_ref(),
        _ => None,
    }
}

/// Whether `new` moved from `old` beyond both runs' spreads.
pub fn moved_beyond_spreads(old: &Spread, new: &Spread) -> bool {
    let within = |x: f64, s: &Spread| s.min <= x && x <= s.max;
    !within(new.median, old) && !within(old.median, new)
}

fn verdict_key(v: Option<&RowVerdict>) -> Option<(&str, bench_model::Verdict)> {
    v.map(|v| (v.finding.as_str(), v.verdict))
}

/// Every workload of either matrix, in the matrix's order.
pub fn compare_glances(old: &Glance, new: &Glance) -> Vec<GlanceRowChange> {
    let find =
        |g: &Glance, group: GroupId| g.rows.iter().find(|r| r.workload.group == group).cloned();
    workloads::WORKLOADS
        .iter()
        .filter_map(|w| {
            let (o, n) = (find(old, w.group), find(new, w.group));
            if o.is_none() && n.is_none() {
                return None;
            }
            // Figures of two kinds (a closed loop's throughput in a run saved
            // before equal-load windows, capacity at equal load after) are
            // not compared.
            let same_figure = matches!((&o, &n), (Some(a), Some(b)) if a.figure == b.figure);
            let moved = Model::ALL
                .into_iter()
                .map(|m| {
                    let pair = (
                        ranked(GlanceRowChange::cell(o.as_ref(), m)),
                        ranked(GlanceRowChange::cell(n.as_ref(), m)),
                    );
                    (
                        m,
                        same_figure
                            && matches!(pair, (Some(a), Some(b)) if moved_beyond_spreads(a, b)),
                    )
                })
                .collect();
            let verdict_changed = match (&o, &n) {
                (Some(a), Some(b)) => {
                    verdict_key(a.verdict.as_ref()) != verdict_key(b.verdict.as_ref())
                }
                _ => false,
            };
            Some(GlanceRowChange {
                group: w.group,
                name: w.name,
                old: o,
                new: n,
                moved,
                verdict_changed,
            })
        })
        .collect()
}

/// A cell in a few words: "0.77", "blocks by design", "not run"; "-" for
/// a row the run has not.
fn short(c: Option<&Cell>) -> String {
    match c {
        None => "-".to_owned(),
        Some(Cell::Best { relative: r, .. }) => relative(r.as_ref()),
        Some(Cell::OnlyByDesign(_)) => "by design".to_owned(),
        Some(Cell::Missing { why, .. }) => (*why).to_owned(),
    }
}

fn short_verdict(row: Option<&Row>) -> String {
    match row {
        None => "-".to_owned(),
        Some(r) => r
            .verdict
            .as_ref()
            .map_or("none".to_owned(), |v| v.verdict.word().to_owned()),
    }
}

/// "0.77 -> 0.80", with " *" where marked.
fn pair(old: String, new: String, marked: bool) -> String {
    format!("{old} -> {new}{}", if marked { " *" } else { "" })
}

/// The matrices side by side as a table for the text and Markdown printers.
pub fn glance_table(rows: &[GlanceRowChange]) -> Table {
    let mut header = vec!["workload".to_owned()];
    header.extend(Model::ALL.iter().map(|m| m.name().to_owned()));
    header.push("verdict".to_owned());
    let rows = rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.name.to_owned()];
            for (m, moved) in &r.moved {
                cells.push(pair(
                    short(GlanceRowChange::cell(r.old.as_ref(), *m)),
                    short(GlanceRowChange::cell(r.new.as_ref(), *m)),
                    *moved,
                ));
            }
            cells.push(pair(
                short_verdict(r.old.as_ref()),
                short_verdict(r.new.as_ref()),
                r.verdict_changed,
            ));
            cells
        })
        .collect();
    Table { header, rows }
}

/// What the side-by-side table's cells mean.
pub const LEGEND: &str = "Each model's figure relative to its row's best (1.00 = best), OLD -> NEW; * marks a change: the row's verdict changed, or a relative figure moved beyond both runs' spreads (each run's range over its rounds).";

/// The same for the page, whose changed cells are outlined.
const LEGEND_HTML: &str = "Each model's best variant in each run: its figure relative to its row's best (1.00 = best), the figure, the variant. A changed cell is outlined and says so: the row's verdict changed (the row is barred too), or a relative figure moved beyond both runs' spreads (each run's range over its rounds).";

/// One side of a cell in HTML: its relative figure, the figure, the variant.
fn side_html(row: Option<&Row>, model: Model) -> String {
    let Some(row) = row else {
        return "-".to_owned();
    };
    match GlanceRowChange::cell(Some(row), model) {
        Some(Cell::Best { pick, relative: r }) => format!(
            "<span class=\"fig\"><b>{}</b> {}</span><span class=\"variant\">{}</span>",
            relative(r.as_ref()),
            escape(&pick_figure(row.figure, &pick.measure)),
            escape(&pick.variant)
        ),
        other => escape(&short(other)),
    }
}

fn verdict_html(row: Option<&Row>) -> String {
    match row.and_then(|r| r.verdict.as_ref()) {
        None => escape(&short_verdict(row)),
        Some(v) => format!(
            "<span class=\"verdict {}\">{}</span><code>{}</code>",
            verdict_class(v.verdict),
            v.verdict.word(),
            escape(&v.finding)
        ),
    }
}

/// The matrices side by side in HTML: `section#at-a-glance`, a changed
/// cell with class `changed`, a row whose verdict changed with class
/// `changed-verdict`.
pub fn glance_html(rows: &[GlanceRowChange]) -> String {
    let mut out = format!(
        "<section id=\"at-a-glance\">\n<h2>At a glance, OLD and NEW</h2>\n<p class=\"legend\">{}</p>\n<table class=\"glance-compare\">\n<colgroup><col class=\"c-work\">{}<col class=\"c-verdict\"><col class=\"c-verdict\"></colgroup>\n<thead><tr><th rowspan=\"2\">Workload</th>",
        escape(LEGEND_HTML),
        "<col class=\"c-side\">".repeat(6)
    );
    for m in Model::ALL {
        let _ = write!(out, "<th colspan=\"2\">{}</th>", escape(m.name()));
    }
    out.push_str("<th colspan=\"2\">verdict</th></tr>\n<tr>");
    out.push_str(&"<th>OLD</th><th>NEW</th>".repeat(4));
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        let class = if r.verdict_changed {
            " changed-verdict"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr class=\"glance-row{class}\" data-group=\"{}\"><th scope=\"row\">{}</th>",
            r.group,
            escape(r.name)
        );
        for (m, moved) in &r.moved {
            let mark = if *moved { " class=\"changed\"" } else { "" };
            let _ = write!(
                out,
                "<td>{}</td><td{mark}>{}{}</td>",
                side_html(r.old.as_ref(), *m),
                side_html(r.new.as_ref(), *m),
                if *moved {
                    "<span class=\"mark\">changed</span>"
                } else {
                    ""
                }
            );
        }
        let mark = if r.verdict_changed {
            " class=\"changed\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<td>{}</td><td{mark}>{}{}</td></tr>",
            verdict_html(r.old.as_ref()),
            verdict_html(r.new.as_ref()),
            if r.verdict_changed {
                "<span class=\"mark\">changed</span>"
            } else {
                ""
            }
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}
