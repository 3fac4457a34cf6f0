//! A finding as a run saves it: the claim, its kind, its verdict, the
//! interval the verdict was taken on and the evidence. How a finding is
//! judged is bench-analysis's; this is the record.

use serde::{Deserialize, Serialize};

use crate::ids::ColumnId;
use crate::Spread;

/// The answer to a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The whole interval clears the claim's line by the margin.
    #[serde(rename = "HELD")]
    Held,
    /// The whole interval misses the line by the margin.
    #[serde(rename = "NOT HELD")]
    NotHeld,
    /// Two figures compared, and every round within the margin of 1.0x,
    /// none clearing or missing the claim's line: no difference, which is
    /// an answer (criterion's "no change detected"), not a doubt.
    #[serde(rename = "SAME")]
    Same,
    /// The rounds disagree, sit within the margin of a line far from
    /// 1.0x, or a round lacks its figure: the rounds cannot tell.
    #[serde(rename = "INCONCLUSIVE")]
    Inconclusive,
    /// A column the claim needs was not run.
    #[serde(rename = "NOT MEASURED")]
    NotMeasured,
}

impl Verdict {
    /// Whether the claim held.
    pub fn held(self) -> bool {
        self == Verdict::Held
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Held => "HELD",
            Verdict::NotHeld => "NOT HELD",
            Verdict::Same => "SAME",
            Verdict::Inconclusive => "INCONCLUSIVE",
            Verdict::NotMeasured => "NOT MEASURED",
        }
    }
}

/// What a finding puts to the test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A measured comparison against a line, which real data can fail:
    /// what a run's headline counts.
    Prediction,
    /// Confirms what the build guarantees (a thread count a setting fixes,
    /// marks that only marked code sets, an identity of a window's own
    /// figures): worth showing, listed apart from the predictions.
    DesignCheck,
}

impl FindingKind {
    /// "prediction", "design check".
    pub fn words(self) -> &'static str {
        match self {
            FindingKind::Prediction => "prediction",
            FindingKind::DesignCheck => "design check",
        }
    }
}

/// One checked conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    /// The seed it comes from, e.g. "seed 000", or "beyond the seeds: ..."
    /// with what it is about.
    pub seed: String,
    /// Prediction or design check; absent in runs saved before kinds (a
    /// printer then asks bench-analysis for its build's kind of the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FindingKind>,
    /// The conclusion, in words.
    pub claim: String,
    pub verdict: Verdict,
    /// The ratio (or factor) over rounds the verdict was taken on.
    pub interval: Option<Spread>,
    /// The line each round's figure was judged against (1.0 for "beats",
    /// 0.85 for "within 15%"), when the rounds were one figure against one
    /// line; a printer writes a figure beside it so that it never reads on
    /// the other side. Absent where a round is not one figure (the
    /// detectors, a crossover, the cold-start probe) and in runs saved
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<f64>,
    /// The numbers behind the verdict: both sides' medians and the interval.
    pub evidence: String,
    /// The evidence in a few words for a table's cell, when the whole of it
    /// is too long for one; empty when the evidence is short enough itself
    /// (and in runs saved before it existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub short_evidence: String,
    /// The columns the claim needs.
    pub columns: Vec<ColumnId>,
    /// What the verdict means for someone choosing a model, in one sentence;
    /// empty in runs saved before it existed (a printer then asks
    /// bench-analysis for its build's sentence).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub meaning: String,
}

impl Finding {
    /// The evidence for a table's cell: the short one when there is one,
    /// else the whole; never a cut.
    pub fn table_evidence(&self) -> &str {
        if self.short_evidence.is_empty() {
            &self.evidence
        } else {
            &self.short_evidence
        }
    }
}
