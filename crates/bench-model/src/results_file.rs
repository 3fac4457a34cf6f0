//! results.json, read and written in this one place: a run, then the
//! thresholds its findings were judged with, then the findings. A saved
//! run is a record: nothing writes one back (`bench render` writes its
//! report elsewhere). A file of another shape is refused with one line
//! saying why; a file of an older shape this build still reads is upgraded
//! on reading, each field added since defaulting (see the `serde(default)`
//! of each type), never by rewriting the file.

use serde::{Deserialize, Serialize};

use crate::{Finding, RunResults, Thresholds};

/// The shape of results.json this build writes. 3 added `source`, the
/// settings' server URLs and an unknown `cold_start`; a file of shape 2
/// reads as one of shape 3 without them.
pub const SCHEMA_VERSION: u32 = 3;

/// The shapes of results.json this build reads.
pub const READABLE_SCHEMA_VERSIONS: std::ops::RangeInclusive<u32> = 2..=3;

/// A saved run as results.json holds it.
#[derive(Debug, Clone, Deserialize)]
pub struct SavedRun {
    #[serde(flatten)]
    pub results: RunResults,
    /// The thresholds its findings were judged with.
    pub thresholds: Thresholds,
    /// The findings as that run's build judged them.
    pub findings: Vec<Finding>,
}

/// The shape of results.json as written: the run, then the findings and
/// the thresholds they used.
#[derive(Serialize)]
struct ResultsFile<'a> {
    #[serde(flatten)]
    results: &'a RunResults,
    thresholds: &'a Thresholds,
    findings: &'a [Finding],
}

/// The text of results.json for a run judged with `thresholds`.
pub fn to_json(
    results: &RunResults,
    thresholds: &Thresholds,
    findings: &[Finding],
) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&ResultsFile {
        results,
        thresholds,
        findings,
    })
}

impl SavedRun {
    /// The saved run in `text`, the contents of the file `name` (named in
    /// the error), or one line saying why it is not one: not JSON, a schema
    /// version this build does not read, or not a bench run.
    pub fn from_json(text: &str, name: &str) -> Result<SavedRun, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{name} is not JSON: {e}"))?;
        match value.get("schema_version").and_then(|v| v.as_u64()) {
            Some(v) if READABLE_SCHEMA_VERSIONS.contains(&(v as u32)) => {}
            Some(v) => {
                return Err(format!(
                    "{name} has schema version {v}; this build reads {} to {}",
                    READABLE_SCHEMA_VERSIONS.start(),
                    READABLE_SCHEMA_VERSIONS.end()
                ))
            }
            None => {
                return Err(format!(
                    "{name} is not a bench results.json (no schema_version)"
                ))
            }
        }
        serde_json::from_value(value)
            .map_err(|e| format!("{name} is not a bench results.json: {e}"))
    }
}
