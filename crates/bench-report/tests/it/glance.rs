//! The run at a glance from fixed results: a row per workload measured and
//! none for one that was not, the three model columns, the best cell at
//! 1.00, a variant that blocks by design never ranked, a model without a
//! measurement saying so; the text within 100 columns, the page's matrix
//! before the findings; and in a comparison, a changed verdict or a
//! relative figure that moved marks its row or cell, and nothing else.

use bench_analysis::findings::check;
use bench_model::*;
use bench_report::glance::{self, Cell, Glance, Model};

use bench_model::fixtures::*;

/// A column on a real route, so that the route table can say whether it
/// blocks by design.
fn on(mut c: ColumnResult, path: &str) -> ColumnResult {
    c.path = path.into();
    c
}

/// CPU and the local database, nothing else: the event loop's inline /cpu
/// and the pinning driver's /users/1 block by design; the virtual-thread
/// server measured nothing in the database group.
fn fixed_run() -> RunResults {
    let cpu = group(
        "cpu",
        vec![
            on(
                steady("blocking-cpu", "blocking", 700.0, 40.0, 210),
                "/cpu?n=5",
            ),
            on(steady("async-cpu", "async", 900.0, 90.0, 5), "/cpu?n=5"),
            on(
                steady("async-cpu-rayon", "async", 690.0, 41.0, 7),
                "/cpu/rayon?n=5",
            ),
            on(
                steady("virtual-cpu", "virtual-pinning", 650.0, 45.0, 7),
                "/cpu?n=5",
            ),
        ],
    );
    let mut failed = on(
        column("virtual-yielding-users", "virtual-yielding", &[], 7),
        "/users/1",
    );
    failed.failure = Some("no request succeeded: every connection was refused".into());
    let database = group(
        "database",
        vec![
            on(
                steady("blocking-users", "blocking", 1000.0, 20.0, 210),
                "/users/1",
            ),
            on(steady("async-users", "async", 1250.0, 15.0, 5), "/users/1"),
            on(
                steady("async-users-blocking", "async", 1400.0, 15.0, 5),
                "/users/1/blocking",
            ),
            failed,
        ],
    );
    results(vec![cpu, database])
}

fn glance_of(run: &RunResults) -> Glance {
    glance::build(run, &check(run, &THRESHOLDS), &THRESHOLDS)
}

fn cell(g: &Glance, row: &str, model: Model) -> Cell {
    let row = g.rows.iter().find(|r| r.workload.name == row).unwrap();
    row.cells.iter().find(|c| c.0 == model).unwrap().1.clone()
}

fn relative(c: &Cell) -> f64 {
    match c {
        Cell::Best { relative, .. } => relative.unwrap().median,
        other => panic!("not ranked: {other:?}"),
    }
}

