//! The comparison from fixed runs: the saved seed runs under docs/results,
//! read as `bench compare` reads them, then edited one field at a time so
//! each case differs from its base in exactly what it tests.

use bench_model::SavedRun;
use bench_model::{ColumnId, GroupId};
use bench_model::{GroupResult, IdleServer};
use bench_model::{Spread, Verdict};
use bench_report::compare::*;

use crate::saved_run as seed;

fn first() -> SavedRun {
    seed("seed-2026-12-01")
}

fn second() -> SavedRun {
    seed("seed-2026-12-02")
}

fn cmp(old: &SavedRun, new: &SavedRun) -> Comparison {
    compare(old, new, ("old/results.json", "new/results.json"))
}

fn finding<'a>(c: &'a Comparison, id: &str) -> &'a FindingChange {
    c.findings.iter().find(|f| f.id == id).unwrap()
}

fn set_verdict(run: &mut SavedRun, id: &str, v: Verdict) {
    run.findings
        .iter_mut()
        .find(|f| f.id == id)
        .unwrap()
        .verdict = v;
}

fn group(run: &mut SavedRun, id: GroupId) -> &mut GroupResult {
    run.results.groups.iter_mut().find(|g| g.id == id).unwrap()
}

fn rows<'a>(c: &'a Comparison, column: &str) -> Vec<&'a FigureChange> {
    c.groups
        .iter()
        .flat_map(|g| &g.rows)
        .filter(|r| r.column == column)
        .collect()
}

fn row<'a>(c: &'a Comparison, column: &str, figure: Figure) -> &'a FigureChange {
    rows(c, column)
        .into_iter()
        .find(|r| r.figure == figure)
        .unwrap()
}

#[test]
fn a_flip_between_held_and_not_held_is_what_exits_1() {
    let old = first();
    let same = cmp(&old, &old);
    assert!(same.flipped().is_empty());
    assert!(same.findings.iter().all(|f| f.change == Change::Unchanged));

    let mut new = old.clone();
    set_verdict(&mut new, "cpu-offload-recovers", Verdict::NotHeld);
    set_verdict(&mut new, "mixed-cpu", Verdict::Inconclusive);
    let c = cmp(&old, &new);
    let flipped: Vec<&str> = c.flipped().iter().map(|f| f.id.as_str()).collect();
    assert_eq!(flipped, ["cpu-offload-recovers"]);
    assert_eq!(
        finding(&c, "cpu-offload-recovers").change.describe(),
        "flipped: HELD -> NOT HELD"
    );
    // Losing the decision is a change, not a flip.
    assert_eq!(finding(&c, "mixed-cpu").change, Change::BecameInconclusive);
    assert!(text::render(&c)
        .contains("1 finding flipped between HELD and NOT HELD: cpu-offload-recovers"));
}

#[test]
fn every_pair_of_verdicts_has_its_change() {
    use Verdict::{Held, Inconclusive, NotHeld, NotMeasured, Same};
    let cases = [
        (Held, Held, "unchanged"),
        (NotHeld, Held, "flipped: NOT HELD -> HELD"),
        (Held, NotHeld, "flipped: HELD -> NOT HELD"),
        (Held, Inconclusive, "became INCONCLUSIVE"),
        (NotHeld, Inconclusive, "became INCONCLUSIVE"),
        (Inconclusive, NotHeld, "now decided"),
        (Inconclusive, Held, "now decided"),
        (NotMeasured, Held, "now measured"),
        (Inconclusive, NotMeasured, "no longer measured"),
        (NotMeasured, NotMeasured, "unchanged"),
        // A tie is an answer: from or to it is no flip, and no doubt.
        (Held, Same, "became SAME"),
        (NotHeld, Same, "became SAME"),
        (Same, Held, "no longer SAME"),
        (Same, Same, "unchanged"),
        (Inconclusive, Same, "now decided"),
        (Same, Inconclusive, "became INCONCLUSIVE"),
        (Same, NotMeasured, "no longer measured"),
    ];
    for (old, new, want) in cases {
        assert_eq!(Change::of(old, new).describe(), want, "{old:?} -> {new:?}");
    }
}

