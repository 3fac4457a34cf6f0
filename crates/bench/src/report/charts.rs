//! SVG charts, written by hand: a bar chart per group for throughput and p99
//! (the bar at the median over rounds, a whisker from the lowest to the
//! highest round), and for the mixed group a line chart of /health p99 over
//! time. No chart library: a few rectangles and polylines are all these need.

use std::fmt::Write as _;

use crate::model::{ColumnResult, GroupResult, RunResults};
use crate::stats::{column_spread, Metric, Spread};

const W: f64 = 760.0;
const H: f64 = 360.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 90.0;
const COLORS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick and its label under a line chart's x axis, at `x`.
fn x_tick(out: &mut String, x: f64, label: &str) {
    let axis = H - BOTTOM;
    let _ = writeln!(
        out,
        r##"<line x1="{x:.1}" y1="{axis:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/><text class="x-tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
        axis + 4.0,
        axis + 15.0,
    );
}

/// The `i`th entry of a line chart's legend, below the plot, two per row.
fn legend_entry(out: &mut String, i: usize, color: &str, label: &str) {
    let (plot_w, plot_h) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let ly = TOP + plot_h + 46.0 + 14.0 * (i / 2) as f64;
    let lx = LEFT + (i % 2) as f64 * plot_w / 2.0;
    let _ = writeln!(
        out,
        r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{color}"/><text x="{:.1}" y="{ly:.1}">{}</text>"#,
        ly - 9.0,
        lx + 14.0,
        escape(label)
    );
}

/// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * p)
}

/// A y axis: linear from 0 (bars) or logarithmic (latency over time, where
/// sub-millisecond and ten-second lines must both stay visible).
enum Scale {
    Linear { max: f64 },
    Log { min: f64, max: f64 },
}

impl Scale {
    /// A log axis from 0.1 up to the power of ten above `data_max`.
    fn log_for(data_max: f64) -> Scale {
        let max = 10f64.powf(data_max.max(1.0).log10().ceil());
        Scale::Log { min: 0.1, max }
    }

    /// Where `v` sits, from 0 (bottom) to 1 (top).
    fn fraction(&self, v: f64) -> f64 {
        match *self {
            Scale::Linear { max } => (v / max).clamp(0.0, 1.0),
            Scale::Log { min, max } => {
                ((v.max(min) / min).log10() / (max / min).log10()).clamp(0.0, 1.0)
            }
        }
    }

    fn ticks(&self) -> Vec<f64> {
        match *self {
            Scale::Linear { max } => (0..=4).map(|i| max * i as f64 / 4.0).collect(),
            Scale::Log { min, max } => {
                let mut t = vec![min];
                while *t.last().unwrap_or(&max) < max {
                    t.push(t[t.len() - 1] * 10.0);
                }
                t
            }
        }
    }
}

fn frame(out: &mut String, title: &str, y_label: &str, scale: &Scale) {
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        W / 2.0,
        escape(title)
    );
    let plot_h = H - TOP - BOTTOM;
    for v in scale.ticks() {
        let y = TOP + plot_h - plot_h * scale.fraction(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
            W - RIGHT
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y + 4.0,
            trim_num(v)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="14" y="{:.1}" transform="rotate(-90 14 {:.1})" text-anchor="middle">{}</text>"#,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        escape(y_label)
    );
}

