//! Reading a saved `results.json` from its file: the text, parsed by
//! bench-model, which refuses another shape with one line saying why.

use std::path::Path;

use bench_model::SavedRun;

/// Reads `path`, or says in one line why it cannot: unreadable, not JSON,
/// a schema version this build does not read, or not a bench run.
pub fn read(path: &Path) -> Result<SavedRun, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    SavedRun::from_json(&text, &path.display().to_string())
}