#[test]
fn findings_of_one_run_only_are_listed_as_such() {
    let mut old = first();
    let mut new = old.clone();
    new.findings.retain(|f| f.id != "mixed-sleep");
    old.findings.retain(|f| f.id != "cache-async-wins");
    let c = cmp(&old, &new);
    assert_eq!(finding(&c, "mixed-sleep").change, Change::OnlyInOld);
    assert!(finding(&c, "mixed-sleep").new.is_none());
    assert_eq!(finding(&c, "cache-async-wins").change, Change::OnlyInNew);
    assert!(finding(&c, "cache-async-wins").old.is_none());
    assert!(c.flipped().is_empty());
    let out = text::render(&c);
    let line = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap()
            .to_owned()
    };
    assert!(line("mixed-sleep").ends_with("only in OLD"), "{out}");
    assert!(line("cache-async-wins").ends_with("only in NEW"), "{out}");

    // The two seed runs: the findings added between them are the second's only.
    let c = cmp(&first(), &second());
    let only_new: Vec<&str> = c
        .findings
        .iter()
        .filter(|f| f.change == Change::OnlyInNew)
        .map(|f| f.id.as_str())
        .collect();
    assert!(only_new.contains(&"sweep-async-past-cap"), "{only_new:?}");
    assert!(
        only_new.contains(&"idle-nio-and-async-no-threads"),
        "{only_new:?}"
    );
    assert_eq!(c.findings.len(), 19 + only_new.len());
}

/// Scales a figure of every round of a column of `run`.
fn scale(
    run: &mut SavedRun,
    group_id: GroupId,
    column: ColumnId,
    f: impl Fn(&mut bench_model::RoundResult),
) {
    let c = group(run, group_id)
        .columns
        .iter_mut()
        .find(|c| c.id == column)
        .unwrap();
    c.rounds.iter_mut().for_each(f);
}

#[test]
fn a_column_changes_only_beyond_both_runs_round_ranges() {
    let old = first();
    let same = cmp(&old, &old);
    let r = row(&same, "blocking-cpu", Figure::Throughput);
    assert_eq!((r.word, r.relative()), (Word::WithinNoise, Some(0.0)));

    let mut new = old.clone();
    scale(&mut new, GroupId::Cpu, ColumnId::BlockingCpu, |r| {
        r.load.throughput_rps *= 2.0;
        r.load.successful_throughput_rps *= 2.0;
        r.load.latency_ms.p99 *= 2.0;
        r.server_process.cpu_seconds *= 0.5;
    });
    let c = cmp(&old, &new);
    let r = row(&c, "blocking-cpu", Figure::Throughput);
    assert_eq!(r.word, Word::Improved);
    assert_eq!(figures::describe_relative(r.relative()), "+100.0%");
    assert_eq!(row(&c, "blocking-cpu", Figure::P99).word, Word::Regressed);
    assert_eq!(
        row(&c, "blocking-cpu", Figure::CpuPerRequest).word,
        Word::Improved
    );
    assert_eq!(
        figures::describe_relative(row(&c, "blocking-cpu", Figure::CpuPerRequest).relative()),
        "-50.0%"
    );

    // Moved by half its own range: the median changed, the ranges overlap.
    let s = row(&same, "async-cpu", Figure::Throughput).old.unwrap();
    assert!(s.max > s.min, "{s:?}");
    let shift = (s.max - s.min) / 2.0;
    let mut nudged = old.clone();
    scale(&mut nudged, GroupId::Cpu, ColumnId::AsyncCpu, |r| {
        r.load.successful_throughput_rps += shift;
    });
    let r = row(&cmp(&old, &nudged), "async-cpu", Figure::Throughput).clone();
    assert_eq!(r.word, Word::WithinNoise);
    assert!(r.relative().unwrap() > 0.0);
}

#[test]
fn a_column_whose_requests_fail_faster_is_no_gain() {
    // Half its requests now fail, and fail fast: twice as many end each
    // second, half as many succeed. Throughput is the successful one.
    let old = first();
    let mut new = old.clone();
    scale(&mut new, GroupId::Cpu, ColumnId::BlockingCpu, |r| {
        r.load.throughput_rps *= 2.0;
        r.load.successful_throughput_rps *= 0.5;
    });
    let r = row(&cmp(&old, &new), "blocking-cpu", Figure::Throughput).clone();
    assert_eq!(r.word, Word::Regressed);
    assert_eq!(figures::describe_relative(r.relative()), "-50.0%");
}

#[test]
fn a_change_is_called_only_apart_and_beyond_the_margin() {
    let spread = |values: &[f64]| Spread::of(values.iter().copied());
    let word = |old: &[f64], new: &[f64]| {
        figures::judge(
            Figure::Throughput,
            spread(old).as_ref(),
            spread(new).as_ref(),
            0.05,
        )
    };
    assert_eq!(word(&[100.0, 110.0], &[120.0, 130.0]), Word::Improved);
    assert_eq!(word(&[120.0, 130.0], &[100.0, 110.0]), Word::Regressed);
    // Touching ends overlap.
    assert_eq!(word(&[100.0, 110.0], &[110.0, 130.0]), Word::WithinNoise);
    // Apart, but the medians 3% apart: under the findings' 5% margin.
    assert_eq!(word(&[100.0, 101.0], &[103.0, 104.0]), Word::BelowMargin);
    // One round a side has no spread to tell noise by.
    assert_eq!(word(&[100.0], &[200.0, 210.0]), Word::OneRound);
    assert_eq!(
        figures::judge(Figure::P99, None, spread(&[1.0, 2.0]).as_ref(), 0.05),
        Word::NotMeasured
    );
    // Latency, CPU and memory are costs: down is better.
    assert_eq!(
        figures::judge(
            Figure::P99,
            spread(&[9.0, 10.0]).as_ref(),
            spread(&[1.0, 2.0]).as_ref(),
            0.05
        ),
        Word::Improved
    );
}

