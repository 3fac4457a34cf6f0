//! Rounds into figures: the median of a metric over a column's rounds with its
//! spread, and the ratio of two columns round by round, with the words that
//! show it as it was judged.
//!
//! With the columns of a group interleaved, round i of one column ran next
//! to round i of the other, so a ratio is taken per round, and each round's
//! is judged against the claim's line ([`crate::verdict`]). Evidence shows
//! those per-round ratios and their median, never a ratio of two columns'
//! medians, which is another figure.

use bench_model::{ColumnResult, Metric, RoundResult, Spread};

/// A share (0..1) as a percentage with the decimals its size needs:
/// "0%", "<0.01%", "0.04%", "3.4%".
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p == 0.0 {
        "0%".into()
    } else if p < 0.01 {
        "<0.01%".into()
    } else if p < 0.1 {
        format!("{p:.2}%")
    } else {
        format!("{p:.1}%")
    }
}

/// A rate per poll, such as blocking calls per poll: "0", "<0.01", "0.05",
/// "2.00" (it may exceed 1: one poll can make several calls).
pub fn per_poll(rate: f64) -> String {
    if rate == 0.0 {
        "0".into()
    } else if rate < 0.01 {
        "<0.01".into()
    } else {
        format!("{rate:.2}")
    }
}

/// The spread of `metric` over a column's rounds.
pub fn column_spread(c: &ColumnResult, metric: Metric) -> Option<Spread> {
    Spread::of(c.rounds.iter().filter_map(metric))
}

/// The round of `c` whose `metric` is the median one (the upper middle of
/// an even count); `None` when no round has the figure.
pub fn median_round(c: &ColumnResult, metric: Metric) -> Option<&RoundResult> {
    let mut rounds: Vec<(&RoundResult, f64)> = c
        .rounds
        .iter()
        .filter_map(|r| Some((r, metric(r)?)))
        .collect();
    rounds.sort_by(|a, b| a.1.total_cmp(&b.1));
    rounds.get(rounds.len() / 2).map(|(r, _)| *r)
}

/// `a / b` per round (rounds matched by number, in `a`'s order), for every
/// round both have the figure: a round where `b` is 0 gives infinity (or,
/// with `a` at 0 too, not a number), so that a round at 0 requests per
/// second is judged, never left out.
pub fn ratios(a: &ColumnResult, b: &ColumnResult, metric: Metric) -> Vec<f64> {
    a.rounds
        .iter()
        .filter_map(|ra| {
            let rb = b.rounds.iter().find(|rb| rb.round == ra.round)?;
            Some(metric(ra)? / metric(rb)?)
        })
        .collect()
}

/// The line a ratio was judged against, and the relative margin either
/// side of it: what [`times_beside`] must not write a ratio across.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub at: f64,
    pub margin: f64,
}

impl Line {
    /// The values a ratio is called by ([`crate::verdict::call`]): the line
    /// less the margin, the line, the line plus the margin.
    fn edges(self) -> [f64; 3] {
        [
            self.at * (1.0 - self.margin),
            self.at,
            self.at * (1.0 + self.margin),
        ]
    }
}

/// The most decimals [`times_beside`] writes.
const MOST_DECIMALS: usize = 6;

/// A ratio as it is written wherever it stands beside its line: "1.17x",
/// "inf", "n/a"; two decimals, or as many more as keep the written value
/// on the ratio's own side of each edge of `line` ([`figure_beside`]):
/// 1.0455 judged against 1.0 at 5% is "1.045x", not "1.05x" (which would
/// read as the 1.05 it missed), and 1.0508 "1.051x". Without a line, two
/// decimals.
pub fn times_beside(x: f64, line: Option<Line>) -> String {
    if x.is_nan() {
        "n/a".into()
    } else if x.is_infinite() {
        "inf".into()
    } else {
        format!("{}x", figure_beside(x, 2, line))
    }
}

/// A finite figure with `decimals` decimals, or as many more as keep the
/// written value on the figure's own side of each edge of `line` (the
/// line and the line plus and less the margin, the values the figure was
/// called by), so that a figure that did not cross an edge never reads as
/// on it or past it. Past [`MOST_DECIMALS`] the last digit is cut toward
/// the figure's side. The one way a judged figure is written beside its
/// line, in evidence and in every printer.
pub fn figure_beside(x: f64, decimals: usize, line: Option<Line>) -> String {
    let Some(line) = line else {
        return format!("{x:.decimals$}");
    };
    let edges = line.edges();
    let same_side = |written: f64| {
        edges
            .iter()
            .all(|&e| x.total_cmp(&e) == written.total_cmp(&e))
    };
    for d in decimals..=MOST_DECIMALS.max(decimals) {
        let text = format!("{x:.d$}");
        if text.parse::<f64>().is_ok_and(same_side) {
            return text;
        }
    }
    // Still on an edge it did not reach: cut toward the figure's side.
    let scale = 10f64.powi(MOST_DECIMALS as i32);
    let below = edges
        .iter()
        .any(|&e| x < e && (x * scale).round() / scale >= e);
    let cut = if below {
        (x * scale).floor()
    } else {
        (x * scale).ceil()
    } / scale;
    format!("{cut:.MOST_DECIMALS$}")
}

