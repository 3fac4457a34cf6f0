//! The run at a glance, as a reader's first screen shows it: every saved
//! run's report.html (rendered by `bench render`) opened in a real
//! headless Chromium at 1280 x 900 (`browser/`). The whole matrix
//! (`section#at-a-glance`) lies within that first screen, with a row per
//! workload the run measured (the rows bench-report's matrix makes of the
//! run's results.json, in order), the three model columns, and in every
//! measured cell a number, its figure the one the results give. A
//! screenshot of the first screen (`at-a-glance.png`) is written beside
//! each report, and kept under the target dir's `report-screenshots/`.
//!
//! The check is tried first on the latest seed run's report as rendered,
//! then broken one way at a time, so that each of its assertions is seen
//! to fail. Last, `bench compare` of that run against itself with one
//! verdict changed: in Chromium its page marks that row and no other.
//!
//! Needs Chromium, as report_in_browser.rs says: `#[ignore]`d, run with
//! `cargo test -p bench --test it glance_in_browser -- --include-ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bench_report::glance::{self, Cell};
use serde_json::Value;

use crate::browser::Browser;
use crate::common::{target_dir, workspace_root};

/// A laptop's first screen, in CSS pixels.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 900;

/// The run with the most workloads, whose matrix is the tallest.
const LATEST: &str = "seed-2026-12-03";

/// What one row of the page must show: its group, and per model (in
/// order) the figure its cell must show, `None` for a cell not measured.
#[derive(Debug)]
struct ExpectedRow {
    group: String,
    cells: Vec<(String, Option<String>)>,
}

/// The rows the matrix of the run in `results_json` has, from the run alone.
fn expected_rows(results_json: &Path) -> Vec<ExpectedRow> {
    let saved = bench::output::saved::read(results_json).unwrap();
    let g = glance::build(&saved.results, &saved.findings, &saved.thresholds);
    g.rows
        .iter()
        .map(|r| ExpectedRow {
            group: r.workload.group.to_string(),
            cells: r
                .cells
                .iter()
                .map(|(model, c)| {
                    let shown = match c {
                        Cell::Best { pick, .. } | Cell::OnlyByDesign(pick) => {
                            Some(glance::words::figure(r.figure, pick.measure.main.median))
                        }
                        Cell::Missing { .. } => None,
                    };
                    (model.slug().to_owned(), shown)
                })
                .collect(),
        })
        .collect()
}

/// `bench render` of a saved run into `out`; the report's path.
fn render(results_json: &Path, out: &Path) -> PathBuf {
    crate::common::render(results_json, out)
}

/// The matrix as the open page lays it out.
const READ_MATRIX: &str = "(() => {
    const s = document.getElementById('at-a-glance');
    if (!s) return null;
    const b = s.getBoundingClientRect();
    return {
        box: { top: b.top, left: b.left, bottom: b.bottom, right: b.right },
        models: Array.from(s.querySelectorAll('thead th.model'), th => th.dataset.model),
        rows: Array.from(s.querySelectorAll('tr.glance-row'), tr => ({
            group: tr.dataset.group,
            cells: Array.from(tr.querySelectorAll('td.cell'), td => ({
                model: td.dataset.model,
                measured: td.classList.contains('measured'),
                text: td.innerText.replace(/\\s+/g, ' ').trim(),
            })),
        })),
    };
})()";

/// Every problem the open page's matrix has against `expected`.
fn problems_with(browser: &mut Browser, report: &Path, expected: &[ExpectedRow]) -> Vec<String> {
    browser.open(report);
    let m = browser.evaluate(READ_MATRIX);
    if m.is_null() {
        return vec!["no section#at-a-glance in the page".to_owned()];
    }
    let mut problems = Vec::new();
    let edge = |k: &str| m["box"][k].as_f64().unwrap_or(f64::NAN);
    if !(edge("top") >= 0.0 && edge("left") >= 0.0) {
        problems.push(format!(
            "the matrix starts at ({}, {}), off the screen",
            edge("left"),
            edge("top")
        ));
    }
    if !(edge("bottom") <= f64::from(HEIGHT) && edge("right") <= f64::from(WIDTH)) {
        problems.push(format!(
            "the matrix ends at ({}, {}) px, beyond the first screen's {WIDTH} x {HEIGHT}",
            edge("right"),
            edge("bottom")
        ));
    }
    let models: Vec<&str> = m["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if models != ["thread-pool", "event-loop", "virtual-threads"] {
        problems.push(format!("the model columns are {models:?}"));
    }
    let rows = m["rows"].as_array().unwrap();
    let groups: Vec<&str> = rows.iter().filter_map(|r| r["group"].as_str()).collect();
    let wanted: Vec<&str> = expected.iter().map(|r| r.group.as_str()).collect();
    if groups != wanted {
        problems.push(format!(
            "the rows are {groups:?}, the run's workloads {wanted:?}"
        ));
    }
    for want in expected {
        if let Some(row) = rows.iter().find(|r| r["group"] == want.group.as_str()) {
            problems.extend(cell_problems(row, want));
        }
    }
    problems
}

