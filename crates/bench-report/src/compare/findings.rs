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

use bench_model::Finding;
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
    pub evidence: String,
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

fn judged(f: &Finding) -> Judged {
    Judged {
        verdict: f.verdict,
        interval: f.interval,
        evidence: f.evidence.clone(),
    }
}

/// Every finding of either run: the old run's in its order (with the new
/// run's verdict where it has the id), then those only the new run has.
pub fn compare_findings(old: &[Finding], new: &[Finding]) -> Vec<FindingChange> {
    let mut out: Vec<FindingChange> = old
        .iter()
        .map(|o| {
            let n = new.iter().find(|n| n.id == o.id);
            FindingChange {
                id: o.id.clone(),
                claim: n.unwrap_or(o).claim.clone(),
                old: Some(judged(o)),
                new: n.map(judged),
                change: n.map_or(Change::OnlyInOld, |n| Change::of(o.verdict, n.verdict)),
            }
        })
        .collect();
    out.extend(
        new.iter()
            .filter(|n| !old.iter().any(|o| o.id == n.id))
            .map(|n| FindingChange {
                id: n.id.clone(),
                claim: n.claim.clone(),
                old: None,
                new: Some(judged(n)),
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