/// Per-round ratios as they were judged, each round's and their median:
/// "per round 1.17x, 0.96x, 0.98x (median 0.98x)", "1.17x (one round)";
/// each written beside `line`, the one they were judged against (`None`
/// for ratios shown and not judged).
pub fn ratio_words(per_round: &[f64], line: Option<Line>) -> String {
    let times = |x: f64| times_beside(x, line);
    match per_round {
        [] => "no round".into(),
        [one] => format!("{} (one round)", times(*one)),
        _ => {
            let each: Vec<String> = per_round.iter().map(|&x| times(x)).collect();
            let median =
                Spread::of(per_round.iter().copied()).map_or("n/a".into(), |s| times(s.median));
            format!("per round {} (median {median})", each.join(", "))
        }
    }
}

/// A share per round as it was judged: "6.0%, 24.0%, 9.0% per round".
pub fn share_words(per_round: &[f64]) -> String {
    let each: Vec<String> = per_round
        .iter()
        .map(|&x| format!("{:.1}%", x * 100.0))
        .collect();
    match per_round {
        [_] => format!("{} (one round)", each.join("")),
        _ => format!("{} per round", each.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_shown_round_by_round_with_their_median() {
        assert_eq!(
            ratio_words(&[1.17, 0.96, 0.98], None),
            "per round 1.17x, 0.96x, 0.98x (median 0.98x)"
        );
        assert_eq!(ratio_words(&[2.0], None), "2.00x (one round)");
        assert_eq!(
            ratio_words(&[f64::INFINITY, 1.5], None),
            "per round inf, 1.50x (median 1.50x)"
        );
        assert_eq!(share_words(&[0.06, 0.24]), "6.0%, 24.0% per round");
    }

    #[test]
    fn a_ratio_is_never_written_on_or_across_an_edge_it_did_not_cross() {
        let at = |at: f64| Some(Line { at, margin: 0.05 });
        // ramp-async-wins' round 1 of the seed run: it missed 1.05.
        assert_eq!(times_beside(1.045_470_175, at(1.0)), "1.045x");
        assert_eq!(times_beside(1.050_784_157, at(1.0)), "1.051x");
        assert_eq!(times_beside(0.949_6, at(1.0)), "0.9496x");
        assert_eq!(times_beside(0.999_7, at(1.0)), "0.9997x");
        // Away from every edge, two decimals as ever.
        assert_eq!(times_beside(1.17, at(1.0)), "1.17x");
        assert_eq!(times_beside(0.987, at(1.0)), "0.99x");
        // On the edges of another line: 0.85 less and plus 5%.
        assert_eq!(times_beside(0.8924, at(0.85)), "0.89x");
        assert_eq!(times_beside(0.8926, at(0.85)), "0.893x");
        assert_eq!(times_beside(0.8074, at(0.85)), "0.807x");
        // Exactly on an edge is written on it.
        assert_eq!(times_beside(1.0, at(1.0)), "1.00x");
        // Without a line, or not a number.
        assert_eq!(times_beside(1.0455, None), "1.05x");
        assert_eq!(times_beside(f64::NAN, at(1.0)), "n/a");
        assert_eq!(times_beside(f64::INFINITY, at(1.0)), "inf");
        // Past the most decimals, cut toward its side.
        assert_eq!(times_beside(1.049_999_999_9, at(1.0)), "1.049999x");
        assert_eq!(
            ratio_words(&[1.045_47, 1.0508, 1.017], at(1.0)),
            "per round 1.045x, 1.051x, 1.02x (median 1.045x)"
        );
    }

    #[test]
    fn shares_are_written_with_the_decimals_their_size_needs() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0 / 61113.0 / 2.0), "<0.01%");
        assert_eq!(percent(22.0 / 61113.0), "0.04%");
        assert_eq!(percent(0.075), "7.5%");
        assert_eq!(percent(1.0), "100.0%");
    }
}
