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

/// A figure of a round, as evidence shows it: "1.17x", "inf", "n/a".
fn times(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else if x.is_infinite() {
        "inf".into()
    } else {
        format!("{x:.2}x")
    }
}

/// Per-round ratios as they were judged, each round's and their median:
/// "per round 1.17x, 0.96x, 0.98x (median 0.98x)", "1.17x (one round)".
pub fn ratio_words(per_round: &[f64]) -> String {
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
            ratio_words(&[1.17, 0.96, 0.98]),
            "per round 1.17x, 0.96x, 0.98x (median 0.98x)"
        );
        assert_eq!(ratio_words(&[2.0]), "2.00x (one round)");
        assert_eq!(
            ratio_words(&[f64::INFINITY, 1.5]),
            "per round inf, 1.50x (median 1.50x)"
        );
        assert_eq!(share_words(&[0.06, 0.24]), "6.0%, 24.0% per round");
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
