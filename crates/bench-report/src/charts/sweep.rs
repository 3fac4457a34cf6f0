//! The sweep chart: a line per series against connections on a log-2 x
//! axis, each point the median with a min-max whisker, and the blocking
//! server's predicted cap as a dashed line.

use std::fmt::Write as _;

use super::svg::*;
use bench_model::Spread;

/// One series of a sweep chart: a label and (connections, spread over rounds) points.
pub type SweepSeries = (String, Vec<(usize, Spread)>);

/// A line per series against connections on a log-2 x axis (each power of
/// two labelled), each point the median with a min-max whisker; y linear
/// from 0, or logarithmic (`log_y`, for latency). `cap` draws a dashed
/// horizontal line with its label.
pub fn sweep_chart(
    (title, subtitle): (&str, &str),
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
    let frame = Frame::new(title, subtitle, legend_bottom(series.len()));
    open(&mut out, &frame, y_label, &scale);
    let plot_w = W - LEFT - RIGHT;
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
    let y_of = |v: f64| frame.y(scale.fraction(v));
    for p in (lo2 as i32)..=(hi2 as i32) {
        let n = 2f64.powi(p);
        let x = x_of(n);
        frame.x_tick(&mut out, x, &format!("{n:.0}"));
    }
    frame.x_label(&mut out, "connections (log scale)");
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
        frame.legend_entry(&mut out, i, color, label);
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("t", ""),
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
}
