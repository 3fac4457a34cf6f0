//! The HTML report's shell: the page's head with its one stylesheet
//! ([`super::style`]), text escaping, tables and folds. Nothing is fetched: no script, no font, no
//! image from anywhere; the charts are inline SVG. The page prints as it
//! shows, its folds opened.

use std::fmt::Write as _;

use super::style::{GLANCE, STYLE};
use crate::table::Table;

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The whole page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>\n{STYLE}{GLANCE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title),
    )
}

/// `t` as an HTML table: its first row and column as headers, numbers
/// right-aligned.
pub fn table(t: &Table, class: &str) -> String {
    let mut out = format!("<table class=\"{class}\">\n<thead><tr>");
    for cell in &t.header {
        let _ = write!(out, "<th>{}</th>", escape(cell));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 0 {
                let _ = write!(out, "<th scope=\"row\">{}</th>", escape(cell));
            } else {
                let _ = write!(out, "<td>{}</td>", escape(cell));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// `inner` folded under `summary`.
pub fn fold(summary: &str, inner: &str) -> String {
    format!(
        "<details>\n<summary>{}</summary>\n{inner}</details>\n",
        escape(summary)
    )
}

/// The CSS class of a verdict's badge (the report's and the comparison's).
pub fn verdict_class(v: bench_model::Verdict) -> &'static str {
    use bench_model::Verdict;
    match v {
        Verdict::Held => "held",
        Verdict::NotHeld => "not-held",
        Verdict::Same => "same",
        Verdict::Inconclusive => "inconclusive",
        Verdict::NotMeasured => "not-measured",
    }
}
