//! bench's HTML report (`report.html`) opened in a real headless Chromium,
//! driven over the DevTools protocol (`browser/`), and checked as a reader's
//! browser shows it: it loads from disk with no console error, uncaught
//! exception or browser error; it fetches nothing (a self-contained report:
//! inline CSS and SVG only); every `svg.chart` is drawn at a non-zero size;
//! and its findings table has one `tr.finding` per finding of the run's
//! results.json, in order, each with its id and a `.verdict` badge saying
//! the finding's verdict. A full-page screenshot (`report.png`, 1280 px
//! wide) is written beside each report checked, failing or not.
//!
//! The check is tried first on a hand-written sample report
//! (`fixtures/html/sample-report.html`, not bench's output), as is, then
//! broken one way at a time, so that each of its assertions is seen to fail.
//!
//! Needs Chromium: /usr/bin/chromium (`apt-get install -y chromium`) or the
//! one named by `$CHROMIUM`. Every test here is `#[ignore]`d for that, so a
//! plain `cargo test` skips them; `cargo test -p bench --test it
//! report_in_browser -- --include-ignored` runs them, and each fails when
//! Chromium cannot be started.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::browser::Browser;
use crate::common::{target_dir, workspace_root};

/// The layout width the report is checked and photographed at: a laptop's.
const VIEWPORT_WIDTH: u32 = 1280;

/// The saved run whose report every test run renders and checks.
const SAVED_RUN: &str = "seed-2026-12-02";

/// A finding as results.json records it: what its row must show.
#[derive(Debug)]
struct Finding {
    id: String,
    verdict: String,
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn a_saved_seed_run_renders_in_chromium() {
    let saved = workspace_root().join(format!("docs/results/{SAVED_RUN}/results.json"));
    let out = tempfile::tempdir().unwrap();

    let report = crate::common::render(&saved, out.path());
    assert!(
        report.is_file(),
        "bench render wrote no report.html into {}",
        out.path().display()
    );

    // Kept where a person can look at it after the run (the temporary
    // folder with the report goes away with the test).
    let kept = target_dir()
        .join("report-screenshots")
        .join(format!("{SAVED_RUN}.png"));
    check_report(&report, &saved, &[kept]);
}

/// CI's check of the report its quick run has just written: `.ci/run` names
/// that run's report.html in `BENCH_REPORT_HTML`, and the results.json
/// beside it gives the findings. With the variable unset (a plain
/// `cargo test -- --include-ignored`) there is no fresh run to check, and
/// the saved seed run's report, rendered anew, stands in for it.
#[test]
#[ignore = "needs chromium: apt-get install chromium (BENCH_REPORT_HTML names the report to check, .ci/run sets it)"]
fn the_report_named_by_bench_report_html_renders_in_chromium() {
    let Some(report) = std::env::var_os("BENCH_REPORT_HTML") else {
        return a_saved_seed_run_renders_in_chromium();
    };
    let report = PathBuf::from(report);
    assert!(
        report.is_file(),
        "BENCH_REPORT_HTML names {}, which is not a file",
        report.display()
    );
    check_report(&report, &report.with_file_name("results.json"), &[]);
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn the_sample_report_passes_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let (report, results) = (
        dir.path().join("report.html"),
        dir.path().join("results.json"),
    );
    std::fs::copy(fixture("sample-report.html"), &report).unwrap();
    std::fs::copy(fixture("sample-results.json"), &results).unwrap();

    check_report(&report, &results, &[]);

    let png = std::fs::read(dir.path().join("report.png")).unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "report.png is no PNG"
    );
}

/// One way to break the sample, and a part of the problem the check must
/// then report.
struct Break {
    what: &'static str,
    edit: fn(&str) -> String,
    expected: &'static str,
}

