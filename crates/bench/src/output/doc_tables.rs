//! The files of `bench doc-tables`: README.md and every Markdown file
//! under docs/ read, with the runs their tables name; each file's tables
//! made anew by bench-report ([`bench_report::doc_tables`]); the files
//! whose tables changed rewritten (or, with `--check`, only named).

use std::path::{Path, PathBuf};

use bench_model::SavedRun;
use bench_report::doc_tables::{refresh, wanted, CodeTables, Sources, Wanted};

/// README.md and every Markdown file under docs/, sorted.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every run saved under docs/results, as (its folder's name, the run),
/// by name; or the line saying which could not be read.
fn saved_runs(root: &Path) -> Result<Vec<(String, SavedRun)>, String> {
    let dir = root.join("docs/results");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("results.json").is_file())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .map(|folder| {
            let name = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((name, super::saved::read(&folder.join("results.json"))?))
        })
        .collect()
}

/// What a file's tables asked for, read; paths are relative to `root`.
fn read_sources(root: &Path, wanted: &Wanted) -> Sources {
    Sources {
        runs: wanted
            .runs
            .iter()
            .map(|path| (path.clone(), super::saved::read(&root.join(path))))
            .collect(),
        reports: wanted
            .reports
            .iter()
            .filter(|r| root.join(r).is_file())
            .cloned()
            .collect(),
        saved_runs: wanted.saved_runs.then(|| saved_runs(root)),
    }
}

/// The files whose generated tables differ from what their runs (and
/// `code`) give now; with `write`, those files are rewritten.
pub fn stale(root: &Path, write: bool, code: &CodeTables) -> Result<Vec<PathBuf>, String> {
    let mut stale = Vec::new();
    for file in markdown_files(root) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        if !bench_report::doc_tables::has_tables(&text) {
            continue;
        }
        let sources = read_sources(root, &wanted(&text));
        let fresh =
            refresh(&text, &sources, code).map_err(|e| format!("{}: {e}", file.display()))?;
        if fresh != text {
            if write {
                std::fs::write(&file, &fresh)
                    .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            }
            stale.push(file);
        }
    }
    Ok(stale)
}
