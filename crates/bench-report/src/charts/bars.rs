//! Bar charts: a bar at the median over rounds, a whisker from the lowest
//! to the highest round; a value that is only a lower bound is labelled
//! "≥".

use std::fmt::Write as _;

use super::svg::*;
use bench_model::Spread;

/// Vertical bars, one per (label, spread, whether it is only a lower
/// bound): the bar at the median, a whisker from min to max, the median's
/// value above both ("≥" before a lower bound); each label under its bar,
/// wrapped to the bar's width.
pub fn bar_chart(
    title: &str,
    subtitle: &str,
    y_label: &str,
    bars: &[(String, Spread, bool)],
) -> String {
    let plot_w = W - LEFT - RIGHT;
    let slot = plot_w / bars.len().max(1) as f64;
    let label_font = if slot < 90.0 { 10.0 } else { 11.0 };
    let labels: Vec<Vec<String>> = bars
        .iter()
        .map(|(label, _, _)| wrap(label, chars_in(slot - 6.0, label_font)))
        .collect();
    let label_lines = labels.iter().map(Vec::len).max().unwrap_or(1);
    let frame = Frame::new(title, subtitle, 14.0 + 13.0 * label_lines as f64);
    let y_max = nice_max(bars.iter().map(|b| b.1.max).fold(0.0, f64::max) * 1.08);
    let scale = Scale::Linear { max: y_max };
    let mut out = String::new();
    open(&mut out, &frame, y_label, &scale);
    let y_of = |v: f64| frame.y(scale.fraction(v));
    for (i, (_, s, at_least)) in bars.iter().enumerate() {
        let (y, x) = (y_of(s.median), LEFT + slot * i as f64 + slot * 0.15);
        let mid = x + slot * 0.35;
        let _ = writeln!(
            out,
            r#"<rect class="bar" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
            slot * 0.7,
            frame.axis() - y,
            COLORS[i % COLORS.len()]
        );
        let mut label_y = y;
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
            label_y = label_y.min(top);
        }
        // Above the bar and its whisker, never across them.
        let _ = writeln!(
            out,
            r#"<text class="value" x="{mid:.1}" y="{:.1}" text-anchor="middle">{}{}</text>"#,
            label_y - 5.0,
            if *at_least { "≥" } else { "" },
            trim_num(s.median)
        );
        for (k, line) in labels[i].iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text class="x-label" x="{mid:.1}" y="{:.1}" text-anchor="middle" font-size="{label_font}">{}</text>"#,
                frame.axis() + 14.0 + 13.0 * k as f64,
                escape(line)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "sub",
            "req/s",
            &[
                ("a<b".into(), spread(10.0), false),
                ("c".into(), spread(5.0), true),
            ],
        );
        assert!(svg.contains("a&lt;b"));
        // A lower bound says so; the other bar does not.
        assert!(svg.contains(">≥5</text>"), "{svg}");
        assert!(svg.contains(">10</text>"), "{svg}");
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 2);
        assert_eq!(svg.matches("class=\"whisker\"").count(), 2);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // One round has no range to draw.
        let one = Spread {
            n: 1,
            ..spread(4.0)
        };
        assert_eq!(
            bar_chart("t", "", "ms", &[("x".into(), one, false)])
                .matches("whisker")
                .count(),
            0
        );
    }

    #[test]
    fn each_value_sits_above_its_whisker_and_labels_wrap_under_their_bar() {
        let tall = Spread {
            median: 100.0,
            min: 50.0,
            max: 180.0,
            n: 3,
        };
        let bars: Vec<(String, Spread, bool)> =
            vec![("async /health | /users/1/blocking".into(), tall, false); 8];
        let svg = bar_chart("t", "", "req/s", &bars);
        let attr = |line: &str, name: &str| -> f64 {
            let at = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            line[at..].split('"').next().unwrap().parse().unwrap()
        };
        let whisker_top: f64 = svg
            .lines()
            .find(|l| l.contains("class=\"whisker\""))
            .map(|l| {
                let path = l.split("d=\"M").nth(1).unwrap();
                path.split(['V', ' ']).nth(1).unwrap().parse().unwrap()
            })
            .unwrap();
        let value_y = attr(
            svg.lines().find(|l| l.contains("class=\"value\"")).unwrap(),
            "y",
        );
        assert!(
            value_y < whisker_top,
            "value at {value_y}, whisker from {whisker_top}"
        );
        // Eight bars of a 32-character label: each label in several short lines.
        assert!(svg.matches("class=\"x-label\"").count() >= 16, "{svg}");
        let height = attr(svg.lines().next().unwrap(), "height");
        let lowest = svg
            .lines()
            .filter(|l| l.contains("class=\"x-label\""))
            .map(|l| attr(l, "y"))
            .fold(0.0, f64::max);
        assert!(
            lowest < height,
            "a label at {lowest} in a chart {height} high"
        );
    }
}