#[test]
fn a_row_per_measured_workload_three_models_and_the_best_at_one() {
    let g = glance_of(&fixed_run());
    let names: Vec<&str> = g.rows.iter().map(|r| r.workload.name).collect();
    // No Redis, /health or idle row: the run did not measure them.
    assert_eq!(names, ["CPU-bound", "Database, local"]);
    for row in &g.rows {
        let models: Vec<Model> = row.cells.iter().map(|c| c.0).collect();
        assert_eq!(models, Model::ALL);
    }
    // The event loop's sqlx is the best right variant (its blocking driver
    // on the loop served more, but blocks by design and never counts).
    let db = cell(&g, "Database, local", Model::EventLoop);
    assert_eq!(relative(&db), 1.0);
    let Cell::Best { pick, .. } = &db else {
        unreachable!()
    };
    assert_eq!(pick.column, ColumnId::AsyncUsers);
    assert_eq!(pick.variant, "sqlx");
    assert_eq!(
        relative(&cell(&g, "Database, local", Model::ThreadPool)),
        0.8
    );
    // On /cpu the event loop's Spring default runs the loop inline, which
    // blocks it by design: shown, never ranked, its rayon offload beside
    // it as beyond Spring's defaults; the row's best the thread pool.
    // Virtual threads have only /cpu inline, which holds a carrier by
    // design.
    assert_eq!(relative(&cell(&g, "CPU-bound", Model::ThreadPool)), 1.0);
    assert!(
        matches!(cell(&g, "CPU-bound", Model::EventLoop), Cell::OnlyByDesign(p) if p.column == ColumnId::AsyncCpu)
    );
    let rayon = g.rows[0].beyond_of(Model::EventLoop).unwrap();
    assert_eq!(rayon.pick.variant, "rayon");
    assert!((rayon.relative.unwrap().median - 690.0 / 700.0).abs() < 1e-12);
    assert!(
        matches!(cell(&g, "CPU-bound", Model::VirtualThreads), Cell::OnlyByDesign(p) if p.column == ColumnId::VirtualCpu)
    );
    // A column that measured nothing says so.
    assert_eq!(
        cell(&g, "Database, local", Model::VirtualThreads),
        Cell::Missing {
            why: "failed",
            failure: Some("no request succeeded: every connection was refused".into())
        }
    );
    // Each row is judged by its first finding the run measured: the CPU
    // row's first, on the offloads, lacks spawn_blocking's column here;
    // the database row's are judged at equal load, which this run did not
    // measure: its first, not measured.
    let verdicts: Vec<(&str, Verdict)> = g
        .rows
        .iter()
        .map(|r| {
            let v = r.verdict.as_ref().unwrap();
            (v.finding.as_str(), v.verdict)
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("cpu-inline-hurts-async", Verdict::Held),
            (
                "db-async-deadpool-cheaper-at-equal-load",
                Verdict::NotMeasured
            )
        ]
    );
}

#[test]
fn a_model_the_group_did_not_run_says_so_and_a_row_without_a_finding_too() {
    let run = results(vec![group(
        "json",
        vec![
            on(
                steady("blocking-echo", "blocking", 500.0, 2.0, 210),
                "/echo",
            ),
            on(steady("async-echo", "async", 400.0, 2.0, 5), "/echo"),
        ],
    )]);
    let g = glance_of(&run);
    assert_eq!(
        cell(&g, "JSON echo", Model::VirtualThreads),
        Cell::Missing {
            why: "not run",
            failure: None
        }
    );
    assert_eq!(g.rows[0].verdict, None);
    let text = glance::text::render(&g);
    assert!(text.contains("no finding judges this row"), "{text}");
    assert!(text.contains("not run"), "{text}");
}

#[test]
fn the_page_opens_with_the_matrix_a_number_in_every_measured_cell() {
    let run = fixed_run();
    let findings = check(&run, &THRESHOLDS);
    let html = bench_report::html::render(&run, &findings, &THRESHOLDS);
    let at = html.find("<section id=\"at-a-glance\">").unwrap();
    assert!(at < html.find("<section id=\"findings\">").unwrap());
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    assert_eq!(section.matches("<tr class=\"glance-row\"").count(), 2);
    assert_eq!(section.matches("<th class=\"model\"").count(), 3);
    assert_eq!(section.matches("<td class=\"cell ").count(), 6);
    // Five cells measured (one only by design), one failed.
    assert_eq!(section.matches("<td class=\"cell measured").count(), 5);
    assert_eq!(section.matches("<b class=\"rel\">1.00</b>").count(), 2);
    assert!(section.contains("<span class=\"why\">failed</span>"));
    // Each cell opens its group's section.
    assert!(section.contains("<a href=\"#group-database\""));
}

