//! Rounds into figures: the median of a metric over a column's rounds with its
//! spread, the ratio of two columns round by round, and the three-way verdict
//! on an interval.
//!
//! The interval is the plain min..max over rounds. With the columns of a group
//! interleaved, round i of one column ran next to round i of the other, so a
//! ratio is taken per round and its min..max says how much the comparison
//! itself moved. A claim holds only when the whole interval clears its line by
//! the margin; it fails only when the whole interval misses it by the margin;
//! anything else is inconclusive. That is what keeps two runs from calling the
//! same comparison HELD and NOT HELD.

use bench_model::{ColumnResult, RoundResult, Spread, Verdict};

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

/// A metric of one round, `None` where the round does not have it.
pub type Metric = fn(&RoundResult) -> Option<f64>;

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

/// The spread of `a / b` taken round by round (rounds matched by number).
pub fn ratio_spread(a: &ColumnResult, b: &ColumnResult, metric: Metric) -> Option<Spread> {
    Spread::of(a.rounds.iter().filter_map(|ra| {
        let rb = b.rounds.iter().find(|rb| rb.round == ra.round)?;
        let (x, y) = (metric(ra)?, metric(rb)?);
        (y != 0.0).then(|| x / y)
    }))
}

/// Which side of its line a claim wants the figure on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Above,
    Below,
}

/// The verdict on "the figure is on `side` of `line`", given its interval
/// over rounds and a relative `margin` either side of the line.
pub fn verdict(interval: &Spread, side: Side, line: f64, margin: f64) -> Verdict {
    let (high, low) = (line * (1.0 + margin), line * (1.0 - margin));
    let (clears, misses) = match side {
        Side::Above => (interval.min > high, interval.max < low),
        Side::Below => (interval.max < low, interval.min > high),
    };
    if clears {
        Verdict::Held
    } else if misses {
        Verdict::NotHeld
    } else {
        Verdict::Inconclusive
    }
}

/// "1.16x (1.08-1.22x over 3 rounds)".
pub fn describe_ratio(s: &Spread) -> String {
    format!(
        "{:.2}x ({:.2}-{:.2}x over {} round{})",
        s.median,
        s.min,
        s.max,
        s.n,
        if s.n == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(values: &[f64]) -> Spread {
        Spread::of(values.iter().copied()).unwrap()
    }

    #[test]
    fn three_verdicts_with_a_margin_either_side_of_the_line() {
        let m = 0.05;
        // Every round more than 5% above 1.0: held.
        assert_eq!(
            verdict(&s(&[1.06, 1.2, 1.1]), Side::Above, 1.0, m),
            Verdict::Held
        );
        // Every round more than 5% below: not held.
        assert_eq!(
            verdict(&s(&[0.8, 0.94]), Side::Above, 1.0, m),
            Verdict::NotHeld
        );
        // A tie, and an interval that crosses the line: inconclusive.
        assert_eq!(
            verdict(&s(&[0.99, 1.01]), Side::Above, 1.0, m),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict(&s(&[0.9, 1.3]), Side::Above, 1.0, m),
            Verdict::Inconclusive
        );
        // Exactly on the margin is not beyond it.
        assert_eq!(
            verdict(&s(&[1.05, 1.2]), Side::Above, 1.0, m),
            Verdict::Inconclusive
        );
        // "At most a quarter": below the line.
        assert_eq!(
            verdict(&s(&[0.1, 0.2]), Side::Below, 0.25, m),
            Verdict::Held
        );
        assert_eq!(
            verdict(&s(&[0.3, 0.5]), Side::Below, 0.25, m),
            Verdict::NotHeld
        );
        assert_eq!(
            verdict(&s(&[0.2, 0.3]), Side::Below, 0.25, m),
            Verdict::Inconclusive
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
