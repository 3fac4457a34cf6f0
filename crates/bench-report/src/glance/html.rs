//! The matrix in report.html: `section#at-a-glance` first on the page
//! (the main matrix, made to fit a laptop's first screen), then
//! `section#what-goes-wrong` (the wrong variants, and the calibration
//! columns apart). Each cell links to its group's section. A cell's shade
//! says how close it is to the row's best, darker closer, and a bar under
//! it says the same by its length, so the scale reads in grey scale too.

use std::fmt::Write as _;

use super::measure::Figure;
use super::words::{
    at_size, beyond_line, calibration_cells, figure, ms, pick_figure, relative, second_line,
};
use super::{Cell, Glance, Model, Row, RowVerdict, Wrong};
use crate::html::page::{escape, verdict_class};
use bench_model::Spread;

/// How close a cell is to its row's best, 1 at the best, 0 far below
/// (the picture's bars are as long: [`crate::charts::closeness`]).
fn closeness(f: Figure, rel: &Spread) -> f64 {
    crate::charts::closeness(f.higher_is_better(), rel)
}

/// The shade of a cell by its closeness: `b5` within 5% of the best down
/// to `b1` under 40% of it ([`crate::charts::band`], the picture's too).
fn band(closeness: f64) -> &'static str {
    ["b1", "b2", "b3", "b4", "b5"][crate::charts::band(closeness)]
}

/// The verdict badge and how the models stood in a row.
fn judged(v: Option<&RowVerdict>, standing: &str) -> String {
    let badge = match v {
        None => "<span class=\"no-finding\">no finding judges this row</span>".to_owned(),
        Some(v) => format!(
            "<span class=\"verdict {}\">{}</span>{} <code>{}</code>",
            verdict_class(v.verdict),
            v.verdict.word(),
            if v.is_design_check() {
                " <span class=\"kind\">design check</span>"
            } else {
                ""
            },
            escape(&v.finding)
        ),
    };
    format!(
        "<td class=\"judged\">{badge}<span class=\"standing\">{}</span></td>",
        escape(standing)
    )
}

/// Beside a model's variant, on its line (a line more would push the
/// matrix past the first screen), the variant beyond Spring's defaults
/// that did better: "+ pipelined driver 1.09", the whole in its title.
fn beyond(row: &Row, model: Model) -> String {
    row.beyond_of(model).map_or(String::new(), |b| {
        format!(
            " <span class=\"beyond\" title=\"{} ({})\">+ {} {}</span>",
            escape(&beyond_line(row.figure, b)),
            b.pick.column.as_str(),
            escape(&b.pick.variant),
            relative(b.relative.as_ref())
        )
    })
}

/// One model's cell of `row`.
fn cell(row: &Row, model: Model, c: &Cell) -> String {
    let group = row.workload.group;
    let open = |class: &str, title: &str| {
        format!(
            "<td class=\"cell {class}\" data-model=\"{}\"><a href=\"#group-{group}\" title=\"{}\">",
            model.slug(),
            escape(title)
        )
    };
    match c {
        Cell::Best { pick, relative: rel } => {
            let close = rel.as_ref().map_or(0.0, |r| closeness(row.figure, r));
            let best = if relative(rel.as_ref()) == "1.00" { " best" } else { "" };
            // A sweep's shape goes with the variant, so that the figure's
            // line stays one line.
            let extra = at_size(&pick.measure)
                .or_else(|| pick.measure.shape.and_then(|s| s.words()).map(str::to_owned));
            let variant = match extra {
                Some(x) if pick.variant.is_empty() => x,
                Some(x) => format!("{}, {x}", pick.variant),
                None => pick.variant.clone(),
            };
            format!(
                "{}<span class=\"fig\"><b class=\"rel\">{}</b> <span class=\"abs\">{}</span></span><span class=\"variant\">{}{}</span><span class=\"sub\">{}</span><span class=\"bar\"><i style=\"width: {:.0}%\"></i></span></a></td>",
                open(&format!("measured {}{best}", band(close)), pick.column.as_str()),
                relative(rel.as_ref()),
                escape(&figure(row.figure, pick.measure.main.median)),
                escape(&variant),
                beyond(row, model),
                escape(&second_line(&pick.measure).replace(" us/req", " µs CPU/req")),
                close * 100.0
            )
        }
        Cell::OnlyByDesign(pick) => format!(
            "{}<span class=\"fig\"><span class=\"abs\">{}</span></span><span class=\"variant\">{}{}</span><span class=\"sub\">blocks by design: not ranked</span></a></td>",
            open("measured by-design", pick.column.as_str()),
            escape(&pick_figure(row.figure, &pick.measure)),
            escape(&pick.variant),
            beyond(row, model)
        ),
        Cell::Missing { why, failure } => format!(
            "{}<span class=\"why\">{}</span></a></td>",
            open("missing", failure.as_deref().unwrap_or(why)),
            escape(why)
        ),
    }
}

fn row_html(row: &Row) -> String {
    let mut out = format!(
        "<tr class=\"glance-row\" data-group=\"{g}\"><th scope=\"row\"><a href=\"#group-{g}\">{name}</a><span class=\"route\">{route}</span></th>",
        g = row.workload.group,
        name = escape(row.workload.name),
        route = escape(&row.route)
    );
    for (model, c) in &row.cells {
        out.push_str(&cell(row, *model, c));
    }
    out.push_str(&judged(row.verdict.as_ref(), &row.standing_words()));
    out.push_str("</tr>\n");
    out
}

