//! The one rule every finding is judged by, and the only place a verdict
//! is made (a tidy test checks that no other module of this crate names
//! HELD, NOT HELD, SAME or INCONCLUSIVE but to match on them).
//!
//! A finding asks the same question of every round: does this round clear
//! the claim's line by the margin, miss it by the margin, sit within the
//! margin of it, or lack its figure ([`Call`])? Then:
//!
//! - **HELD** when every round clears it;
//! - **NOT HELD** when every round misses it;
//! - **SAME**, for a comparison of two figures only (a ratio per round,
//!   [`judge_comparison`]), when no round clears or misses the line and
//!   every round's ratio is within the margin of 1.0x: the two did the
//!   same, a clear answer. A line far from 1.0 ("at least 2.5x") cannot
//!   hide a failure this way: a round at 1.0x misses such a line, and
//!   every round missing it is NOT HELD, as ever. Only a line within about
//!   twice the margin of 1.0 has rounds that are both within its margin
//!   and within the margin of 1.0x;
//! - **INCONCLUSIVE** otherwise, with the reason in words ([`Undecided`]):
//!   the rounds disagree ("2 clear the line, 1 within its margin"), every
//!   round sits within the margin of a line that is not 1.0x, or a round
//!   lacks its figure ("no figure in round 2").
//!
//! A round is a column round (rounds of different columns paired by
//! number), except where a finding says what else it is: a sweep's round
//! holds all its steps, and the cold-start probe, whose starts are a
//! count, is one observation. A round in which nothing succeeded is a
//! round at 0 requests per second, never left out.

use bench_model::Verdict;

use crate::stats::{times_beside, Line};

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
    /// Within the margin of the line.
    Unclear,
    /// The round has no figure (0 / 0, a reading that is missing).
    NoFigure,
}

/// One round's `figure` against "on `side` of `line`", with a relative
/// `margin` either side of the line. A figure that is not a number (0 / 0)
/// has none; an infinite one (a ratio over a round at 0) clears or misses
/// like any other.
pub fn call(figure: f64, side: Side, line: f64, margin: f64) -> Call {
    if figure.is_nan() {
        return Call::NoFigure;
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
/// MEASURED without a round. Never SAME: that needs the figures
/// ([`judge_comparison`]).
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

/// Whether a ratio is within `margin` of 1.0x: the two figures it divides
/// the same (the margin is relative, as everywhere: 0.95 to 1.05 at 5%).
pub fn within_margin_of_one(ratio: f64, margin: f64) -> bool {
    call(ratio, Side::Above, 1.0, margin) == Call::Unclear
}

/// The verdict on a comparison of two figures, `ratios` one per round
/// (the first figure over the second) against "on `side` of `line`": the
/// rule of [`judge`], and SAME when no round clears or misses the line
/// and every round is within the margin of 1.0x.
pub fn judge_comparison(ratios: &[f64], side: Side, line: f64, margin: f64) -> Verdict {
    let calls: Vec<Call> = ratios
        .iter()
        .map(|&r| call(r, side, line, margin))
        .collect();
    let tie = !calls.is_empty()
        && calls.iter().all(|c| *c == Call::Unclear)
        && ratios.iter().all(|&r| within_margin_of_one(r, margin));
    if tie {
        Verdict::Same
    } else {
        judge(calls)
    }
}

/// "1", "1 and 2", "1, 2 and 3".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Why rounds decide nothing (an INCONCLUSIVE verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undecided {
    /// These rounds (numbered from 1, in the rounds' order) have no figure.
    NoFigure(Vec<usize>),
    /// Every round sits within the margin of the line (a line not at
    /// 1.0x, or the rounds would be SAME in a comparison).
    OnTheLine,
    /// The rounds disagree: so many clear the line, miss it, sit within
    /// its margin.
    Disagree {
        clear: usize,
        miss: usize,
        within: usize,
    },
}

impl Undecided {
    /// Why `calls` decide nothing; `None` when they do (every round
    /// clears, or every one misses) or there is none.
    pub fn of(calls: &[Call]) -> Option<Undecided> {
        if calls.is_empty()
            || matches!(
                judge(calls.iter().copied()),
                Verdict::Held | Verdict::NotHeld
            )
        {
            return None;
        }
        let missing: Vec<usize> = (1..)
            .zip(calls)
            .filter(|(_, c)| **c == Call::NoFigure)
            .map(|(n, _)| n)
            .collect();
        let count = |which: Call| calls.iter().filter(|c| **c == which).count();
        Some(if !missing.is_empty() {
            Undecided::NoFigure(missing)
        } else if count(Call::Unclear) == calls.len() {
            Undecided::OnTheLine
        } else {
            Undecided::Disagree {
                clear: count(Call::Clears),
                miss: count(Call::Misses),
                within: count(Call::Unclear),
            }
        })
    }

    /// "no figure in round 2", "every round within the margin of the
    /// line", "rounds disagree: 2 clear the line and 1 within its margin".
    pub fn words(&self) -> String {
        match self {
            Undecided::NoFigure(rounds) => {
                let numbers: Vec<String> = rounds.iter().map(usize::to_string).collect();
                let rounds = if numbers.len() == 1 {
                    "round"
                } else {
                    "rounds"
                };
                format!("no figure in {rounds} {}", and_list(&numbers))
            }
            Undecided::OnTheLine => "every round within the margin of the line".to_owned(),
            Undecided::Disagree {
                clear,
                miss,
                within,
            } => {
                let parts: Vec<String> = [
                    (*clear, "clears the line", "clear the line"),
                    (*miss, "misses it", "miss it"),
                    (*within, "within its margin", "within its margin"),
                ]
                .into_iter()
                .filter(|(n, _, _)| *n > 0)
                .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
                .collect();
                format!("rounds disagree: {}", and_list(&parts))
            }
        }
    }

    /// What could decide it, for a reader.
    pub fn advice(&self) -> &'static str {
        match self {
            Undecided::NoFigure(_) => "the evidence says which reading is missing",
            Undecided::OnTheLine => "the figure sits on the claim's line itself",
            Undecided::Disagree { .. } => "more rounds (--rounds) or a quieter machine may tell",
        }
    }
}

