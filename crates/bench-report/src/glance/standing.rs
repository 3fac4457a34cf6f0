//! How the models stood in a row, in words made of the row's own rounds:
//! the best ranked cell against each other ranked cell, its figure over
//! theirs paired round by round and judged by the one rule
//! ([`bench_analysis::verdict::judge_comparison`], a lead beyond the
//! margin in every round, the same within it, or neither). Nothing here
//! is written per workload: a rerun whose figures differ says so itself.

use bench_analysis::stats::{times_beside, Line};
use bench_analysis::verdict::{call, judge_comparison, Call, Side};
use bench_model::Verdict;

use super::measure::Figure;
use super::{Cell, Model, Pick};

/// How the best ranked model of a row stood against one other.
#[derive(Debug, Clone, PartialEq)]
pub struct Against {
    pub model: Model,
    /// Its best variant's name.
    pub variant: String,
    /// The best's figure over the other's per round (for a cost, the
    /// other's over the best's: how many times better the best did),
    /// rounds paired by number.
    pub ratios: Vec<f64>,
    /// The one rule on those ratios against 1.0: HELD a lead in every
    /// round, SAME within the margin in every round, INCONCLUSIVE neither.
    pub verdict: Verdict,
}

/// A row's standing: its best ranked model and how it stood against
/// each other ranked model; `None` with fewer than two ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub best: (Model, String),
    pub against: Vec<Against>,
    pub margin: f64,
}

/// Per round number both have, `better` over `worse` as the figure ranks.
fn paired(best: &Pick, other: &Pick, higher_is_better: bool) -> Vec<f64> {
    best.rounds
        .iter()
        .filter_map(|(round, b)| {
            let o = other.rounds.iter().find(|(r, _)| r == round)?.1;
            Some(if higher_is_better { b / o } else { o / b })
        })
        .collect()
}

/// The standing of a row's `cells`, compared by `figure`.
pub fn standing(cells: &[(Model, Cell)], figure: Figure, margin: f64) -> Option<Standing> {
    let ranked: Vec<(Model, &Pick, f64)> = cells
        .iter()
        .filter_map(|(m, c)| match c {
            Cell::Best {
                pick,
                relative: Some(r),
            } => Some((
                *m,
                pick,
                crate::charts::closeness(figure.higher_is_better(), r),
            )),
            _ => None,
        })
        .collect();
    if ranked.len() < 2 {
        return None;
    }
    let best = ranked
        .iter()
        .fold(ranked[0], |b, x| if x.2 > b.2 { *x } else { b });
    let against = ranked
        .iter()
        .filter(|x| x.0 != best.0)
        .map(|(model, pick, _)| {
            let ratios = paired(best.1, pick, figure.higher_is_better());
            Against {
                model: *model,
                variant: pick.variant.clone(),
                verdict: judge_comparison(&ratios, Side::Above, 1.0, margin),
                ratios,
            }
        })
        .collect();
    Some(Standing {
        best: (best.0, best.1.variant.clone()),
        against,
        margin,
    })
}

/// A model as a sentence names it: "the thread pool", "virtual threads".
pub fn the(m: Model) -> String {
    match m {
        Model::VirtualThreads => m.name().to_owned(),
        _ => format!("the {}", m.name()),
    }
}

/// Its possessive: "the thread pool's", "virtual threads'".
fn of(m: Model) -> String {
    let name = the(m);
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

impl Standing {
    /// "1.15-1.30x", or "1.15x" where every round reads the same.
    fn range(&self, ratios: &[f64]) -> String {
        let line = Some(Line {
            at: 1.0,
            margin: self.margin,
        });
        let lo = times_beside(ratios.iter().copied().fold(f64::INFINITY, f64::min), line);
        let hi = times_beside(
            ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            line,
        );
        if lo == hi {
            lo
        } else {
            format!("{}-{hi}", lo.trim_end_matches('x'))
        }
    }

    /// One clause, without "every round" where the sentence says it once:
    /// "1.15-1.30x the thread pool's", "the event loop 2.42x as much",
    /// "the same as the event loop within 5%", "ahead of the event loop by
    /// over 5% in 2 of 3 rounds (0.99-1.12x)".
    fn clause(&self, a: &Against, figure: Figure) -> String {
        let other = the(a.model);
        match a.verdict {
            Verdict::Held if figure.higher_is_better() => {
                format!("{} {}", self.range(&a.ratios), of(a.model))
            }
            Verdict::Held => format!("{other} {} as much", self.range(&a.ratios)),
            Verdict::Same => format!("the same as {other} within {:.0}%", self.margin * 100.0),
            Verdict::NotMeasured => format!("no round to pair with {}", of(a.model)),
            _ => {
                let ahead = a
                    .ratios
                    .iter()
                    .filter(|&&r| call(r, Side::Above, 1.0, self.margin) == Call::Clears)
                    .count();
                format!(
                    "ahead of {other} by over {:.0}% in {ahead} of {} rounds ({})",
                    self.margin * 100.0,
                    a.ratios.len(),
                    self.range(&a.ratios)
                )
            }
        }
    }

    /// The standing in words, short enough for the matrix's last column
    /// (the cells name the variants): "virtual threads lead in every
    /// round: 1.15-1.30x the thread pool's, 1.27-1.35x the event loop's",
    /// "the ranked models the same within 5% in every round", or clause by
    /// clause where they differ: "the event loop leads: ahead of the thread
    /// pool by over 5% in 2 of 3 rounds (1.0001-1.12x); 1.37-1.47x virtual
    /// threads' in every round".
    pub fn words(&self, figure: Figure) -> String {
        if self.against.iter().all(|a| a.verdict == Verdict::Same) {
            return format!(
                "the ranked models the same within {:.0}% in every round",
                self.margin * 100.0
            );
        }
        let plural = self.best.0 == Model::VirtualThreads;
        let verb = match (figure.higher_is_better(), plural) {
            (true, false) => "leads",
            (true, true) => "lead",
            (false, false) => "costs least",
            (false, true) => "cost least",
        };
        let best = the(self.best.0);
        let every = |a: &Against| matches!(a.verdict, Verdict::Held | Verdict::Same);
        let clauses: Vec<String> = self
            .against
            .iter()
            .map(|a| self.clause(a, figure))
            .collect();
        if self.against.iter().all(every) {
            return format!("{best} {verb} in every round: {}", clauses.join(", "));
        }
        let clauses: Vec<String> = self
            .against
            .iter()
            .zip(clauses)
            .map(|(a, c)| {
                if every(a) {
                    format!("{c} in every round")
                } else {
                    c
                }
            })
            .collect();
        format!("{best} {verb}: {}", clauses.join("; "))
    }
}
