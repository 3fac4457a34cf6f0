//! A finding as a run saves it: the claim, its verdict, the interval the
//! verdict was taken on and the evidence. How a finding is judged is
//! bench-analysis's; this is the record.

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
    /// The interval reaches within the margin of the line: the rounds cannot tell.
    #[serde(rename = "INCONCLUSIVE")]
    Inconclusive,
    /// A column the claim needs was not run.
    #[serde(rename = "NOT MEASURED")]
    NotMeasured,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Held => "HELD",
            Verdict::NotHeld => "NOT HELD",
            Verdict::Inconclusive => "INCONCLUSIVE",
            Verdict::NotMeasured => "NOT MEASURED",
        }
    }
}

/// One checked conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    /// The seed it comes from, e.g. "seed 000".
    pub seed: String,
    /// The conclusion, in words.
    pub claim: String,
    pub verdict: Verdict,
    /// The ratio (or factor) over rounds the verdict was taken on.
    pub interval: Option<Spread>,
    /// The numbers behind the verdict: both sides' medians and the interval.
    pub evidence: String,
    /// The columns the claim needs.
    pub columns: Vec<ColumnId>,
    /// What the verdict means for someone choosing a model, in one sentence;
    /// empty in runs saved before it existed (a printer then asks
    /// bench-analysis for its build's sentence).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub meaning: String,
}
