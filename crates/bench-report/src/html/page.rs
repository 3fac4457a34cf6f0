//! The HTML report's shell: the page's head with its one stylesheet, text
//! escaping, tables and folds. Nothing is fetched: no script, no font, no
//! image from anywhere; the charts are inline SVG. The page prints as it
//! shows, its folds opened.

use std::fmt::Write as _;

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
        GLANCE = crate::glance::html::STYLE
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

const STYLE: &str = r#"
:root { --held: #1b7f3b; --not-held: #b3261e; --inconclusive: #9a6700; --not-measured: #6b6b6b; --line: #d8dee4; --muted: #57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p { margin: 6px 0; }
.muted, .seed, .load { color: var(--muted); }
.run p { margin: 2px 0; }
.summary { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0; }
.summary span { padding: 4px 10px; border-radius: 6px; font-weight: 600; color: white; }
.verdict { display: inline-block; min-width: 8.2em; text-align: center; padding: 2px 8px; border-radius: 6px; font-weight: 700; font-size: 13px; color: white; white-space: nowrap; }
.held { background: var(--held); } .not-held { background: var(--not-held); }
.inconclusive { background: var(--inconclusive); } .not-measured { background: var(--not-measured); }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
thead th { background: #f6f8fa; text-align: left; }
td { text-align: right; white-space: nowrap; }
table.findings td { text-align: left; white-space: normal; }
table.findings { width: 100%; font-size: 14px; table-layout: fixed; }
table.findings .c-verdict { width: 9.5em; } table.findings .c-claim { width: 36%; }
table.findings .c-evidence { width: 34%; } table.findings .c-meaning { width: auto; }
table.findings .claim { font-weight: 600; }
table.findings td.evidence { font-size: 13px; overflow-wrap: anywhere; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.charts svg { flex: 1 1 520px; max-width: 760px; height: auto; border: 1px solid var(--line); border-radius: 6px; }
tbody th { text-align: left; font-weight: 500; white-space: nowrap; }
details { margin: 6px 0; }
summary { cursor: pointer; color: var(--muted); }
.scroll { overflow-x: auto; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  details::details-content { content-visibility: visible; display: block; }
  summary { list-style: none; }
  section.group, tr.finding, .charts svg { break-inside: avoid; }
  .scroll { overflow: visible; }
}
"#;

/// The CSS class of a verdict's badge (the report's and the comparison's).
pub fn verdict_class(v: bench_model::Verdict) -> &'static str {
    use bench_model::Verdict;
    match v {
        Verdict::Held => "held",
        Verdict::NotHeld => "not-held",
        Verdict::Inconclusive => "inconclusive",
        Verdict::NotMeasured => "not-measured",
    }
}
