//! The findings of two runs matched by id, each with its verdict in both
//! and what the change means: a flip between HELD and NOT HELD (the answer
//! reversed; `bench compare` exits 1, as criterion reports a regression), a
//! verdict that lost or gained its decision, a difference that became SAME
//! or a SAME that became one, or none. A finding one run does not have (a
//! build that added or retired it) is listed as such.
//!
//! A move between SAME and HELD or NOT HELD is not a flip: the answer did
//! not reverse, a difference shrank into the margin or grew out of it
//! (which a rerun on a busier machine can do), and it is listed as such
//! without failing the comparison.

use bench_analysis::findings::lines_of;
use bench_analysis::stats::Line;
use bench_model::{Finding, SavedRun};
use bench_model::{Spread, Verdict};

/// One finding across the two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingChange {
    pub id: String,
    /// The claim as the newer run states it (the older's when only it has it).
    pub claim: String,
    pub old: Option<Judged>,
    pub new: Option<Judged>,
    pub change: Change,
}

/// A finding as one run saved it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    /// The interval the verdict was taken on; its median is shown beside it.
    pub interval: Option<Spread>,
    /// The line the rounds were judged against, with the run's margin,
    /// where the finding saved one.
    pub line: Option<Line>,
    pub evidence: String,
}

impl Judged {
    /// The verdict, and its interval's median written beside its line
    /// ([`crate::numbers::number_beside`]): ("HELD", Some("1.045")).
    pub fn verdict_and_median(&self) -> (&'static str, Option<String>) {
        let median = self
            .interval
            .as_ref()
            .map(|i| crate::numbers::number_beside(i.median, self.line));
        (self.verdict.word(), median)
    }
}

/// What happened to a finding between the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// HELD to NOT HELD or back: the rounds of each run agreed, and the
    /// answers are opposite.
    Flipped {
        from: Verdict,
        to: Verdict,
    },
    /// HELD, NOT HELD or SAME before, INCONCLUSIVE now.
    BecameInconclusive,
    /// INCONCLUSIVE before, HELD, NOT HELD or SAME now.
    NowDecided,
    /// HELD or NOT HELD before, SAME now: the difference fell within the margin.
    BecameSame,
    /// SAME before, HELD or NOT HELD now: a difference beyond the margin.
    NoLongerSame,
    /// NOT MEASURED before, a verdict now.
    NowMeasured,
    /// A verdict before, NOT MEASURED now.
    NoLongerMeasured,
    /// The same verdict in both.
    Unchanged,
    OnlyInOld,
    OnlyInNew,
}

impl Change {
    /// "flipped: HELD -> NOT HELD", "became INCONCLUSIVE", "unchanged", ...
    pub fn describe(self) -> String {
        match self {
            Change::Flipped { from, to } => format!("flipped: {} -> {}", from.word(), to.word()),
            Change::BecameInconclusive => "became INCONCLUSIVE".to_owned(),
            Change::NowDecided => "now decided".to_owned(),
            Change::NowMeasured => "now measured".to_owned(),
            Change::NoLongerMeasured => "no longer measured".to_owned(),
            Change::BecameSame => "became SAME".to_owned(),
            Change::NoLongerSame => "no longer SAME".to_owned(),
            Change::Unchanged => "unchanged".to_owned(),
            Change::OnlyInOld => "only in OLD".to_owned(),
            Change::OnlyInNew => "only in NEW".to_owned(),
        }
    }

    /// The change from verdict `old` to verdict `new`.
    pub fn of(old: Verdict, new: Verdict) -> Change {
        use Verdict::{Held, Inconclusive, NotHeld, NotMeasured, Same};
        match (old, new) {
            (a, b) if a == b => Change::Unchanged,
            (Held, NotHeld) | (NotHeld, Held) => Change::Flipped { from: old, to: new },
            (NotMeasured, _) => Change::NowMeasured,
            (_, NotMeasured) => Change::NoLongerMeasured,
            (Inconclusive, _) => Change::NowDecided,
            (_, Inconclusive) => Change::BecameInconclusive,
            (Held | NotHeld, Same) => Change::BecameSame,
            (Same, Held | NotHeld) => Change::NoLongerSame,
            (Held, Held) | (NotHeld, NotHeld) | (Same, Same) => Change::Unchanged,
        }
    }
}

/// Each finding of `run` as it was judged, its line the saved one (this
/// build's for a run saved before lines were).
fn judged(run: &SavedRun) -> Vec<(&Finding, Judged)> {
    let lines = lines_of(&run.findings, &run.results, &run.thresholds);
    run.findings
        .iter()
        .zip(lines)
        .map(|(f, line)| {
            let j = Judged {
                verdict: f.verdict,
                interval: f.interval,
                line: line.map(|at| Line {
                    at,
                    margin: run.thresholds.margin,
                }),
                evidence: f.evidence.clone(),
            };
            (f, j)
        })
        .collect()
}

/// Every finding of either run: the old run's in its order (with the new
/// run's verdict where it has the id), then those only the new run has.
pub fn compare_findings(old_run: &SavedRun, new_run: &SavedRun) -> Vec<FindingChange> {
    let (old, new) = (judged(old_run), judged(new_run));
    let mut out: Vec<FindingChange> = old
        .iter()
        .map(|(o, oj)| {
            let n = new.iter().find(|(n, _)| n.id == o.id);
            FindingChange {
                id: o.id.clone(),
                claim: n.map_or(*o, |n| n.0).claim.clone(),
                old: Some(oj.clone()),
                new: n.map(|n| n.1.clone()),
                change: n.map_or(Change::OnlyInOld, |n| Change::of(o.verdict, n.0.verdict)),
            }
        })
        .collect();
    out.extend(
        new.iter()
            .filter(|(n, _)| !old.iter().any(|(o, _)| o.id == n.id))
            .map(|(n, nj)| FindingChange {
                id: n.id.clone(),
                claim: n.claim.clone(),
                old: None,
                new: Some(nj.clone()),
                change: Change::OnlyInNew,
            }),
    );
    out
}

/// "27 findings: 0 flipped, 1 became INCONCLUSIVE, 16 unchanged, 8 only in NEW":
/// how many flipped always, the other changes where there are any.
pub fn summary(findings: &[FindingChange]) -> String {
    let flipped = findings
        .iter()
        .filter(|f| matches!(f.change, Change::Flipped { .. }))
        .count();
    let mut parts = vec![format!("{flipped} flipped")];
    for kind in [
        Change::BecameInconclusive,
        Change::NowDecided,
        Change::BecameSame,
        Change::NoLongerSame,
        Change::NowMeasured,
        Change::NoLongerMeasured,
        Change::Unchanged,
        Change::OnlyInOld,
        Change::OnlyInNew,
    ] {
        let n = findings.iter().filter(|f| f.change == kind).count();
        if n > 0 {
            parts.push(format!("{n} {}", kind.describe()));
        }
    }
    format!(
        "{} finding{}: {}",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        parts.join(", ")
    )
}
