//! Reading a saved `results.json`: the run, and the findings and thresholds
//! it was judged with. A saved run is a record: readers never write it
//! back (`bench render` writes its report elsewhere), and a file of
//! another shape is refused with one line saying why.

use std::path::Path;

use serde::Deserialize;

use crate::findings::{Finding, Thresholds};
use crate::model::{RunResults, READABLE_SCHEMA_VERSIONS};

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

/// Reads `path`, or says in one line why it cannot: unreadable, not JSON,
/// a schema version this build does not read, or not a bench run.
pub fn read(path: &Path) -> Result<SavedRun, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let version = value.get("schema_version").and_then(|v| v.as_u64());
    match version {
        Some(v) if READABLE_SCHEMA_VERSIONS.contains(&(v as u32)) => {}
        Some(v) => {
            return Err(format!(
                "{} has schema version {v}; this build reads {} to {}",
                path.display(),
                READABLE_SCHEMA_VERSIONS.start(),
                READABLE_SCHEMA_VERSIONS.end()
            ))
        }
        None => {
            return Err(format!(
                "{} is not a bench results.json (no schema_version)",
                path.display()
            ))
        }
    }
    serde_json::from_value(value)
        .map_err(|e| format!("{} is not a bench results.json: {e}", path.display()))
}