#[test]
fn warnings_name_what_differs_besides_the_code() {
    let old = first();
    assert_eq!(cmp(&old, &old).warnings, Vec::<String>::new());

    let mut new = old.clone();
    new.results.machine.cpu_model = "Intel Xeon".into();
    // MemTotal moving by some KiB is the same machine.
    new.results.machine.memory_bytes -= 68 * 1024;
    new.results.settings.profile = "quick".into();
    new.results.settings.rounds = 5;
    new.results.settings.blocking_url = Some("http://10.0.0.2:8080".into());
    new.thresholds.margin = 0.1;
    new.results.interrupted = true;
    new.results.source = Some(bench_model::Source {
        commit: "0123456789abcdef".into(),
        uncommitted_changes: false,
    });
    let c = cmp(&old, &new);
    assert_eq!(
        c.warnings,
        [
            "the machine differs: CPU model AMD EPYC -> Intel Xeon",
            "the profile differs: seed -> quick",
            "the settings differ: blocking_url none -> http://10.0.0.2:8080; rounds 3 -> 5",
            "the findings were judged with different thresholds: margin 0.05 -> 0.1",
            &format!(
                "the NEW run was interrupted before its last column (started {}): what it did not measure is missing or NOT MEASURED",
                new.results.started_at
            ),
        ]
    );
    // The commit is shown, not warned about.
    assert_eq!(c.new.commit.as_deref(), Some("0123456789abcdef"));
    assert_eq!(c.old.commit, None);
    let md = markdown::render(&c);
    assert!(
        md.contains("**WARNING:** the profile differs: seed -> quick."),
        "{md}"
    );
    assert!(html::render(&c).contains("<b>WARNING:</b> the settings differ: blocking_url none"));

    // The two seed runs ran on different hosts of the same size.
    let w = cmp(&first(), &second()).warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("CPU model AMD EPYC -> Intel(R) Xeon(R) Processor"),
        "{w:?}"
    );
    assert!(!w[0].contains("memory"), "{w:?}");
}

fn idle_server(run: &mut SavedRun, id: ColumnId) -> &mut IdleServer {
    let idle = group(run, GroupId::Idle).idle.as_mut().unwrap();
    idle.servers.iter_mut().find(|s| s.id == id).unwrap()
}

#[test]
fn sweeps_compare_per_step_and_idle_servers_at_their_largest_common_size() {
    let run = second();
    let c = cmp(&run, &run);
    let sweep = c
        .groups
        .iter()
        .find(|g| g.id == GroupId::SweepPosts)
        .unwrap();
    // 7 steps, 3 columns, 3 figures.
    assert_eq!(sweep.rows.len(), 7 * 3 * 3);
    assert_eq!(rows(&c, "async-posts-sweep @ 3200").len(), 3);
    // tiny_http's 10000 were skipped (open-file limit): 5000 is its largest.
    assert_eq!(rows(&c, "async-idle @ 10000 idle").len(), 2);
    assert_eq!(rows(&c, "blocking-idle-tiny-http @ 5000 idle").len(), 2);

    let mut fewer = run.clone();
    for r in &mut idle_server(&mut fewer, ColumnId::AsyncIdle).rounds {
        r.steps.retain(|s| s.connections < 10000);
    }
    let c = cmp(&run, &fewer);
    assert!(rows(&c, "async-idle @ 10000 idle").is_empty());
    assert_eq!(
        row(&c, "async-idle @ 5000 idle", Figure::IdleKibPerConnection).word,
        Word::WithinNoise
    );

    // The first seed run had neither: each group is listed as the second's only.
    let c = cmp(&first(), &run);
    for id in [GroupId::Idle, GroupId::SweepPosts, GroupId::SweepUsers] {
        let g = c.groups.iter().find(|g| g.id == id).unwrap();
        assert_eq!(g.only_in, Some((OnlyIn::New, None)), "{id}");
        assert!(text::render(&c).contains(&format!("{id}: {} (only in NEW)", g.title)));
    }
}

