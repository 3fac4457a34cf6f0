//! The matrix's figures and lines in words, the same in every printer:
//! a cell's lines, a row's verdict, a wrong variant's and a calibration
//! column's line.

use bench_model::Spread;

use super::measure::{Figure, Measure};
use super::wrongs::{Wrong, WrongKind};
use super::{Beyond, Calibration, Cell, Pick, RowVerdict};
use crate::numbers::{fmt_ms, number};

/// A milliseconds figure: "0.85 ms", "12.6 ms", "6824 ms", "14.0 s".
pub fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{} ms", fmt_ms(v))
    }
}

/// The figure a row compares, with its unit: "9978 req/s", "8.2 KiB/conn".
pub fn figure(f: Figure, v: f64) -> String {
    match f {
        Figure::Throughput | Figure::Plateau if v >= 100.0 => format!("{v:.0} {}", f.unit()),
        Figure::IdleKib => format!("{v:.1} {}", f.unit()),
        _ => format!("{} {}", number(v), f.unit()),
    }
}

/// A pick's figure with its unit, and where a sweep column has no
/// plateau, its shape: "666 req/s", "10452 req/s, still rising".
pub fn pick_figure(f: Figure, m: &Measure) -> String {
    let shape = m.shape.and_then(|s| s.words());
    match shape {
        Some(words) => format!("{}, {words}", figure(f, m.main.median)),
        None => figure(f, m.main.median),
    }
}

/// A p99: "p99 12.6 ms", or for a lower bound "p99 ≥2736 ms".
pub fn p99_words(m: &Measure) -> Option<String> {
    let bound = if m.p99_lower_bound { "≥" } else { "" };
    m.p99_ms.map(|v| format!("p99 {bound}{}", ms(v)))
}

/// A relative figure: "1.00", "0.77", "2.41"; "n/a" without one.
pub fn relative(r: Option<&Spread>) -> String {
    r.map_or("n/a".to_owned(), |r| format!("{:.2}", r.median))
}

/// The second line of a cell: "p99 12.6 ms · 48.2 us/req" (server CPU
/// per request; "p99 ≥2736 ms" for a lower bound), or for an idle server
/// "0.00 threads/conn · p99 0.86 ms".
pub fn second_line(m: &Measure) -> String {
    let p99 = p99_words(m);
    let other = match m.threads_per_connection {
        Some(t) => Some(format!("{t:.2} threads/conn")),
        None => m
            .cpu_us_per_request
            .map(|v| format!("{} us/req", number(v))),
    };
    let parts: Vec<String> = match m.threads_per_connection {
        Some(_) => other.into_iter().chain(p99).collect(),
        None => p99.into_iter().chain(other).collect(),
    };
    parts.join(" · ")
}

/// Where an idle figure was taken: "at 10000 open"; nothing for a load.
pub fn at_size(m: &Measure) -> Option<String> {
    m.open.map(|n| format!("at {n} open"))
}

/// A pick's figure, relative and absolute: "0.99 · 697 req/s".
pub fn first_line(figure_: Figure, pick: &Pick, rel: Option<&Spread>) -> String {
    format!(
        "{} · {}",
        relative(rel),
        pick_figure(figure_, &pick.measure)
    )
}

/// A cell's lines for a plain-text printer: the figures, the variant, the
/// second line; or why it has none.
pub fn cell_lines(figure_: Figure, cell: &Cell) -> Vec<String> {
    match cell {
        Cell::Best { pick, relative } => {
            let mut variant = pick.variant.clone();
            if let Some(at) = at_size(&pick.measure) {
                variant = if variant.is_empty() {
                    at
                } else {
                    format!("{variant}, {at}")
                };
            }
            vec![
                first_line(figure_, pick, relative.as_ref()),
                variant,
                second_line(&pick.measure),
            ]
        }
        Cell::OnlyByDesign(pick) => vec![
            "blocks by design (not ranked):".to_owned(),
            format!("{}, {}", pick.variant, pick_figure(figure_, &pick.measure)),
        ],
        Cell::Missing { why, .. } => vec![(*why).to_owned()],
    }
}

/// The line beside a model's cell: "beyond Spring's defaults: pipelined
/// driver 7.78 · 32485 req/s".
pub fn beyond_line(figure_: Figure, b: &Beyond) -> String {
    format!(
        "beyond Spring's defaults: {} {}",
        b.pick.variant,
        first_line(figure_, &b.pick, b.relative.as_ref())
    )
}

/// "HELD cpu-offload-recovers", "HELD (design check) sweep-async-past-cap",
/// or "no finding judges this row".
pub fn verdict(v: Option<&RowVerdict>) -> String {
    match v {
        None => "no finding judges this row".to_owned(),
        Some(v) => format!("{} {}", v.words(), v.finding),
    }
}

/// A wrong variant's figures in one line: "/health p99 128 ms beside it,
/// 2.94 ms beside async-health-next-to-cpu-rayon; threads ...; unanswered ...".
pub fn wrong_figures(w: &Wrong) -> String {
    let mut parts = Vec::new();
    let (beside, right_words) = match w.kind {
        WrongKind::ThreadPerConnection => ("with its idle connections open", "for"),
        _ => ("beside it", "beside"),
    };
    if let Some(p) = w.p99_ms {
        let right = w.right.map_or(String::new(), |(id, r)| {
            format!(", {} {right_words} {id}", ms(r))
        });
        let bound = if w.p99_lower_bound { "≥" } else { "" };
        parts.push(format!("/health p99 {bound}{} {beside}{right}", ms(p)));
    }
    if let Some(t) = &w.threads {
        parts.push(format!("threads {t}"));
    }
    if let Some(u) = &w.unanswered {
        parts.push(format!("unanswered connections {u}"));
    }
    parts.join("; ")
}

/// A calibration column's cells: the implementation (and its variant),
/// the workload, its figure against the best of our models there ("0.95x
/// the event loop's best (hyper)"), the figure, and its second line.
pub fn calibration_cells(c: &Calibration) -> [String; 5] {
    let against = c.against.as_ref().map_or(
        "none of our models measured here".to_owned(),
        |(rel, model, variant)| {
            let variant = if variant.is_empty() {
                String::new()
            } else {
                format!(" ({variant})")
            };
            format!("{:.2}x the {}'s best{variant}", rel.median, model.name())
        },
    );
    let name = if c.pick.variant.is_empty() {
        c.implementation.clone()
    } else {
        format!("{}, {}", c.implementation, c.pick.variant)
    };
    [
        name,
        c.workload.clone(),
        against,
        pick_figure(c.figure, &c.pick.measure),
        second_line(&c.pick.measure),
    ]
}

/// A calibration column in one line: "tomcat on /health: 0.95x the event
/// loop's best (hyper) · 70100 req/s · p99 3.10 ms · 15.0 us/req".
pub fn calibration_line(c: &Calibration) -> String {
    let [name, workload, against, figure_, second] = calibration_cells(c);
    format!("{name} on {workload}: {against} · {figure_} · {second}")
}