fn trim_num(v: f64) -> String {
    if v >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Vertical bars, one per (label, spread): the bar at the median, a whisker
/// from min to max.
pub fn bar_chart(title: &str, y_label: &str, bars: &[(String, Spread)]) -> String {
    let mut out = String::new();
    let y_max = nice_max(bars.iter().map(|b| b.1.max).fold(0.0, f64::max));
    let scale = Scale::Linear { max: y_max };
    frame(&mut out, title, y_label, &scale);
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    let slot = plot_w / bars.len().max(1) as f64;
    let y_of = |v: f64| TOP + plot_h - plot_h * (v / y_max).clamp(0.0, 1.0);
    for (i, (label, s)) in bars.iter().enumerate() {
        let y = y_of(s.median);
        let h = TOP + plot_h - y;
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let mid = x + slot * 0.35;
        let _ = writeln!(
            out,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="{}"/>"#,
            slot * 0.7,
            COLORS[i % COLORS.len()]
        );
        if s.n > 1 {
            let (top, bottom) = (y_of(s.max), y_of(s.min));
            let _ = writeln!(
                out,
                r##"<path class="whisker" d="M{mid:.1} {top:.1}V{bottom:.1}M{:.1} {top:.1}H{:.1}M{:.1} {bottom:.1}H{:.1}" stroke="#333" stroke-width="1.5" fill="none"/>"##,
                mid - 6.0,
                mid + 6.0,
                mid - 6.0,
                mid + 6.0
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            mid + if s.n > 1 { 18.0 } else { 0.0 },
            y - 4.0,
            trim_num(s.median)
        );
        let ly = TOP + plot_h + 14.0;
        let _ = writeln!(
            out,
            r#"<text x="{mid:.1}" y="{ly:.1}" text-anchor="end" transform="rotate(-25 {mid:.1} {ly:.1})">{}</text>"#,
            escape(label)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// One polyline per series of (x seconds, y) points on a log axis, with a legend.
pub fn line_chart(title: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let scale = Scale::log_for(y_max(series));
    xy_chart(
        title,
        ("seconds into the window", y_label),
        series,
        &scale,
        false,
    )
}

/// The idle group's chart: RSS above idle (MiB) against idle connections
/// open, a line with a dot per measured size for each server.
pub fn idle_rss_chart(series: &[(String, Vec<(f64, f64)>)]) -> String {
    let scale = Scale::Linear {
        max: nice_max(y_max(series)),
    };
    xy_chart(
        "Idle keep-alive connections: server RSS above idle (median of rounds)",
        ("idle connections open", "MiB above idle"),
        series,
        &scale,
        true,
    )
}

fn y_max(series: &[(String, Vec<(f64, f64)>)]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(0.0, f64::max)
}

/// Lines of (x, y) points from x = 0, a legend under the axes; `dots`
/// marks each point.
fn xy_chart(
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    scale: &Scale,
    dots: bool,
) -> String {
    let mut out = String::new();
    let x_max = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    frame(&mut out, title, y_label, scale);
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    for tick in x_ticks(x_max) {
        let x = LEFT + plot_w * tick / x_max;
        x_tick(&mut out, x, &trim_num(tick));
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + plot_w / 2.0,
        TOP + plot_h + 30.0,
        escape(x_label)
    );
    for (i, (label, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| {
                format!(
                    "{:.1},{:.1}",
                    LEFT + plot_w * x / x_max,
                    TOP + plot_h - plot_h * scale.fraction(*y)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        if dots {
            for p in &pts {
                if let Some((x, y)) = p.split_once(',') {
                    let _ = writeln!(
                        out,
                        r#"<circle class="dot" cx="{x}" cy="{y}" r="3.5" fill="{color}"/>"#
                    );
                }
            }
        }
        legend_entry(&mut out, i, color, label);
    }
    out.push_str("</svg>\n");
    out
}

/// Tick positions for an x axis from 0 to `x_max`: a 1-2-5 step giving
/// at most about ten ticks.
fn x_ticks(x_max: f64) -> Vec<f64> {
    let step = (0..)
        .map(|p| 10f64.powi(p))
        .flat_map(|decade| [1.0, 2.0, 5.0].map(|m| m * decade))
        .find(|s| x_max / s <= 10.0)
        .unwrap_or(1.0);
    (0..)
        .map(|i| i as f64 * step)
        .take_while(|t| *t <= x_max + 1e-9)
        .collect()
}

/// The round of `c` whose /health p99 is the median one (the round a
/// latency-over-time line is drawn from).
fn median_round(c: &ColumnResult) -> Option<&crate::model::RoundResult> {
    let mut rounds: Vec<_> = c.rounds.iter().collect();
    rounds.sort_by(|a, b| a.load.latency_ms.p99.total_cmp(&b.load.latency_ms.p99));
    rounds.get(rounds.len() / 2).copied()
}

/// Every chart of a run, as (file name, SVG text).
pub fn all(results: &RunResults) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for g in &results.groups {
        if let Some(idle) = &g.idle {
            files.push((
                format!("{}-rss.svg", g.id),
                idle_rss_chart(&super::idle_table::rss_above_idle_mib(idle)),
            ));
            // No load-generator columns: no throughput or p99 bars.
            continue;
        }
        if let Some(info) = &g.sweep {
            files.extend(sweep_charts(g, info));
            continue;
        }
        files.push((
            format!("{}-throughput.svg", g.id),
            group_bars(g, "throughput", "req/s", |r| Some(r.load.throughput_rps)),
        ));
        files.push((
            format!("{}-p99.svg", g.id),
            group_bars(g, "p99 latency", "ms", |r| Some(r.load.latency_ms.p99)),
        ));
        if g.id == "mixed" {
            let series = g
                .columns
                .iter()
                .filter_map(|c| Some((c, median_round(c)?)))
                .map(|(c, r)| {
                    (
                        c.label.clone(),
                        r.load
                            .timeline
                            .iter()
                            // A second in which nothing finished has no latency to draw.
                            .filter(|s| s.requests > 0)
                            .map(|s| (s.second as f64 + 1.0, s.p99_ms))
                            .collect(),
                    )
                })
                .collect::<Vec<_>>();
            files.push((
                "mixed-latency-over-time.svg".into(),
                line_chart(
                    "/health p99 per second next to each background load (median round)",
                    "ms (log scale)",
                    &series,
                ),
            ));
        }
    }
    files
}

/// One series of a sweep chart: a label and (connections, spread over rounds) points.
pub type SweepSeries = (String, Vec<(usize, Spread)>);

/// A line per series against connections on a log-2 x axis (each power of
/// two labelled), each point the median with a min-max whisker; y linear
/// from 0, or logarithmic (`log_y`, for latency). `cap` draws a dashed
/// horizontal line with its label.
pub fn sweep_chart(
    title: &str,
    y_label: &str,
    series: &[SweepSeries],
    cap: Option<(f64, String)>,
    log_y: bool,
) -> String {
    let mut out = String::new();
    let data_max = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1.max))
        .chain(cap.as_ref().map(|c| c.0))
        .fold(0.0, f64::max);
    let scale = if log_y {
        Scale::log_for(data_max)
    } else {
        Scale::Linear {
            max: nice_max(data_max * 1.05),
        }
    };
    frame(&mut out, title, y_label, &scale);
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    let xs = series.iter().flat_map(|s| s.1.iter().map(|p| p.0.max(1)));
    let (lo, hi) = (
        xs.clone().min().unwrap_or(1) as f64,
        xs.max().unwrap_or(2) as f64,
    );
    let (lo2, hi2) = (
        lo.log2().floor(),
        hi.log2().ceil().max(lo.log2().floor() + 1.0),
    );
    let x_of = |n: f64| LEFT + 20.0 + (plot_w - 40.0) * ((n.log2() - lo2) / (hi2 - lo2));
    let y_of = |v: f64| TOP + plot_h - plot_h * scale.fraction(v);
    for p in (lo2 as i32)..=(hi2 as i32) {
        let n = 2f64.powi(p);
        let x = x_of(n);
        x_tick(&mut out, x, &format!("{n:.0}"));
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">connections (log scale)</text>"#,
        LEFT + plot_w / 2.0,
        TOP + plot_h + 30.0
    );
    if let Some((rps, label)) = &cap {
        let y = y_of(*rps);
        let _ = writeln!(
            out,
            r##"<line class="cap" x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#c00" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#c00">{}</text>"##,
            W - RIGHT,
            W - RIGHT - 4.0,
            y - 5.0,
            escape(label)
        );
    }
    for (i, (label, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = points
            .iter()
            .map(|(n, s)| format!("{:.1},{:.1}", x_of(*n as f64), y_of(s.median)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        for (n, s) in points {
            let x = x_of(*n as f64);
            let _ = writeln!(
                out,
                r#"<circle cx="{x:.1}" cy="{:.1}" r="3" fill="{color}"/>"#,
                y_of(s.median)
            );
            if s.n > 1 {
                let _ = writeln!(
                    out,
                    r#"<path class="whisker" d="M{x:.1} {:.1}V{:.1}" stroke="{color}" stroke-width="1.5" fill="none"/>"#,
                    y_of(s.max),
                    y_of(s.min)
                );
            }
        }
        legend_entry(&mut out, i, color, label);
    }
    out.push_str("</svg>\n");
    out
}

/// A sweep group's two charts: successful throughput (with the blocking
/// cap, if any) and p99 (every request counted) against connections.
fn sweep_charts(g: &GroupResult, info: &crate::model::SweepInfo) -> Vec<(String, String)> {
    let series = |metric: Metric| -> Vec<SweepSeries> {
        g.columns
            .iter()
            .map(|c| {
                let points = info
                    .steps
                    .iter()
                    .filter_map(|&n| Some((n, crate::sweep::step_spread(c, n, metric)?)))
                    .collect();
                (c.label.clone(), points)
            })
            .collect()
    };
    let cap = info.cap.map(|c| {
        (
            c.rps,
            format!("blocking cap (Little's law): {:.0} req/s", c.rps),
        )
    });
    let rounds = format!(
        "median of {} round{} (whisker: min-max)",
        info.rounds,
        if info.rounds == 1 { "" } else { "s" }
    );
    vec![
        (
            format!("{}-throughput.svg", g.id),
            sweep_chart(
                &format!("{} — successful req/s, {rounds}", g.title),
                "req/s",
                &series(crate::sweep::successful_rps),
                cap,
                false,
            ),
        ),
        (
            format!("{}-p99.svg", g.id),
            sweep_chart(
                &format!(
                    "{} — p99, unanswered requests counted at their wait (a lower bound then), {rounds}",
                    g.title
                ),
                "ms (log scale)",
                &series(|r| r.step.map(|s| s.latency_lower_bound_ms.p99)),
                None,
                true,
            ),
        ),
    ]
}

fn group_bars(g: &GroupResult, what: &str, unit: &str, metric: Metric) -> String {
    let bars: Vec<(String, Spread)> = g
        .columns
        .iter()
        .filter_map(|c| Some((c.label.clone(), column_spread(c, metric)?)))
        .collect();
    let rounds = g.columns.iter().map(|c| c.rounds.len()).max().unwrap_or(0);
    bar_chart(
        &format!(
            "{} — {what}, median of {rounds} rounds (whisker: min-max)",
            g.title
        ),
        unit,
        &bars,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_spans_powers_of_ten() {
        let s = Scale::log_for(11_305.0);
        assert_eq!(
            s.ticks(),
            vec![0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0]
        );
        assert_eq!(s.fraction(0.1), 0.0);
        assert_eq!(s.fraction(100_000.0), 1.0);
        assert!((s.fraction(100.0) - 0.5).abs() < 1e-9);
        assert_eq!(s.fraction(0.0), 0.0);
    }

    #[test]
    fn axis_maxima_are_nice() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(7.0), 10.0);
        assert_eq!(nice_max(1234.0), 2000.0);
        assert_eq!(nice_max(0.03), 0.05);
    }

    #[test]
    fn bar_chart_escapes_labels_and_draws_one_bar_and_whisker_each() {
        let spread = |v: f64| Spread {
            median: v,
            min: v * 0.9,
            max: v * 1.1,
            n: 3,
        };
        let svg = bar_chart(
            "t",
            "req/s",
            &[("a<b".into(), spread(10.0)), ("c".into(), spread(5.0))],
        );
        assert!(svg.contains("a&lt;b"));
        assert_eq!(svg.matches("<rect x=").count(), 2);
        assert_eq!(svg.matches("class=\"whisker\"").count(), 2);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // One round has no range to draw.
        let one = Spread {
            n: 1,
            ..spread(4.0)
        };
        assert_eq!(
            bar_chart("t", "ms", &[("x".into(), one)])
                .matches("whisker")
                .count(),
            0
        );
    }

    #[test]
    fn idle_chart_has_a_dot_per_measured_size_and_a_linear_axis() {
        let svg = idle_rss_chart(&[
            ("nio".into(), vec![(1000.0, 7.8), (5000.0, 39.0)]),
            ("tiny_http".into(), vec![(1000.0, 32.0)]),
        ]);
        assert_eq!(svg.matches("class=\"dot\"").count(), 3);
        assert!(svg.contains(">idle connections open<"), "{svg}");
        // 0 to 5000 by 500: eleven ticks.
        assert_eq!(svg.matches("class=\"x-tick\"").count(), 11, "{svg}");
        assert_eq!(x_ticks(10_000.0).len(), 11);
    }

    #[test]
    fn sweep_chart_labels_powers_of_two_and_draws_the_cap() {
        let point = |n: usize, v: f64| {
            (
                n,
                Spread {
                    median: v,
                    min: v * 0.9,
                    max: v * 1.1,
                    n: 3,
                },
            )
        };
        let svg = sweep_chart(
            "t",
            "req/s",
            &[
                (
                    "blocking".into(),
                    vec![point(50, 160.0), point(3200, 660.0)],
                ),
                ("async".into(), vec![point(50, 165.0), point(3200, 5000.0)]),
            ],
            Some((666.7, "blocking cap (Little's law): 667 req/s".into())),
            false,
        );
        // 32 (below 50) up to 4096 (above 3200): eight powers of two.
        let ticks: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains("class=\"x-tick\""))
            .filter_map(|l| l.split('>').nth(2)?.split('<').next())
            .collect();
        assert_eq!(
            ticks,
            ["32", "64", "128", "256", "512", "1024", "2048", "4096"]
        );
        assert_eq!(svg.matches("class=\"cap\"").count(), 1);
        assert!(
            svg.contains("blocking cap (Little&#39;s law): 667 req/s")
                || svg.contains("blocking cap (Little's law): 667 req/s")
        );
        assert_eq!(svg.matches("class=\"whisker\"").count(), 4);
        assert_eq!(svg.matches("<polyline").count(), 2);
    }

    #[test]
    fn seconds_axis_has_labelled_ticks() {
        assert_eq!(x_ticks(3.0), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            x_ticks(15.0),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
        );
        let svg = line_chart("t", "ms", &[("a".into(), vec![(1.0, 2.0), (4.0, 3.0)])]);
        assert_eq!(svg.matches("class=\"x-tick\"").count(), 5, "{svg}");
    }
}
