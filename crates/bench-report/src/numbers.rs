//! How a figure is written, the same in every printer: with three
//! significant digits ([`number`]), or as milliseconds with the decimals
//! their size needs ([`fmt_ms`]); a judged figure beside its line never
//! on the other side of it ([`number_beside`]).

use bench_analysis::stats::{figure_beside, Line};

/// Milliseconds with as many decimals as make sense for their size.
pub fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// A figure with three significant digits (never in exponent form):
/// "12807", "41.3", "1.03", "0.000699"; "n/a" when not finite.
pub fn number(x: f64) -> String {
    number_beside(x, None)
}

/// [`number`], with as many more decimals as keep it on its own side of
/// each edge of the line it was judged against
/// ([`bench_analysis::stats::figure_beside`]): "1.045", not "1.05", for a
/// ratio that missed 1.05.
pub fn number_beside(x: f64, line: Option<Line>) -> String {
    if !x.is_finite() {
        return "n/a".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let digits = x.abs().log10().floor() as i32;
    let decimals = (2 - digits).clamp(0, 6) as usize;
    figure_beside(x, decimals, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_written_with_three_significant_digits() {
        let cases = [
            (12807.4, "12807"),
            (41.26, "41.3"),
            (1.0329, "1.03"),
            (0.000699, "0.000699"),
            (-0.5, "-0.500"),
            (0.0, "0"),
            (f64::NAN, "n/a"),
        ];
        for (x, want) in cases {
            assert_eq!(number(x), want, "{x}");
        }
        let line = Some(Line {
            at: 1.0,
            margin: 0.05,
        });
        assert_eq!(number_beside(1.045_47, line), "1.045");
        assert_eq!(number_beside(1.16, line), "1.16");
        assert_eq!(number_beside(19143.4, line), "19143");
    }
}