#[test]
fn the_text_matrix_fits_in_a_hundred_columns() {
    let g = glance_of(&fixed_run());
    let text = glance::text::render(&g);
    for line in text.lines() {
        assert!(
            line.chars().count() <= glance::text::WIDTH,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(text.contains("1.00 · 700 req/s"), "{text}");
    // The terminal report closes with it.
    let run = fixed_run();
    let findings = check(&run, &THRESHOLDS);
    let report = bench_report::text::render(&run, &findings, &THRESHOLDS);
    assert!(report.ends_with(&text), "{report}");
}

#[test]
fn the_markdown_matrix_has_a_row_per_workload_and_the_best_in_bold() {
    let md = glance::markdown::render(&glance_of(&fixed_run()), Some("r/report.md"));
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| **")).collect();
    assert_eq!(rows.len(), 2, "{md}");
    assert!(
        rows[0].starts_with("| **[CPU-bound](r/report.md#cpu)**"),
        "{md}"
    );
    assert!(rows[1].contains("**1.00 · 1250 req/s**<br>sqlx"), "{md}");
    assert!(rows[1].contains("0.80 · 1000 req/s"), "{md}");
}

#[test]
fn calibration_columns_are_listed_below_the_main_matrix() {
    let mut g = glance_of(&fixed_run());
    let Cell::Best { pick, .. } = cell(&g, "CPU-bound", Model::ThreadPool) else {
        unreachable!()
    };
    g.calibration.push(glance::Calibration {
        implementation: "tomcat".into(),
        group: GroupId::Cpu,
        workload: "CPU-bound".into(),
        figure: glance::Figure::Throughput,
        pick: glance::Pick {
            variant: String::new(),
            ..pick
        },
        against: Some((
            Spread::of([0.95]).unwrap(),
            Model::ThreadPool,
            "inline".into(),
        )),
    });
    let text = glance::text::render(&g);
    let main_ends = text.find("Database, local").unwrap();
    let line = "- tomcat on CPU-bound: 0.95x the thread pool's best (inline) · 700 req/s";
    assert!(text.find(line).unwrap() > main_ends, "{text}");
    // On the page, a table of its own after the main matrix, a row each.
    let html = glance::html::wrongs_section(&g);
    let table = &html[html
        .find("<h3>Other implementations, for calibration</h3>")
        .unwrap()..];
    assert_eq!(table.matches("<tr class=\"calibration\"").count(), 1);
    let row = "<th scope=\"row\">tomcat</th><td><a href=\"#group-cpu\">CPU-bound</a></td><td>0.95x the thread pool's best (inline)</td><td>700 req/s</td>";
    assert!(table.contains(row), "{table}");
    // The main matrix keeps its three model columns.
    assert!(!glance::html::section(&g).contains("tomcat"));
    let md = glance::markdown::render(&g, None);
    assert!(
        md.contains("| tomcat | CPU-bound | 0.95x the thread pool's best (inline) | 700 req/s |"),
        "{md}"
    );
}

/// On a database the event loop's cell is its Spring default's analogue,
/// deadpool-postgres, even where the pipelined driver served more: that
/// one is shown beside it, marked beyond Spring's defaults, and the row is
/// judged by the defaults' finding. A run without the default's column
/// shows the best of the others, unmarked, and the seeds' sqlx finding.
#[test]
fn the_event_loop_cell_is_its_spring_default_and_pipelining_is_beyond_it() {
    let run = results(vec![group(
        "database",
        vec![
            on(
                steady("blocking-users", "blocking", 1000.0, 5.0, 210),
                "/users/1",
            ),
            on(steady("async-users", "async", 800.0, 5.0, 5), "/users/1"),
            on(
                steady("async-users-deadpool", "async", 1100.0, 5.0, 5),
                "/users/1",
            ),
            on(
                steady("async-users-pipelined", "async", 2500.0, 5.0, 5),
                "/users/1",
            ),
        ],
    )]);
    let event_loop = |g: &Glance| match cell(g, "Database, local", Model::EventLoop) {
        Cell::Best { pick, relative } => (pick.column, pick.variant, relative.unwrap().median),
        other => panic!("not ranked: {other:?}"),
    };
    let judged_by = |g: &Glance| g.rows[0].verdict.as_ref().unwrap().finding.clone();
    // The cell is deadpool at 1.00, the pipelined driver beside it at `relative`.
    let deadpool_then_pipelined = |g: &Glance, relative: f64| {
        let cell = (ColumnId::AsyncUsersDeadpool, "deadpool".to_owned(), 1.0);
        assert_eq!(event_loop(g), cell);
        let beyond = g.rows[0].beyond_of(Model::EventLoop).unwrap();
        assert_eq!(beyond.pick.column, ColumnId::AsyncUsersPipelined);
        assert!((beyond.relative.unwrap().median - relative).abs() < 1e-9);
    };
    let g = glance_of(&run);
    // The row's best is the best default: deadpool's 1100 is 1.00.
    deadpool_then_pipelined(&g, 2500.0 / 1100.0);
    assert_eq!(g.rows[0].beyond_of(Model::ThreadPool), None);
    // No equal-load windows: the row shows the first finding of its list,
    // not measured (the throughput claims are retired where the cores decide).
    assert_eq!(judged_by(&g), "db-async-deadpool-cheaper-at-equal-load");
    // Every printer marks it beside the default.
    let marked = "beyond Spring's defaults: pipelined driver 2.27 · 2500 req/s";
    // (The terminal wraps it within the cell's width.)
    assert!(glance::text::render(&g).contains("beyond Spring's"));
    assert!(glance::markdown::render(&g, None).contains(&format!("<br>*{marked}*")));
    let html = glance::html::section(&g);
    assert!(
        html.contains("<span class=\"variant\">deadpool <span class=\"beyond\" title=\"beyond Spring's defaults: pipelined driver 2.27 · 2500 req/s (async-users-pipelined)\">+ pipelined driver 2.27</span></span>"),
        "{html}"
    );
    let mut without = run.clone();
    without.groups[0]
        .columns
        .retain(|c| c.id != ColumnId::AsyncUsersDeadpool);
    let g = glance_of(&without);
    assert_eq!(
        event_loop(&g),
        (
            ColumnId::AsyncUsersPipelined,
            "pipelined driver".to_owned(),
            1.0
        )
    );
    assert!(g.rows[0].beyond.is_empty());
    // At equal load the cell is still the default, ranked by server CPU per
    // request, and the pipelined driver beside it where it is cheaper.
    let mut run = run;
    run.groups[0].equal_load = Some(equal_load(
        500.0,
        "async-users",
        &[
            ("blocking-users", "blocking", [50.0; 3]),
            ("async-users", "async", [60.0; 3]),
            ("async-users-deadpool", "async", [30.0; 3]),
            ("async-users-pipelined", "async", [25.0; 3]),
        ],
    ));
    for c in &mut run.groups[0].equal_load.as_mut().unwrap().columns {
        c.path = "/users/1".into();
    }
    let g = glance_of(&run);
    deadpool_then_pipelined(&g, 30.0 / 25.0);
    assert_eq!(judged_by(&g), "db-async-deadpool-cheaper-at-equal-load");
}

/// Whether `svg` is well-formed XML as far as a chart needs: every tag
/// closed in order, attribute values quoted, no bare `&` or `<` in text;
/// the first problem otherwise.
fn well_formed(svg: &str) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        if let Some(amp) = text.find('&') {
            let entity = &text[amp..];
            if !["&amp;", "&lt;", "&gt;", "&quot;"]
                .iter()
                .any(|e| entity.starts_with(e))
            {
                return Err(format!("a bare & in {text:?}"));
            }
        }
        let end = rest[at..].find('>').ok_or("a tag never closed")? + at;
        let tag = &rest[at + 1..end];
        if tag.contains('<') {
            return Err(format!("a < inside the tag {tag:?}"));
        }
        if tag.matches('"').count() % 2 == 1 {
            return Err(format!("an unquoted attribute in {tag:?}"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or_default().to_owned());
        }
        rest = &rest[end + 1..];
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("never closed: {open:?}"))
    }
}

