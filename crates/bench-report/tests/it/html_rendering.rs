//! report.html from fixed results: findings first, one row each with its
//! verdict badge and meaning; every chart inline; each load group's compact
//! table with its full table folded; nothing that would fetch anything.

use bench_analysis::findings::check;

use bench_model::THRESHOLDS;

use crate::saved_run as saved;

#[test]
fn findings_come_first_one_row_each_in_order_with_their_verdict() {
    let run = saved("seed-2026-12-02");
    let html = bench_report::html::render(&run.results, &run.findings, &run.thresholds);
    let findings_at = html.find("<section id=\"findings\">").unwrap();
    let first_group = html.find("<section class=\"group\"").unwrap();
    assert!(findings_at < first_group, "findings after the groups");
    let rows: Vec<&str> = html.split("<tr class=\"finding\"").skip(1).collect();
    assert_eq!(rows.len(), run.findings.len());
    // The predictions in the run's order, then the design checks apart.
    let (predictions, checks) = bench_report::headline::split(&run.findings);
    assert!(!predictions.is_empty() && !checks.is_empty());
    let order = predictions.iter().chain(&checks);
    for (row, f) in rows.iter().zip(order) {
        assert!(row.starts_with(&format!(" data-id=\"{}\"", f.id)), "{row}");
        let badge = format!(">{}</span>", f.verdict.word());
        assert!(row.contains(&badge), "{}: no {badge}", f.id);
    }
    let checks_at = html
        .find("<h3>What the build guarantees, checked</h3>")
        .unwrap();
    assert!(html.find(&format!("data-id=\"{}\"", checks[0].id)).unwrap() > checks_at);
    // The saved run's predictions, counted in the first summary.
    let held = predictions
        .iter()
        .filter(|f| f.verdict == bench_model::Verdict::Held)
        .count();
    let summary = html.split("<p class=\"summary\">").nth(1).unwrap();
    assert!(
        summary.starts_with(&format!("<span class=\"held\">{held} HELD</span>")),
        "{summary}"
    );
}

#[test]
fn every_chart_is_inline_and_every_load_group_folds_its_full_table() {
    let run = saved("seed-2026-12-02");
    let html = bench_report::html::render(&run.results, &run.findings, &run.thresholds);
    let charts = bench_report::charts::all(&run.results);
    // Every group's charts, and the matrix as a picture.
    assert_eq!(html.matches("<svg ").count(), charts.len() + 1);
    assert_eq!(html.matches("class=\"chart\"").count(), charts.len());
    assert_eq!(html.matches("class=\"chart glance\"").count(), 1);
    let load_groups = run
        .results
        .groups
        .iter()
        .filter(|g| !g.columns.is_empty() && g.sweep.is_none())
        .count();
    assert_eq!(
        html.matches("<summary>Every figure of this group</summary>")
            .count(),
        load_groups
    );
    assert_eq!(
        html.matches("<table class=\"compact\">").count(),
        load_groups
    );
    // The compact table has the rows a reader compares first, and only those.
    let compact = html.split("<table class=\"compact\">").nth(1).unwrap();
    let compact = &compact[..compact.find("</table>").unwrap()];
    for row in [
        "Throughput (req/s)",
        "p99 (ms)",
        "Server CPU per request (us)",
    ] {
        assert!(compact.contains(&format!(">{row}</th>")), "{row}");
    }
    assert!(!compact.contains(">Min (ms)</th>"));
}

#[test]
fn the_page_fetches_nothing_and_says_whether_the_machine_was_quiet() {
    let run = saved("seed-2026-12-01");
    let html = bench_report::html::render(&run.results, &run.findings, &run.thresholds);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "a script");
    assert!(!html.contains("<link"), "a linked resource");
    assert!(!html.contains("<img"), "an image");
    // The only URL is SVG's namespace, which is a name, not a fetch.
    let urls = html.matches("http://").count() + html.matches("https://").count();
    assert_eq!(urls, html.matches("http://www.w3.org/2000/svg").count());
    // That run was not quiet in 7 windows: the headline says so, the list is folded.
    assert!(html.contains("WARNING: the machine was not quiet"));
    assert!(html.contains("<summary>The 7 disturbed windows</summary>"));
}

#[test]
fn a_finding_without_a_saved_sentence_reads_this_builds() {
    let run = saved("seed-2026-12-02");
    let findings = check(&run.results, &THRESHOLDS);
    let mut bare = findings.clone();
    for f in &mut bare {
        f.meaning.clear();
    }
    let html = bench_report::html::render(&run.results, &bare, &THRESHOLDS);
    // One that held or did not: INCONCLUSIVE and SAME say why when judged,
    // which a saved run without its sentence cannot.
    let f = findings
        .iter()
        .find(|f| {
            matches!(
                f.verdict,
                bench_model::Verdict::Held | bench_model::Verdict::NotHeld
            )
        })
        .unwrap();
    assert!(!f.meaning.is_empty());
    assert!(html.contains(&format!("<td class=\"meaning\">{}</td>", f.meaning)));
}