/// Each assertion of the check, made to fail by one edit of the sample.
#[allow(
    clippy::too_many_lines,
    reason = "a declarative table: one break per entry"
)]
fn breaks() -> Vec<Break> {
    vec![
        Break {
            what: "an image from elsewhere",
            edit: |s| {
                s.replace(
                    "<h2>Charts</h2>",
                    "<h2>Charts</h2><img src=\"https://example.com/logo.png\" alt=\"\">",
                )
            },
            expected: "requested https://example.com/logo.png",
        },
        Break {
            what: "a file that cannot load",
            edit: |s| {
                s.replace(
                    "<h2>Charts</h2>",
                    "<h2>Charts</h2><img src=\"missing.png\" alt=\"\">",
                )
            },
            expected: "browser error: Failed to load resource",
        },
        Break {
            what: "a chart drawn at no size",
            edit: |s| {
                s.replace(
                    "aria-label=\"Baseline p99\"",
                    "aria-label=\"Baseline p99\" style=\"display: none\"",
                )
            },
            expected: "svg.chart `Baseline p99` is drawn at 0x0 px",
        },
        Break {
            what: "no chart at all",
            edit: |s| s.replace("<svg class=\"chart\"", "<svg class=\"figure\""),
            expected: "no svg.chart",
        },
        Break {
            what: "a finding without its row",
            edit: |s| {
                s.replace(
                    "<tr class=\"finding\" data-id=\"baseline-async-wins\">",
                    "<tr>",
                )
            },
            expected: "no row tr.finding for finding `baseline-async-wins`",
        },
        Break {
            what: "rows out of order",
            edit: |s| {
                swap_lines(
                    s,
                    "data-id=\"cpu-offload-recovers\"",
                    "data-id=\"db-async-driver-wins\"",
                )
            },
            expected: "rows are not in results.json's order",
        },
        Break {
            what: "a wrong verdict",
            edit: |s| s.replace(">NOT HELD</span>", ">HELD</span>"),
            expected: "row `db-async-driver-wins` says `HELD`, results.json says `NOT HELD`",
        },
        Break {
            what: "a row without its badge",
            edit: |s| s.replace("<span class=\"verdict inconclusive\">", "<span>"),
            expected: "row `baseline-async-wins` has no .verdict badge",
        },
        Break {
            what: "a script that throws",
            edit: |s| {
                s.replace(
                    "</body>",
                    "<script>throw new Error(\"a sample break\")</script></body>",
                )
            },
            expected: "uncaught exception: Error: a sample break",
        },
        Break {
            what: "a console error",
            edit: |s| {
                s.replace(
                    "</body>",
                    "<script>console.error(\"a sample break\")</script></body>",
                )
            },
            expected: "console error: a sample break",
        },
    ]
}