/// Why a comparison came out SAME, in words: "every round within 5% of
/// 1.0x (0.99x to 1.01x)", or "(1.01x)" where every round reads the same,
/// from its per-round `ratios`, written beside 1.0x and its margin.
pub fn same_words(ratios: &[f64], margin: f64) -> String {
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let line = Some(Line { at: 1.0, margin });
    let (lo, hi) = (times_beside(lo, line), times_beside(hi, line));
    let range = if lo == hi {
        lo
    } else {
        format!("{lo} to {hi}")
    };
    format!(
        "every round within {:.0}% of 1.0x ({range})",
        margin * 100.0
    )
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
        assert_eq!(call(f64::NAN, Side::Above, 1.0, m), Call::NoFigure);
    }

    fn undecided(calls: &[Call]) -> Option<String> {
        Undecided::of(calls).map(|u| u.words())
    }

    #[test]
    fn why_rounds_decide_nothing_is_said_in_words() {
        use Call::*;
        let cases: [(&[Call], Option<&str>); 8] = [
            (&[Clears, Clears], None),
            (&[Misses], None),
            (&[], None),
            (
                &[Clears, Unclear, Clears],
                Some("rounds disagree: 2 clear the line and 1 within its margin"),
            ),
            (
                &[Clears, Misses, Unclear],
                Some("rounds disagree: 1 clears the line, 1 misses it and 1 within its margin"),
            ),
            (&[Clears, NoFigure, Clears], Some("no figure in round 2")),
            (
                &[NoFigure, Clears, NoFigure],
                Some("no figure in rounds 1 and 3"),
            ),
            (
                &[Unclear, Unclear],
                Some("every round within the margin of the line"),
            ),
        ];
        for (calls, words) in cases {
            assert_eq!(undecided(calls).as_deref(), words, "{calls:?}");
        }
    }
}
