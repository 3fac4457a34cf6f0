//! The one rule every finding is judged by, and the only place a verdict
//! is made (a tidy test checks that no other module of this crate names
//! HELD, NOT HELD or INCONCLUSIVE but to match on them).
//!
//! A finding asks the same question of every round: does this round clear
//! the claim's line by the margin, miss it by the margin, or neither
//! ([`Call`])? Then:
//!
//! - **HELD** when every round clears it;
//! - **NOT HELD** when every round misses it;
//! - **INCONCLUSIVE** otherwise: the rounds disagree, or some sit within
//!   the margin of the line, or a round lacks the figure.
//!
//! A round is a column round (rounds of different columns paired by
//! number), except where a finding says what else it is: a sweep's round
//! holds all its steps, and the cold-start probe, whose starts are a
//! count, is one observation. A round in which nothing succeeded is a
//! round at 0 requests per second, never left out.

use bench_model::Verdict;

/// Which side of its line a claim wants the figure on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Above,
    Below,
}

/// What one round says of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// Beyond the margin on the claim's side of the line.
    Clears,
    /// Beyond the margin on the other side.
    Misses,
    /// Within the margin of the line, or without a figure.
    Unclear,
}

/// One round's `figure` against "on `side` of `line`", with a relative
/// `margin` either side of the line. A figure that is not a number (0 / 0)
/// is unclear; an infinite one (a ratio over a round at 0) clears or
/// misses like any other.
pub fn call(figure: f64, side: Side, line: f64, margin: f64) -> Call {
    if figure.is_nan() {
        return Call::Unclear;
    }
    let (high, low) = (line * (1.0 + margin), line * (1.0 - margin));
    let (clears, misses) = match side {
        Side::Above => (figure > high, figure < low),
        Side::Below => (figure < low, figure > high),
    };
    if clears {
        Call::Clears
    } else if misses {
        Call::Misses
    } else {
        Call::Unclear
    }
}

/// The verdict on rounds' calls: HELD when every round clears the line,
/// NOT HELD when every round misses it, INCONCLUSIVE otherwise; NOT
/// MEASURED without a round.
pub fn judge(calls: impl IntoIterator<Item = Call>) -> Verdict {
    let calls: Vec<Call> = calls.into_iter().collect();
    if calls.is_empty() {
        Verdict::NotMeasured
    } else if calls.iter().all(|c| *c == Call::Clears) {
        Verdict::Held
    } else if calls.iter().all(|c| *c == Call::Misses) {
        Verdict::NotHeld
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_clears_or_misses_only_beyond_the_margin() {
        let m = 0.05;
        assert_eq!(call(1.06, Side::Above, 1.0, m), Call::Clears);
        assert_eq!(call(1.05, Side::Above, 1.0, m), Call::Unclear);
        assert_eq!(call(0.94, Side::Above, 1.0, m), Call::Misses);
        assert_eq!(call(0.2, Side::Below, 0.25, m), Call::Clears);
        assert_eq!(call(0.3, Side::Below, 0.25, m), Call::Misses);
        assert_eq!(call(f64::INFINITY, Side::Above, 1.0, m), Call::Clears);
        assert_eq!(call(0.0, Side::Above, 1.0, m), Call::Misses);
        assert_eq!(call(f64::NAN, Side::Above, 1.0, m), Call::Unclear);
    }
}