/// The header row of a matrix with a column per model.
pub(crate) fn model_headers() -> String {
    Model::ALL
        .iter()
        .map(|m| {
            format!(
                "<th class=\"model\" data-model=\"{}\">{}<span>{}</span></th>",
                m.slug(),
                escape(&capitalised(m.name())),
                escape(m.shape())
            )
        })
        .collect()
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// The main matrix: `section#at-a-glance`.
pub fn section(g: &Glance) -> String {
    let mut out = String::from("<section id=\"at-a-glance\">\n<h2>At a glance: which model for which workload</h2>\n<p class=\"legend\">Each cell: the model as Spring Boot ships it (MVC, WebFlux, MVC on virtual threads), and after a +, a variant beyond Spring's defaults that did better; its figure relative to the row's best (<b>1.00</b> = best) and the figure (successful req/s; where the cores decide, req/s per core of a dedicated server at the server CPU per request measured at one arrival rate for all; the sweep's plateau, or its highest step where still rising; memory per idle connection); p99 (≥: a lower bound) and server CPU per request. Darker, longer bar: closer to the best; hatched: blocks by design. A cell opens its group.</p>\n");
    if g.rows.is_empty() {
        out.push_str("<p>No workload of the matrix was measured in this run.</p>\n</section>\n");
        return out;
    }
    let _ = write!(
        out,
        "<table class=\"glance\">\n<colgroup><col class=\"c-work\"><col class=\"c-model\"><col class=\"c-model\"><col class=\"c-model\"><col class=\"c-judged\"></colgroup>\n<thead><tr><th class=\"workload\">Workload</th>{}<th>Verdict · how the models stood</th></tr></thead>\n<tbody>\n",
        model_headers()
    );
    for row in &g.rows {
        out.push_str(&row_html(row));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// A verdict badge with its finding's id, or "-".
fn badge(v: Option<&RowVerdict>) -> String {
    v.map_or("-".to_owned(), |v| {
        format!(
            "<span class=\"verdict {}\">{}</span> <code>{}</code>",
            verdict_class(v.verdict),
            v.verdict.word(),
            escape(&v.finding)
        )
    })
}

/// One wrong variant's row.
fn wrong_row(w: &Wrong) -> String {
    let right = w.right.map_or("-".to_owned(), |(id, p)| {
        format!(
            "{}<span class=\"col\">{}</span>",
            ms(p),
            escape(id.as_str())
        )
    });
    let mut costs: Vec<String> = Vec::new();
    costs.extend(w.threads.iter().map(|t| format!("threads {}", escape(t))));
    costs.extend(
        w.unanswered
            .iter()
            .map(|u| format!("unanswered connections {}", escape(u))),
    );
    format!(
        "<tr class=\"wrong\" data-column=\"{col}\"><td><a href=\"#group-{g}\">{what}</a><span class=\"col\">{col} · {g}</span></td><td class=\"p99\">{p99}</td><td>{right}</td><td>{costs}</td><td>{verdict}</td></tr>\n",
        col = escape(w.column.as_str()),
        g = w.group,
        what = escape(&w.what),
        p99 = w.p99_ms.map_or("-".to_owned(), |p| {
            format!("{}{}", if w.p99_lower_bound { "≥" } else { "" }, ms(p))
        }),
        costs = if costs.is_empty() {
            "-".to_owned()
        } else {
            costs.join("; ")
        },
        verdict = badge(w.verdict.as_ref()),
    )
}

/// The other implementations' columns, a row each, against our models.
fn calibration_table(g: &Glance) -> String {
    let mut out = String::from("<h3>Other implementations, for calibration</h3>\n<table class=\"calibration\">\n<thead><tr><th>Implementation</th><th>Workload</th><th>Against our best</th><th>Figure</th><th>p99 · server CPU</th></tr></thead>\n<tbody>\n");
    for c in &g.calibration {
        let [name, workload, against, figure_, second] = calibration_cells(c).map(|x| escape(&x));
        let _ = writeln!(
            out,
            "<tr class=\"calibration\" data-column=\"{}\"><th scope=\"row\">{name}</th><td><a href=\"#group-{}\">{workload}</a></td><td>{against}</td><td>{figure_}</td><td>{}</td></tr>",
            c.pick.column,
            c.group,
            second.replace(" us/req", " µs CPU/req")
        );
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// What goes wrong and the calibration columns: `section#what-goes-wrong`;
/// nothing when the run has neither.
pub fn wrongs_section(g: &Glance) -> String {
    if g.wrongs.is_empty() && g.calibration.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section id=\"what-goes-wrong\">\n");
    if !g.wrongs.is_empty() {
        out.push_str("<h2>What goes wrong</h2>\n<p class=\"legend\">Each deliberately wrong variant the run measured, and /cpu saturating the cores on each model: what it does to /health requests next to it, next to the same work done right (for saturated cores, next to a light neighbour on the same model), and what else it cost.</p>\n<table class=\"wrongs\">\n<colgroup><col class=\"c-what\"><col class=\"c-p99\"><col class=\"c-right\"><col class=\"c-costs\"><col class=\"c-verdict\"></colgroup>\n<thead><tr><th>The wrong variant, loaded next to /health</th><th>/health p99 next to it</th><th>Next to it done right</th><th>Threads, unanswered connections</th><th>Verdict</th></tr></thead>\n<tbody>\n");
        let mut kind = None;
        for w in &g.wrongs {
            if kind != Some(w.kind) {
                kind = Some(w.kind);
                let _ = writeln!(
                    out,
                    "<tr class=\"kind\"><th colspan=\"5\">{}</th></tr>",
                    w.kind.words()
                );
            }
            out.push_str(&wrong_row(w));
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if !g.calibration.is_empty() {
        out.push_str(&calibration_table(g));
    }
    out.push_str("</section>\n");
    out
}