#[test]
fn the_matrix_as_a_picture_has_a_bar_per_ranked_cell_as_long_as_its_figure() {
    let run = fixed_run();
    let g = glance_of(&run);
    let svg = bench_report::charts::glance_chart(&g);
    well_formed(&svg).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // Named for a screen reader, and said in words, not by colour alone.
    assert!(svg.contains("role=\"img\"") && svg.contains("<title id=\"glance-title\">"));
    let desc = svg.split("<desc").nth(1).unwrap();
    assert!(desc.contains("CPU-bound: thread pool"), "{desc}");
    assert!(svg.contains("HELD") || svg.contains("INCONCLUSIVE") || svg.contains("SAME"));
    // A bar per ranked cell, none for a cell not ranked.
    let ranked: Vec<(Model, f64)> = g
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().map(move |c| (r, c)))
        .filter_map(|(r, (m, c))| match c {
            Cell::Best {
                relative: Some(rel),
                ..
            } => Some((
                *m,
                bench_report::charts::closeness(r.figure.higher_is_better(), rel),
            )),
            _ => None,
        })
        .collect();
    let bars: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains("class=\"bar\""))
        .collect();
    assert_eq!(bars.len(), ranked.len(), "{svg}");
    assert!(svg.contains("blocks by design (not ranked)"), "{svg}");
    // Each bar as long as its cell's figure relative to the best.
    let attr = |line: &str, name: &str| -> f64 {
        let at = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[at..].split('"').next().unwrap().parse().unwrap()
    };
    for (bar, (model, close)) in bars.iter().zip(&ranked) {
        assert!(
            bar.contains(&format!("data-model=\"{}\"", model.slug())),
            "{bar}"
        );
        let want = close * bench_report::charts::BAR_MAX;
        assert!(
            (attr(bar, "width") - want).abs() < 0.01,
            "{bar}: want {want}"
        );
    }
    // The best is full length; the CPU row's rayon at 690 of 700 req/s not.
    assert!(bars
        .iter()
        .any(|b| (attr(b, "width") - bench_report::charts::BAR_MAX).abs() < 0.01));
    assert!(bars
        .iter()
        .any(|b| attr(b, "width") < bench_report::charts::BAR_MAX * 0.999));
    // The report writes it beside the others, and its page shows it.
    let files = bench_report::files::report_files(&run, &check(&run, &THRESHOLDS), &THRESHOLDS);
    assert!(files.iter().any(|(n, t)| n == "glance.svg" && *t == svg));
    let html = &files.iter().find(|(n, _)| n == "report.html").unwrap().1;
    assert!(html.contains("<section id=\"glance-picture\">") && html.contains(&svg));
}