#[test]
fn a_run_against_itself_marks_nothing_in_its_matrix() {
    let c = cmp(&seed("seed-2026-12-03"), &seed("seed-2026-12-03"));
    assert_eq!(c.glance.len(), 10);
    assert!(c.glance.iter().all(|r| !r.changed()), "{:?}", c.glance);
    let text = text::render(&c);
    let table = &text[text.find("At a glance").unwrap()..text.find(" findings: ").unwrap()];
    assert!(table.lines().all(|l| !l.ends_with(" *")), "{table}");
}

#[test]
fn a_changed_verdict_marks_its_row_in_text_and_html() {
    let old = seed("seed-2026-12-03");
    let mut new = old.clone();
    set_verdict(&mut new, "cache-async-wins", Verdict::NotHeld);
    let c = cmp(&old, &new);
    let changed: Vec<&str> = c
        .glance
        .iter()
        .filter(|r| r.changed())
        .map(|r| r.name)
        .collect();
    assert_eq!(changed, ["Redis"]);
    assert!(
        c.glance
            .iter()
            .find(|r| r.name == "Redis")
            .unwrap()
            .verdict_changed
    );
    let text = text::render(&c);
    let line = text.lines().find(|l| l.starts_with("Redis ")).unwrap();
    assert!(line.ends_with("HELD -> NOT HELD *"), "{line}");
    let page = html::render(&c);
    let row = page
        .split("<tr class=\"glance-row")
        .find(|r| r.contains("data-group=\"cache\""))
        .unwrap();
    assert!(row.starts_with(" changed-verdict\""), "{row}");
    assert_eq!(
        page.matches("<tr class=\"glance-row changed-verdict\"")
            .count(),
        1
    );
    assert!(markdown::render(&c).contains("| HELD -> NOT HELD * |"));
}

#[test]
fn a_relative_figure_moving_beyond_both_spreads_marks_its_cell() {
    let old = seed("seed-2026-12-03");
    let mut new = old.clone();
    // The thread pool's /health at half its throughput in every round.
    let g = group(&mut new, GroupId::Baseline);
    let c = g
        .columns
        .iter_mut()
        .find(|c| c.id == ColumnId::BlockingHealth)
        .unwrap();
    for r in &mut c.rounds {
        r.load.successful_throughput_rps /= 2.0;
    }
    let c = cmp(&old, &new);
    let row = c.glance.iter().find(|r| r.name == "/health").unwrap();
    assert!(!row.verdict_changed);
    let moved: Vec<(bench_report::glance::Model, bool)> = row.moved.clone();
    assert_eq!(
        moved,
        [
            (bench_report::glance::Model::ThreadPool, true),
            (bench_report::glance::Model::EventLoop, false),
            (bench_report::glance::Model::VirtualThreads, false)
        ]
    );
    assert!(html::render(&c).contains("<td class=\"changed\">"));
    // Within a run's own spread it is no move.
    let s = |median, min, max| Spread {
        median,
        min,
        max,
        n: 3,
    };
    assert!(!glance::moved_beyond_spreads(
        &s(1.0, 0.9, 1.1),
        &s(1.05, 0.95, 1.2)
    ));
    assert!(glance::moved_beyond_spreads(
        &s(1.0, 0.9, 1.1),
        &s(0.5, 0.45, 0.55)
    ));
}

#[test]
fn a_findings_median_is_never_written_across_its_line() {
    // ramp-async-wins of the seed run with drivers had rounds 1.0455,
    // 1.0508 and 1.017 against 1.0, so a median of 1.0455 that missed
    // 1.05; set here on a finding this build still judges against 1.0
    // (ramp-async-wins is now judged at equal load, under another id).
    let mut run = second();
    let f = run
        .findings
        .iter_mut()
        .find(|f| f.id == "cpu-inline-hurts-async")
        .unwrap();
    f.verdict = Verdict::Inconclusive;
    f.interval = Some(Spread {
        median: 1.045_47,
        min: 1.017,
        max: 1.0508,
        n: 3,
    });
    let c = cmp(&run, &run);
    let cell = |c: &Comparison| {
        let j = finding(c, "cpu-inline-hurts-async").new.clone().unwrap();
        j.verdict_and_median().1.unwrap()
    };
    // A run saved before findings kept their line: this build's, 1.0.
    assert_eq!(
        run.findings
            .iter()
            .find(|f| f.id == "cpu-inline-hurts-async")
            .unwrap()
            .line,
        None
    );
    assert_eq!(cell(&c), "1.045");
    assert!(text::render(&c).contains("INCONCLUSIVE 1.045"));
    // The saved line, where there is one.
    for f in &mut run.findings {
        f.line = Some(2.0);
    }
    assert_eq!(cell(&cmp(&run, &run)), "1.05");
}
