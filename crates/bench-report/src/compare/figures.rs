//! One figure of one column in both runs, and the word for its change:
//! improved, regressed, or within noise.
//!
//! The noise rule: a change is called only when the two runs' round ranges
//! (min..max over rounds) do not overlap. A run's rounds are its only
//! measure of its own spread: the two runs ran at different times, on a
//! machine shared with other work, so nothing but each run's rounds says how
//! far its figure moves when nothing changed, and a difference of medians
//! smaller than that movement is no evidence of anything. Not overlapping is
//! a modest bar: with 3 rounds a side, two runs of the same code come out
//! wholly apart by chance about one time in ten (2 of the 20 ways to split
//! 6 rounds into two sets of 3), so "improved" means "probably", and a
//! second comparison settles it. With a single round a side there is no
//! spread to judge by, and the answer is that it cannot tell.
//!
//! Apart is not enough on its own: a paced load (the mixed group's probe at
//! 50 req/s) varies by hundredths of a percent, so two runs of it are often
//! wholly apart by a change no one would call one. As criterion has a noise
//! threshold, a change is called only when the medians also differ by more
//! than the margin the findings use ([`bench_model::Thresholds::margin`],
//! 5%); a smaller one, however apart, is "below margin".

use bench_model::Spread;

use crate::numbers::number;

/// What is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Successful requests per second (in a sweep, at the step), as
    /// everywhere ([`bench_model::figures::successful_rps`]): a column
    /// whose requests fail faster does not gain by it.
    Throughput,
    /// The 99th percentile of latency, in ms (in a sweep: every request of
    /// the window counted, a lower bound where some got no answer).
    P99,
    /// Server CPU per request, in microseconds (in a sweep: per answer).
    CpuPerRequest,
    /// Resident memory above idle per open idle connection, in KiB.
    IdleKibPerConnection,
    /// Threads above idle per open idle connection.
    IdleThreadsPerConnection,
}

impl Figure {
    /// Its name in a table, with its unit.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Throughput => "req/s",
            Figure::P99 => "p99 ms",
            Figure::CpuPerRequest => "server CPU us/req",
            Figure::IdleKibPerConnection => "KiB per idle conn",
            Figure::IdleThreadsPerConnection => "threads per idle conn",
        }
    }

    /// Whether more is better: throughput only; latency, CPU, memory and
    /// threads are costs.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Figure::Throughput)
    }
}

/// The word for a figure's change, as criterion's: improved, regressed, or
/// (the answer that matters as much) no change beyond the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Improved,
    Regressed,
    /// The round ranges overlap: the runs cannot tell the figures apart.
    WithinNoise,
    /// The ranges are apart, but the medians differ by no more than the margin.
    BelowMargin,
    /// A side has a single round: no spread to judge a change by.
    OneRound,
    /// A side's figure is only a lower bound (a p99 with as many requests
    /// without an answer as its tail holds), and the change is one such a
    /// bound cannot show: a lower bound that fell, or one a figure rose to.
    LowerBound,
    /// A side does not have the figure.
    NotMeasured,
}

impl Word {
    pub fn word(self) -> &'static str {
        match self {
            Word::Improved => "improved",
            Word::Regressed => "regressed",
            Word::WithinNoise => "within noise",
            Word::BelowMargin => "below margin",
            Word::OneRound => "cannot tell: 1 round",
            Word::LowerBound => "cannot tell: a lower bound",
            Word::NotMeasured => "not measured",
        }
    }
}

/// One figure of one column (or one sweep step, or one idle size) in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureChange {
    /// The column, with the step or size where there is one: "async-users",
    /// "async-posts-sweep @ 400".
    pub column: String,
    pub figure: Figure,
    pub old: Option<Spread>,
    pub new: Option<Spread>,
    /// Whether each side's figure is only a lower bound (old, new).
    pub lower_bound: (bool, bool),
    pub word: Word,
}

impl FigureChange {
    /// The figure of both runs, judged by the noise rule with `margin`.
    pub fn new(
        column: String,
        figure: Figure,
        (old, new): (Option<Spread>, Option<Spread>),
        margin: f64,
    ) -> Self {
        FigureChange {
            column,
            figure,
            old,
            new,
            lower_bound: (false, false),
            word: judge(figure, old.as_ref(), new.as_ref(), margin),
        }
    }

    /// With each side's figure a lower bound where `bounds` says so: a
    /// change the bound cannot show is no longer called. A lower bound
    /// that rose is still a rise, and a figure that fell below an old
    /// bound still fell; the other way round, the true figure may be
    /// anywhere above its bound.
    pub fn with_lower_bounds(self, bounds: (bool, bool)) -> Self {
        let went_up = match (self.old, self.new) {
            (Some(o), Some(n)) => n.median > o.median,
            _ => false,
        };
        let unknown = match bounds {
            (true, true) => true,
            (false, true) => !went_up,
            (true, false) => went_up,
            (false, false) => false,
        };
        let word = if unknown && matches!(self.word, Word::Improved | Word::Regressed) {
            Word::LowerBound
        } else {
            self.word
        };
        FigureChange {
            lower_bound: bounds,
            word,
            ..self
        }
    }

    /// The new median relative to the old (0.123 for +12.3%); `None` when a
    /// side is missing or the old median is 0 and the new is not.
    pub fn relative(&self) -> Option<f64> {
        let (o, n) = (self.old?.median, self.new?.median);
        if o == 0.0 {
            return (n == 0.0).then_some(0.0);
        }
        Some((n - o) / o.abs())
    }
}

/// The word for `old` against `new` by the noise rule (module doc), a
/// change needing to exceed `margin` (0.05: 5%) as well.
pub fn judge(figure: Figure, old: Option<&Spread>, new: Option<&Spread>, margin: f64) -> Word {
    let (Some(o), Some(n)) = (old, new) else {
        return Word::NotMeasured;
    };
    if o.n < 2 || n.n < 2 {
        return Word::OneRound;
    }
    if o.min <= n.max && n.min <= o.max {
        return Word::WithinNoise;
    }
    if (n.median - o.median).abs() <= margin * o.median.abs() {
        return Word::BelowMargin;
    }
    let went_up = n.min > o.max;
    if went_up == figure.higher_is_better() {
        Word::Improved
    } else {
        Word::Regressed
    }
}

/// "+12.3%", "-4.0%", "0%"; "n/a" without a relative change.
pub fn describe_relative(change: Option<f64>) -> String {
    match change {
        None => "n/a".to_owned(),
        Some(0.0) => "0%".to_owned(),
        Some(c) => format!("{:+.1}%", c * 100.0),
    }
}

/// "12807 (12001..13200)": the median and the rounds' range; "-" when
/// missing; "≥2736 (2697..3066)" for a lower bound.
pub fn describe_spread(s: Option<&Spread>, lower_bound: bool) -> String {
    let bound = if lower_bound { "≥" } else { "" };
    match s {
        None => "-".to_owned(),
        Some(s) if s.n == 1 => format!("{bound}{}", number(s.median)),
        Some(s) => format!(
            "{bound}{} ({}..{})",
            number(s.median),
            number(s.min),
            number(s.max)
        ),
    }
}
