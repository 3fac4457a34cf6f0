//! Line charts of (x, y) series from x = 0: /health p99 over time (a log
//! axis) and the idle group's RSS against idle connections (linear).

use std::fmt::Write as _;

use super::svg::*;

/// One polyline per series of (x seconds, y) points on a log axis, with a legend.
pub fn line_chart(
    (title, subtitle): (&str, &str),
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    let scale = Scale::log_for(y_max(series));
    xy_chart(
        (title, subtitle),
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
        (
            "Idle keep-alive connections: server RSS above idle",
            "median of rounds",
        ),
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
    (title, subtitle): (&str, &str),
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
    let frame = Frame::new(title, subtitle, legend_bottom(series.len()));
    open(&mut out, &frame, y_label, scale);
    let plot_w = W - LEFT - RIGHT;
    for tick in x_ticks(x_max) {
        let x = LEFT + plot_w * tick / x_max;
        frame.x_tick(&mut out, x, &trim_num(tick));
    }
    frame.x_label(&mut out, x_label);
    for (i, (label, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| {
                format!(
                    "{:.1},{:.1}",
                    LEFT + plot_w * x / x_max,
                    frame.y(scale.fraction(*y))
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
        frame.legend_entry(&mut out, i, color, label);
    }
    out.push_str("</svg>\n");
    out
}

/// Tick positions for an x axis from 0 to `x_max`: a 1-2-5 step giving
/// at most about ten ticks.
pub(super) fn x_ticks(x_max: f64) -> Vec<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn seconds_axis_has_labelled_ticks() {
        assert_eq!(x_ticks(3.0), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            x_ticks(15.0),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
        );
        let svg = line_chart(
            ("t", ""),
            "ms",
            &[("a".into(), vec![(1.0, 2.0), (4.0, 3.0)])],
        );
        assert_eq!(svg.matches("class=\"x-tick\"").count(), 5, "{svg}");
    }
}
