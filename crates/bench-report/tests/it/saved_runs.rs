//! Every run saved under docs/results reads with this build (a change of
//! results.json's shape that an old run cannot be read under fails here
//! first) and renders from bench-report alone: the report files a run has,
//! none of them a results.json (the saved one is the record), the report
//! showing every finding the run was saved with, with its verdict, and
//! opening with the run at a glance (a row per workload it measured); and
//! judged again by this build's rules, it renders as well. No rendered
//! file names an issue of the project's tracker by number.

use bench_model::GroupId;

use crate::{read_run, saved_runs};

#[test]
fn every_saved_run_renders_with_the_findings_it_was_saved_with() {
    let runs = saved_runs();
    assert!(runs.len() >= 3, "found only {runs:?}");
    for results in runs {
        let saved = read_run(&results);
        let files =
            bench_report::files::report_files(&saved.results, &saved.findings, &saved.thresholds);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[..2], ["report.md", "report.html"], "{names:?}");
        assert!(
            names.iter().skip(2).all(|n| n.ends_with(".svg")),
            "{names:?}"
        );
        assert!(
            names.len() >= 2 + saved.results.groups.len(),
            "{}: a chart per group at least: {names:?}",
            results.display()
        );
        let report = &files[0].1;
        assert!(!saved.findings.is_empty());
        for f in &saved.findings {
            let row = format!("| {} | {} |", f.verdict.word(), f.claim);
            assert!(report.contains(&row), "{}: no row {row}", results.display());
        }
        let text = bench_report::text::render(&saved.results, &saved.findings, &saved.thresholds);
        assert!(text.contains(&saved.findings[0].claim), "{text}");
        // What a reader sees says why in words: no tracker numbers, even
        // in a run saved when its seed fields still had them.
        for (name, content) in files.iter().chain([&("terminal".to_owned(), text.clone())]) {
            let lower = content.to_ascii_lowercase();
            let numbered = lower.match_indices("issue ").find(|(at, _)| {
                lower[at + "issue ".len()..].starts_with(|c: char| c.is_ascii_digit() || c == '#')
            });
            assert!(
                numbered.is_none(),
                "{}: {name} names an issue number: {}",
                results.display(),
                lower[numbered.map_or(0, |(at, _)| at)..]
                    .chars()
                    .take(60)
                    .collect::<String>()
            );
        }
        // Every saved finding has a kind, its own or this build's for its id.
        for f in &saved.findings {
            assert!(
                bench_analysis::findings::kind_of(f).is_some(),
                "{}: {} has no kind",
                results.display(),
                f.id
            );
        }
        // It opens with the run at a glance: a row per workload of the
        // matrix the run measured, each with the three models; the text
        // of it within 100 columns.
        let g = bench_report::glance::build(&saved.results, &saved.findings, &saved.thresholds);
        let measured: Vec<GroupId> = saved
            .results
            .groups
            .iter()
            .map(|g| g.id)
            .filter(|id| bench_report::glance::workloads::of_group(*id).is_some())
            .collect();
        // A run of the calibration groups alone has no row: its Java
        // columns are the glance's calibration table.
        assert!(
            !measured.is_empty() || !g.calibration.is_empty(),
            "{}",
            results.display()
        );
        let rows: Vec<GroupId> = g.rows.iter().map(|r| r.workload.group).collect();
        assert_eq!(rows.len(), measured.len(), "{}", results.display());
        assert!(measured.iter().all(|id| rows.contains(id)));
        let html = &files[1].1;
        let glance_at = html.find("<section id=\"at-a-glance\">").unwrap();
        assert!(glance_at < html.find("<section id=\"findings\">").unwrap());
        assert_eq!(
            html.matches("<tr class=\"glance-row\"").count(),
            rows.len(),
            "{}",
            results.display()
        );
        for line in bench_report::glance::text::render(&g).lines() {
            assert!(line.chars().count() <= 100, "{}: {line}", results.display());
        }
        // Judged again by this build from its rounds, it renders too, the
        // predictions counted in the headline.
        let again = bench_analysis::findings::check(&saved.results, &saved.thresholds);
        let text = bench_report::text::render(&saved.results, &again, &saved.thresholds);
        assert!(text.contains("\nPredictions: "), "{text}");
    }
}
