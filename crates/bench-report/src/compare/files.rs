//! The files `bench compare --out DIR` writes: compare.md and compare.html.

use std::path::{Path, PathBuf};

use super::Comparison;

/// Writes both files into `dir` (made if missing) and returns their paths,
/// or says in one line which could not be written.
pub fn write(dir: &Path, cmp: &Comparison) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let files = [
        ("compare.md", super::markdown::render(cmp)),
        ("compare.html", super::html::render(cmp)),
    ];
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
