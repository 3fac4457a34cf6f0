//! How a figure is written, the same in every printer: with three
//! significant digits ([`number`]), or as milliseconds with the decimals
//! their size needs ([`fmt_ms`]).

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
    if !x.is_finite() {
        return "n/a".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let digits = x.abs().log10().floor() as i32;
    let decimals = (2 - digits).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
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
    }
}