/// One row's cells against what the run says they show.
fn cell_problems(row: &Value, want: &ExpectedRow) -> Vec<String> {
    let cells = row["cells"].as_array().unwrap();
    let models: Vec<&str> = cells.iter().filter_map(|c| c["model"].as_str()).collect();
    let wanted: Vec<&str> = want.cells.iter().map(|c| c.0.as_str()).collect();
    if models != wanted {
        return vec![format!("row {}: cells {models:?}", want.group)];
    }
    let mut problems = Vec::new();
    for (cell, (model, figure)) in cells.iter().zip(&want.cells) {
        let text = cell["text"].as_str().unwrap_or_default();
        let Some(figure) = figure else { continue };
        if !cell["measured"].as_bool().unwrap_or(false)
            || !text.contains(|c: char| c.is_ascii_digit())
        {
            problems.push(format!(
                "cell {}/{model} is measured but shows no number: {text:?}",
                want.group
            ));
        } else if !text.contains(figure.as_str()) {
            problems.push(format!(
                "cell {}/{model} shows {text:?}, not {figure:?}: it differs from results.json",
                want.group
            ));
        }
    }
    problems
}

/// Opens `report` at the first screen's size, checks its matrix, writes
/// `at-a-glance.png` beside it and to `keep`, then fails with every problem.
fn check_first_screen(report: &Path, results_json: &Path, keep: &Path) {
    let mut browser = Browser::launch();
    browser.set_viewport(WIDTH, HEIGHT);
    let problems = problems_with(&mut browser, report, &expected_rows(results_json));
    let png = browser.first_screen_screenshot();
    for path in [report.with_file_name("at-a-glance.png"), keep.to_path_buf()] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &png).unwrap();
    }
    eprintln!(
        "{}: first screen written to {}",
        report.display(),
        keep.display()
    );
    assert!(
        problems.is_empty(),
        "{}:\n  {}",
        report.display(),
        problems.join("\n  ")
    );
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn every_saved_runs_matrix_fits_the_first_screen() {
    let docs = workspace_root().join("docs/results");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("results.json").is_file())
        .collect();
    runs.sort();
    assert!(runs.iter().any(|r| r.ends_with(LATEST)));
    for run in runs {
        let results = run.join("results.json");
        // A run of the calibration groups alone has no workload row: its
        // Java columns are the calibration table below the matrix.
        if expected_rows(&results).is_empty() {
            continue;
        }
        let out = tempfile::tempdir().unwrap();
        let report = render(&results, out.path());
        let name = run.file_name().unwrap().to_string_lossy().into_owned();
        let keep = target_dir()
            .join("report-screenshots")
            .join(format!("at-a-glance-{name}.png"));
        check_first_screen(&report, &results, &keep);
    }
}

/// Each assertion of the check, made to fail by one edit of the latest
/// run's report: (what, the edit, a part of the problem it must report).
type Break = (&'static str, fn(&str) -> String, &'static str);

