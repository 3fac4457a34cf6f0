//! The canvas every chart is drawn on: its width and margins, the colours,
//! the title (wrapped to fit, never cut off), the y axis (linear from 0, or
//! logarithmic) with its grid and labels, x ticks and the legend. The height
//! follows what the chart has to say: more title or label lines make it
//! taller instead of spilling past the edges. Written by hand: a few
//! rectangles, lines and text.

use std::fmt::Write as _;

pub(super) const W: f64 = 760.0;
pub(super) const LEFT: f64 = 70.0;
pub(super) const RIGHT: f64 = 20.0;
/// The plot's own height, whatever surrounds it.
const PLOT_H: f64 = 230.0;
pub(super) const COLORS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
];
/// About how wide a character of the sans-serif face is, per pixel of font size.
const CHAR_EM: f64 = 0.58;

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// How many characters of `font_px` fit in `width` pixels.
pub(super) fn chars_in(width: f64, font_px: f64) -> usize {
    ((width / (font_px * CHAR_EM)).floor() as usize).max(4)
}

/// `text` in lines of at most `max` characters, broken at spaces; a word
/// longer than a line is broken after a `/` where it has one, else anywhere.
pub(super) fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let mut rest = word;
        while rest.chars().count() > max {
            let head: String = rest.chars().take(max).collect();
            let cut = head.rfind('/').filter(|&i| i > 0).unwrap_or(head.len());
            words.push(rest[..cut].to_owned());
            rest = &rest[cut..];
        }
        words.push(rest.to_owned());
    }
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= max => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word),
        }
    }
    lines
}

/// Where a chart's parts go: the plot from `top` for [`PLOT_H`], then
/// `bottom` pixels of axis labels and legend; the title and subtitle above.
pub(super) struct Frame {
    title: Vec<String>,
    subtitle: Vec<String>,
    pub(super) top: f64,
    pub(super) plot_h: f64,
    pub(super) height: f64,
}

impl Frame {
    /// A frame for `title` and `subtitle` with `bottom` pixels under the plot.
    pub(super) fn new(title: &str, subtitle: &str, bottom: f64) -> Frame {
        let title = wrap(title, chars_in(W - 20.0, 15.0));
        let subtitle = wrap(subtitle, chars_in(W - 20.0, 12.0));
        let top = 8.0 + 19.0 * title.len() as f64 + 15.0 * subtitle.len() as f64 + 12.0;
        Frame {
            title,
            subtitle,
            top,
            plot_h: PLOT_H,
            height: top + PLOT_H + bottom,
        }
    }

    /// The y of the plot's x axis.
    pub(super) fn axis(&self) -> f64 {
        self.top + self.plot_h
    }

    /// The y of a value at `fraction` (0 bottom, 1 top) of the plot.
    pub(super) fn y(&self, fraction: f64) -> f64 {
        self.top + self.plot_h - self.plot_h * fraction
    }

    /// A tick and its label under the x axis, at `x`.
    pub(super) fn x_tick(&self, out: &mut String, x: f64, label: &str) {
        let axis = self.axis();
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{axis:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/><text class="x-tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
            axis + 4.0,
            axis + 15.0,
        );
    }

    /// The x axis's name, under its ticks.
    pub(super) fn x_label(&self, out: &mut String, label: &str) {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + (W - LEFT - RIGHT) / 2.0,
            self.axis() + 30.0,
            escape(label)
        );
    }

    /// The `i`th entry of a legend under the x axis's name, two per row.
    pub(super) fn legend_entry(&self, out: &mut String, i: usize, color: &str, label: &str) {
        let plot_w = W - LEFT - RIGHT;
        let ly = self.axis() + 50.0 + LEGEND_ROW * (i / 2) as f64;
        let lx = LEFT + (i % 2) as f64 * plot_w / 2.0;
        let fits = chars_in(plot_w / 2.0 - 20.0, 12.0);
        let shown: String = if label.chars().count() > fits {
            label.chars().take(fits - 1).chain(['…']).collect()
        } else {
            label.to_owned()
        };
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{color}"/><text x="{:.1}" y="{ly:.1}">{}</text>"#,
            ly - 9.0,
            lx + 14.0,
            escape(&shown)
        );
    }
}