/// `text` with its lines containing `a` and `b` swapped.
fn swap_lines(text: &str, a: &str, b: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let line_of = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap();
    let (a, b) = (line_of(a), line_of(b));
    lines.swap(a, b);
    lines.join("\n")
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn each_break_of_the_sample_fails_the_check() {
    let sample = std::fs::read_to_string(fixture("sample-report.html")).unwrap();
    let findings = findings_of(&fixture("sample-results.json"));
    let dir = tempfile::tempdir().unwrap();
    let mut browser = Browser::launch();
    browser.set_viewport_width(VIEWPORT_WIDTH);
    assert_eq!(
        problems_with(&mut browser, &fixture("sample-report.html"), &findings),
        Vec::<String>::new(),
        "the unbroken sample must pass, or no break below shows anything"
    );

    let mut missed = Vec::new();
    for (n, case) in breaks().iter().enumerate() {
        let broken = (case.edit)(&sample);
        assert_ne!(broken, sample, "{}: the edit changes nothing", case.what);
        let report = dir.path().join(format!("broken-{n}.html"));
        std::fs::write(&report, broken).unwrap();
        let problems = problems_with(&mut browser, &report, &findings);
        eprintln!("{}:\n  {}", case.what, problems.join("\n  "));
        if !problems.iter().any(|p| p.contains(case.expected)) {
            missed.push(format!(
                "{}: no problem says {:?}; seen: {problems:?}",
                case.what, case.expected
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "breaks the check missed:\n{}",
        missed.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

/// Opens `report` in a fresh Chromium at 1280 px, checks it against the
/// findings of `results_json`, writes the full-page screenshot `report.png`
/// beside it (and to each of `copies`) whatever the outcome, then fails
/// with every problem found.
fn check_report(report: &Path, results_json: &Path, copies: &[PathBuf]) {
    let findings = findings_of(results_json);
    let started = Instant::now();
    let mut browser = Browser::launch();
    browser.set_viewport_width(VIEWPORT_WIDTH);
    let launched = started.elapsed();
    let problems = problems_with(&mut browser, report, &findings);
    let checked = started.elapsed();

    let png = browser.full_page_screenshot();
    let screenshot = report.with_file_name("report.png");
    for path in std::iter::once(&screenshot).chain(copies) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, &png).unwrap();
    }
    eprintln!(
        "{}: chromium up in {launched:.2?}, checked in {:.2?}, screenshot ({} KiB) in {:.2?}; \
         written to {}",
        report.display(),
        checked - launched,
        png.len() / 1024,
        started.elapsed() - checked,
        std::iter::once(&screenshot)
            .chain(copies)
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(
        problems.is_empty(),
        "{} fails in chromium:\n  {}",
        report.display(),
        problems.join("\n  ")
    );
}

/// Every problem the open report shows in `browser`, none when it passes.
fn problems_with(browser: &mut Browser, report: &Path, findings: &[Finding]) -> Vec<String> {
    let url = browser.open(report);
    let mut problems = chart_problems(browser);
    problems.extend(finding_row_problems(browser, findings));

    let record = browser.record();
    let errors = [
        ("console error", record.console_errors),
        ("uncaught exception", record.exceptions),
        ("browser error", record.log_errors),
    ];
    for (kind, messages) in errors {
        problems.extend(messages.into_iter().map(|m| format!("{kind}: {m}")));
    }
    problems.extend(
        record
            .requests
            .into_iter()
            .filter(|request| *request != url)
            .map(|request| format!("requested {request}: a self-contained report fetches nothing")),
    );
    problems
}

/// Every `svg.chart` must take room on the page, and there must be one.
fn chart_problems(browser: &mut Browser) -> Vec<String> {
    let charts = browser.evaluate(
        "Array.from(document.querySelectorAll('svg.chart'), (svg, i) => {
            const box = svg.getBoundingClientRect();
            const title = svg.querySelector('title');
            const name = svg.getAttribute('aria-label') || (title && title.textContent) || svg.id;
            return { name: name || `number ${i + 1}`, width: box.width, height: box.height };
        })",
    );
    let charts = charts.as_array().cloned().unwrap_or_default();
    if charts.is_empty() {
        return vec!["no svg.chart in the report: a run's report has charts".to_string()];
    }
    charts
        .iter()
        .filter(|c| !(c["width"].as_f64() > Some(0.0) && c["height"].as_f64() > Some(0.0)))
        .map(|c| {
            format!(
                "svg.chart `{}` is drawn at {}x{} px",
                c["name"].as_str().unwrap_or_default(),
                c["width"],
                c["height"]
            )
        })
        .collect()
}

/// The findings table against results.json: one `tr.finding` per finding,
/// in order, `data-id` its id, a `.verdict` badge whose text (white space
/// collapsed) is its verdict.
fn finding_row_problems(browser: &mut Browser, findings: &[Finding]) -> Vec<String> {
    let rows = browser.evaluate(
        "Array.from(document.querySelectorAll('tr.finding'), tr => {
            const badge = tr.querySelector('.verdict');
            return {
                id: tr.getAttribute('data-id'),
                verdict: badge && badge.textContent.replace(/\\s+/g, ' ').trim(),
            };
        })",
    );
    let rows: Vec<(Option<String>, Option<String>)> = rows
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| (string(&r["id"]), string(&r["verdict"])))
        .collect();

    let mut problems = row_set_problems(&rows, findings);
    let ids: Vec<Option<&str>> = rows.iter().map(|(id, _)| id.as_deref()).collect();
    let expected: Vec<Option<&str>> = findings.iter().map(|f| Some(f.id.as_str())).collect();
    if problems.is_empty() && ids != expected {
        problems.push(format!(
            "rows are not in results.json's order: {ids:?}, expected {expected:?}"
        ));
    }
    for (id, verdict) in &rows {
        let Some(finding) = findings.iter().find(|f| Some(&f.id) == id.as_ref()) else {
            continue;
        };
        match verdict {
            None => problems.push(format!("row `{}` has no .verdict badge", finding.id)),
            Some(v) if *v != finding.verdict => problems.push(format!(
                "row `{}` says `{v}`, results.json says `{}`",
                finding.id, finding.verdict
            )),
            Some(_) => {}
        }
    }
    problems
}

