//! `compare.html`: the comparison as one self-contained page (the report's
//! own shell, [`crate::html::page`]: no script, nothing fetched).
//! The runs and the warnings first, the matrices side by side, then every finding with its verdict
//! badge in each run, the change and both runs' evidence, then every
//! group's figures.

use std::fmt::Write as _;

use super::findings::summary;
use super::tables::{figures_legend, group_heading, group_notes, group_table};
use super::text::{label_line, outcome_line};
use super::{Change, Comparison, FindingChange, Judged};
use crate::html::page::{escape, page, table, verdict_class};

/// A verdict badge with its interval's median, or "-".
fn verdict_cell(j: Option<&Judged>) -> String {
    let Some(j) = j else {
        return "-".to_owned();
    };
    let median = j
        .verdict_and_median()
        .1
        .map_or(String::new(), |m| format!(" {m}"));
    format!(
        "<span class=\"verdict {}\">{}</span>{median}",
        verdict_class(j.verdict),
        j.verdict.word()
    )
}

fn finding_row(f: &FindingChange) -> String {
    let change = escape(&f.change.describe());
    let change = if matches!(f.change, Change::Flipped { .. }) {
        format!("<strong>{change}</strong>")
    } else {
        change
    };
    let evidence = |j: &Option<Judged>| j.as_ref().map_or("-".to_owned(), |j| escape(&j.evidence));
    format!(
        "<tr class=\"finding\" data-id=\"{id}\"><td><p class=\"claim\">{claim}</p><p class=\"seed\"><code>{id}</code></p></td><td>{old}</td><td>{new}</td><td>{change}</td><td class=\"evidence\">{old_ev}</td><td class=\"evidence\">{new_ev}</td></tr>\n",
        id = escape(&f.id),
        claim = escape(&f.claim),
        old = verdict_cell(f.old.as_ref()),
        new = verdict_cell(f.new.as_ref()),
        old_ev = evidence(&f.old),
        new_ev = evidence(&f.new),
    )
}

fn findings_section(cmp: &Comparison) -> String {
    let mut out = format!(
        "<section id=\"findings\">\n<h2>Findings</h2>\n<p>{}</p>\n<table class=\"findings\">\n<colgroup><col style=\"width: 22%\"><col style=\"width: 11em\"><col style=\"width: 11em\"><col style=\"width: 9em\"><col><col></colgroup>\n<thead><tr><th>Finding</th><th>OLD</th><th>NEW</th><th>Change</th><th>OLD evidence</th><th>NEW evidence</th></tr></thead>\n<tbody>\n",
        escape(&summary(&cmp.findings))
    );
    for f in &cmp.findings {
        out.push_str(&finding_row(f));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

fn groups_section(cmp: &Comparison) -> String {
    let mut out = format!(
        "<section id=\"columns\">\n<h2>Columns</h2>\n<p class=\"muted\">{}</p>\n",
        escape(&figures_legend(cmp.margin))
    );
    for g in &cmp.groups {
        let _ = writeln!(
            out,
            "<section class=\"group\" id=\"group-{}\">\n<h3>{}</h3>",
            escape(g.id.as_str()),
            escape(&group_heading(g))
        );
        if !g.rows.is_empty() {
            let _ = writeln!(
                out,
                "<div class=\"scroll\">{}</div>",
                table(&group_table(g), "figures")
            );
        }
        let notes = group_notes(g);
        if !notes.is_empty() {
            let list: String = notes
                .iter()
                .map(|n| format!("<li>{}</li>", escape(n)))
                .collect();
            let _ = writeln!(out, "<ul>{list}</ul>");
        }
        out.push_str("</section>\n");
    }
    out.push_str("</section>\n");
    out
}

/// The whole comparison as one page.
pub fn render(cmp: &Comparison) -> String {
    let mut body = format!(
        "<header>\n<h1>Bench comparison</h1>\n<p class=\"muted\">{}</p>\n<p class=\"muted\">{}</p>\n</header>\n",
        escape(&label_line("OLD", &cmp.old)),
        escape(&label_line("NEW", &cmp.new))
    );
    if !cmp.warnings.is_empty() {
        body.push_str("<ul class=\"warnings\">\n");
        for w in &cmp.warnings {
            let _ = writeln!(body, "<li><b>WARNING:</b> {}.</li>", escape(w));
        }
        body.push_str("</ul>\n");
    }
    let _ = writeln!(body, "<p><b>{}</b></p>", escape(&outcome_line(cmp)));
    body.push_str(&super::glance::glance_html(&cmp.glance));
    body.push_str(&findings_section(cmp));
    body.push_str(&groups_section(cmp));
    page(
        &format!(
            "Bench comparison, {} vs {}",
            cmp.old.started_at, cmp.new.started_at
        ),
        &body,
    )
}
