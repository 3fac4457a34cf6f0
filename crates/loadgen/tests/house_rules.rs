//! House rules of this crate checked by a test rather than by memory: every
//! Rust file opens with a `//!` paragraph saying what it is for, and library
//! code never calls `unwrap()`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_file_starts_with_a_module_doc_paragraph() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        assert!(
            text.starts_with("//! "),
            "{} must start with a //! paragraph",
            file.display()
        );
    }
}

#[test]
fn library_code_does_not_unwrap() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        // Unit tests live after `#[cfg(test)]`; they may unwrap.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        assert!(
            !code.contains(".unwrap()"),
            "{} calls unwrap() outside tests",
            file.display()
        );
    }
}