/// The rows as a set against the findings: the count, a row for every
/// finding, no row twice and none that is no finding.
fn row_set_problems(
    rows: &[(Option<String>, Option<String>)],
    findings: &[Finding],
) -> Vec<String> {
    let mut problems = Vec::new();
    if rows.len() != findings.len() {
        problems.push(format!(
            "the findings table has {} rows tr.finding, results.json {} findings",
            rows.len(),
            findings.len()
        ));
    }
    for finding in findings {
        match rows
            .iter()
            .filter(|(id, _)| id.as_ref() == Some(&finding.id))
            .count()
        {
            0 => problems.push(format!("no row tr.finding for finding `{}`", finding.id)),
            1 => {}
            n => problems.push(format!("{n} rows tr.finding for finding `{}`", finding.id)),
        }
    }
    for (id, _) in rows {
        match id {
            None => problems.push("a row tr.finding without data-id".to_string()),
            Some(id) if !findings.iter().any(|f| f.id == *id) => {
                problems.push(format!("row `{id}` is no finding of results.json"));
            }
            Some(_) => {}
        }
    }
    problems
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

/// The `findings` of a results.json, each with one of the model's verdicts, in
/// the report's order: the predictions as saved, then the design checks
/// (a run saved before kinds gets this build's kind of each id).
fn findings_of(results_json: &Path) -> Vec<Finding> {
    let text = std::fs::read_to_string(results_json)
        .unwrap_or_else(|e| panic!("reading {}: {e}", results_json.display()));
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("parsing {}: {e}", results_json.display()));
    let findings = json["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{} has no findings array", results_json.display()));
    let is_design_check = |f: &serde_json::Value| match f["kind"].as_str() {
        Some(kind) => kind == "design_check",
        // A finding saved before kinds: this build's kind of its id.
        None => {
            serde_json::from_value::<bench_model::Finding>(f.clone())
                .ok()
                .and_then(|saved| bench_analysis::findings::kind_of(&saved))
                == Some(bench_model::FindingKind::DesignCheck)
        }
    };
    let (mut ordered, design_checks): (Vec<&serde_json::Value>, Vec<&serde_json::Value>) =
        findings.iter().partition(|f| !is_design_check(f));
    ordered.extend(design_checks);
    ordered
        .into_iter()
        .map(|f| {
            let finding = Finding {
                id: string(&f["id"]).expect("a finding has an id"),
                verdict: string(&f["verdict"]).expect("a finding has a verdict"),
            };
            // The model's own words, so a new verdict needs no edit here.
            let known: Result<bench_model::Verdict, _> =
                serde_json::from_value(f["verdict"].clone());
            assert!(
                known.is_ok(),
                "finding {} of {} has the verdict {:?}, not one of the model's",
                finding.id,
                results_json.display(),
                finding.verdict
            );
            finding
        })
        .collect()
}

fn string(value: &serde_json::Value) -> Option<String> {
    value.as_str().map(str::to_string)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/html")
        .join(name)
}