#[test]
fn the_svg_check_catches_what_it_should() {
    assert!(well_formed("<svg><rect/></svg>").is_ok());
    assert!(well_formed("<svg><text>a & b</text></svg>").is_err());
    assert!(well_formed("<svg><text>a</svg>").is_err());
    assert!(well_formed("<svg><rect x=\"1/></svg>").is_err());
}

#[test]
fn how_the_models_stood_is_said_from_the_rows_own_rounds() {
    let mut run = fixed_run();
    let g = glance_of(&run);
    let row = |g: &Glance, name: &str| {
        g.rows
            .iter()
            .find(|r| r.workload.name == name)
            .unwrap()
            .standing_words()
    };
    // On /cpu only the thread pool's Spring default is ranked (the event
    // loop's runs the loop inline, virtual threads hold a carrier): no
    // comparison to make.
    assert_eq!(row(&g, "CPU-bound"), "fewer than two models ranked here");
    assert_eq!(
        row(&g, "Database, local"),
        "the event loop leads in every round: 1.25x the thread pool's"
    );
    // The thread pool at 1300 req/s in round 2: no lead in every round.
    let blocking = run.groups[1]
        .columns
        .iter_mut()
        .find(|c| c.id.as_str() == "blocking-users")
        .unwrap();
    blocking.rounds[1].load.successful_throughput_rps = 1300.0;
    let g = glance_of(&run);
    assert_eq!(
        row(&g, "Database, local"),
        "the event loop leads: ahead of the thread pool by over 5% in 2 of 3 rounds (0.96-1.25x)"
    );
    // Every printer says it beside the row's verdict.
    assert!(glance::markdown::render(&g, None).contains("in 2 of 3 rounds (0.96-1.25x)"));
    assert!(glance::html::section(&g).contains("in 2 of 3 rounds (0.96-1.25x)"));
    let text = glance::text::render(&g);
    let words: Vec<&str> = text.split_whitespace().collect();
    assert!(
        words.join(" ").contains("by over 5% in 2 of 3 rounds"),
        "{text}"
    );
}