/// One row of a legend, in pixels.
pub(super) const LEGEND_ROW: f64 = 16.0;

/// The room under the plot for x ticks, the x axis's name and a legend of
/// `entries` (two per row).
pub(super) fn legend_bottom(entries: usize) -> f64 {
    44.0 + LEGEND_ROW * entries.div_ceil(2) as f64 + 6.0
}

/// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
pub(super) fn nice_max(v: f64) -> f64 {
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
pub(super) enum Scale {
    Linear { max: f64 },
    Log { min: f64, max: f64 },
}

impl Scale {
    /// A log axis from 0.1 up to the power of ten above `data_max`.
    pub(super) fn log_for(data_max: f64) -> Scale {
        let max = 10f64.powf(data_max.max(1.0).log10().ceil());
        Scale::Log { min: 0.1, max }
    }

    /// Where `v` sits, from 0 (bottom) to 1 (top).
    pub(super) fn fraction(&self, v: f64) -> f64 {
        match *self {
            Scale::Linear { max } => (v / max).clamp(0.0, 1.0),
            Scale::Log { min, max } => {
                ((v.max(min) / min).log10() / (max / min).log10()).clamp(0.0, 1.0)
            }
        }
    }

    pub(super) fn ticks(&self) -> Vec<f64> {
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

/// Opens the SVG and draws the title, the subtitle, the y grid with its
/// labels and the y axis's name. The caller draws the rest and closes it.
pub(super) fn open(out: &mut String, frame: &Frame, y_label: &str, scale: &Scale) {
    let h = frame.height;
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{W}" height="{h:.0}" viewBox="0 0 {W} {h:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="{W}" height="{h:.0}" fill="white"/>"#);
    let mut y = 8.0;
    for line in &frame.title {
        y += 19.0;
        let _ = writeln!(
            out,
            r#"<text class="title" x="{}" y="{y:.1}" text-anchor="middle" font-size="15">{}</text>"#,
            W / 2.0,
            escape(line)
        );
    }
    for line in &frame.subtitle {
        y += 15.0;
        let _ = writeln!(
            out,
            r##"<text class="subtitle" x="{}" y="{y:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            W / 2.0,
            escape(line)
        );
    }
    for v in scale.ticks() {
        let y = frame.y(scale.fraction(v));
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
    let mid = frame.top + frame.plot_h / 2.0;
    let _ = writeln!(
        out,
        r#"<text x="14" y="{mid:.1}" transform="rotate(-90 14 {mid:.1})" text-anchor="middle">{}</text>"#,
        escape(y_label)
    );
}

pub(super) fn trim_num(v: f64) -> String {
    if v >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
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
    fn long_text_wraps_at_spaces_and_slashes_and_never_past_its_width() {
        assert_eq!(
            wrap("async /health | /users/1/blocking", 14),
            ["async /health", "| /users/1", "/blocking"]
        );
        assert_eq!(wrap("short", 14), ["short"]);
        let title = "Concurrency sweep, slow downstream (300 ms) — successful req/s, median of 3 rounds (whisker: min-max)";
        let lines = wrap(title, chars_in(W - 20.0, 15.0));
        assert!(lines.len() == 2, "{lines:?}");
        assert!(lines
            .iter()
            .all(|l| l.chars().count() <= chars_in(W - 20.0, 15.0)));
        // A title that needs two lines makes the chart taller, not cut.
        assert!(Frame::new(title, "", 50.0).height > Frame::new("short", "", 50.0).height);
    }

    #[test]
    fn axis_maxima_are_nice() {
        for (max, nice) in [(0.0, 1.0), (7.0, 10.0), (1234.0, 2000.0), (0.03, 0.05)] {
            assert_eq!(nice_max(max), nice, "{max}");
        }
    }
}