fn breaks() -> Vec<Break> {
    vec![
        (
            "a matrix taller than the first screen",
            |s| {
                s.replacen(
                    "</style>",
                    "table.glance td.cell a { padding-bottom: 40px; }\n</style>",
                    1,
                )
            },
            "beyond the first screen",
        ),
        (
            "a workload without its row",
            |s| {
                let at = s.find("<tr class=\"glance-row\"").unwrap();
                let end = at + s[at..].find("</tr>").unwrap() + "</tr>".len();
                format!("{}{}", &s[..at], &s[end..])
            },
            "the rows are",
        ),
        (
            "a model column missing",
            |s| {
                s.replacen(
                    "data-model=\"virtual-threads\"",
                    "data-model=\"green-threads\"",
                    1,
                )
            },
            "the model columns are",
        ),
        (
            "a measured cell without a number",
            |s| {
                let at = s.find("<td class=\"cell measured").unwrap();
                let end = at + s[at..].find("</td>").unwrap();
                format!(
                    "{}<td class=\"cell measured\" data-model=\"thread-pool\">n/a{}",
                    &s[..at],
                    &s[end..]
                )
            },
            "shows no number",
        ),
        (
            "a figure that is not the run's",
            |s| s.replacen("706 req/s", "760 req/s", 1),
            "differs from results.json",
        ),
    ]
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn each_break_of_the_matrix_fails_the_check() {
    let out = tempfile::tempdir().unwrap();
    let results = workspace_root().join(format!("docs/results/{LATEST}/results.json"));
    let report = render(&results, out.path());
    let expected = expected_rows(&results);
    let mut browser = Browser::launch();
    browser.set_viewport(WIDTH, HEIGHT);
    assert_eq!(
        problems_with(&mut browser, &report, &expected),
        Vec::<String>::new()
    );
    let page = std::fs::read_to_string(&report).unwrap();
    let mut missed = Vec::new();
    for (n, (what, edit, wanted)) in breaks().into_iter().enumerate() {
        let broken = edit(&page);
        assert_ne!(broken, page, "{what}: the edit changes nothing");
        let file = out.path().join(format!("broken-{n}.html"));
        std::fs::write(&file, broken).unwrap();
        let problems = problems_with(&mut browser, &file, &expected);
        eprintln!("{what}:\n  {}", problems.join("\n  "));
        if !problems.iter().any(|p| p.contains(wanted)) {
            missed.push(format!(
                "{what}: no problem says {wanted:?}; seen {problems:?}"
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "breaks the check missed:\n{}",
        missed.join("\n")
    );
}

#[test]
#[ignore = "needs chromium: apt-get install chromium (or name one in $CHROMIUM)"]
fn compare_marks_the_row_whose_verdict_changed() {
    let dir = tempfile::tempdir().unwrap();
    let saved = workspace_root().join(format!("docs/results/{LATEST}/results.json"));
    let old = dir.path().join("old.json");
    std::fs::copy(&saved, &old).unwrap();
    let mut json: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let finding = crate::common::finding_mut(&mut json, |f| f["id"] == "cache-async-wins");
    assert_eq!(finding["verdict"], "HELD");
    finding["verdict"] = Value::from("NOT HELD");
    let new = dir.path().join("new.json");
    std::fs::write(&new, serde_json::to_string(&json).unwrap()).unwrap();
    let out = dir.path().join("compared");
    let status = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args([
            "compare".as_ref(),
            old.as_os_str(),
            new.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "a flipped finding exits 1");

    let mut browser = Browser::launch();
    browser.set_viewport(WIDTH, HEIGHT);
    browser.open(&out.join("compare.html"));
    let rows = browser.evaluate(
        "Array.from(document.querySelectorAll('#at-a-glance tr.glance-row'), tr => ({
            group: tr.dataset.group,
            marked: tr.classList.contains('changed-verdict'),
            cells: Array.from(tr.querySelectorAll('td.changed'), td => td.innerText.replace(/\\s+/g, ' ').trim()),
        }))",
    );
    let png = browser.first_screen_screenshot();
    std::fs::write(out.join("compare.png"), &png).unwrap();
    let kept = target_dir().join("report-screenshots");
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::write(kept.join("compare-changed-verdict.png"), &png).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), expected_rows(&saved).len());
    let marked: Vec<&str> = rows
        .iter()
        .filter(|r| r["marked"] == true || !r["cells"].as_array().unwrap().is_empty())
        .filter_map(|r| r["group"].as_str())
        .collect();
    assert_eq!(marked, ["cache"], "{rows:?}");
    let cache = rows.iter().find(|r| r["group"] == "cache").unwrap();
    assert_eq!(cache["marked"], true);
    let cells = cache["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{cache:?}");
    assert!(cells[0].as_str().unwrap().contains("NOT HELD"), "{cache:?}");
}
