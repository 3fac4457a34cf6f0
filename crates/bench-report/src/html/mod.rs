//! `report.html`: the run as one self-contained page a person opens from
//! disk. The matrix first ([`crate::glance`]: which model for which
//! workload, on the first screen, then what goes wrong), the findings
//! ([`findings`]), then the run's machine, settings
//! and quietness in a line each, then one section per group ([`groups`]):
//! its charts, a compact table, the full table folded. Like the other
//! printers, a pure function of the results.

mod findings;
mod groups;
pub mod page;
mod style;

use std::fmt::Write as _;

use page::{escape, fold, page};

use crate::lines::{failure_lines, machine_line, quiet, settings_line};
use crate::text::thresholds_line;
use bench_model::RunResults;
use bench_model::{Finding, Thresholds};

/// The whole page of a run.
pub fn render(results: &RunResults, findings: &[Finding], t: &Thresholds) -> String {
    let mut body = header(results);
    let glance = crate::glance::build(results, findings, t);
    body.push_str(&crate::glance::html::section(&glance));
    body.push_str(&crate::glance::html::wrongs_section(&glance));
    body.push_str(&glance_picture(&glance));
    body.push_str(&findings::section(findings));
    body.push_str(&run_section(results, t));
    for g in &results.groups {
        body.push_str(&groups::section(g, t));
    }
    body.push_str(&skipped_and_failed(results));
    let _ = writeln!(
        body,
        "<footer><h2>Thresholds</h2><p class=\"muted\">{}</p></footer>",
        escape(&thresholds_line(t))
    );
    page(&format!("Bench report, {}", results.started_at), &body)
}

/// The matrix as the picture the run writes beside its report
/// (`glance.svg`): a bar per ranked cell, for a reader who takes it in
/// better that way, or prints the page in grey.
fn glance_picture(glance: &crate::glance::Glance) -> String {
    if glance.rows.is_empty() {
        return String::new();
    }
    format!(
        "<section id=\"glance-picture\">\n<h2>The matrix as a picture</h2>\n<p class=\"muted\">The same matrix, bars for the figures (also <code>{}</code> beside this report).</p>\n<div class=\"charts\">\n{}</div>\n</section>\n",
        crate::charts::GLANCE_SVG,
        crate::charts::glance_chart(glance)
    )
}

/// The title and what run this is.
fn header(results: &RunResults) -> String {
    let commit = results.source.as_ref().map_or(String::new(), |s| {
        format!(
            " · commit <code>{}</code>{}",
            escape(&s.commit.chars().take(12).collect::<String>()),
            if s.uncommitted_changes {
                " with uncommitted changes"
            } else {
                ""
            }
        )
    });
    let interrupted = if results.interrupted {
        "<p class=\"verdict not-held\">INTERRUPTED: the run was stopped; these are the columns measured before it</p>\n"
    } else {
        ""
    };
    format!(
        "<header>\n<h1>Blocking vs async, measured</h1>\n<p class=\"muted\">Profile {profile} · started {started} · {wall:.0} s{commit}</p>\n{interrupted}</header>\n",
        profile = escape(&results.settings.profile),
        started = escape(&results.started_at),
        wall = results.wall_seconds,
    )
}

/// Machine, settings and quietness, a line each; the disturbed windows folded.
fn run_section(results: &RunResults, t: &Thresholds) -> String {
    let q = quiet(results, t);
    let mut out = format!(
        "<section class=\"run\" id=\"run\">\n<h2>The run</h2>\n<p><b>Machine:</b> {}</p>\n<p><b>Settings:</b> {}</p>\n<p><b>Quiet:</b> {}</p>\n",
        escape(&machine_line(results)),
        escape(&settings_line(results)),
        escape(&q.headline),
    );
    if !q.affected.is_empty() {
        let list: String = q
            .affected
            .iter()
            .map(|a| format!("<li>{}</li>", escape(a)))
            .collect();
        out.push_str(&fold(
            &format!("The {} disturbed windows", q.affected.len()),
            &format!("<ul>{list}</ul>\n"),
        ));
    }
    out.push_str("<p class=\"muted\">Each cell: the median over the rounds, ±spread where rounds vary (the farther end of the rounds' range, as a share of the median), then in brackets the median's ratio to the group's first column. Threads and RSS read idle (just after the server started) -> peak (within the measured window).</p>\n</section>\n");
    out
}

/// What was skipped and what failed, if anything.
fn skipped_and_failed(results: &RunResults) -> String {
    let failed = failure_lines(results);
    if results.skipped.is_empty() && failed.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section id=\"not-run\">\n<h2>Skipped and failed</h2>\n<ul>\n");
    for s in &results.skipped {
        let _ = writeln!(
            out,
            "<li>Skipped <b>{}</b>: {}</li>",
            escape(&s.group.to_string()),
            escape(&s.reason)
        );
    }
    for line in failed {
        let _ = writeln!(out, "<li><b>FAILED</b>: {}</li>", escape(&line));
    }
    out.push_str("</ul>\n</section>\n");
    out
}
