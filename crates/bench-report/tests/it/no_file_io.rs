//! bench-report touches no file: no source file of its names a call of
//! the file system (`std::fs`, `File::`, `read_dir`, ...) or a path type,
//! so every printer is a function of the data it is given and bench, which
//! reads and writes a run's files, is the one place that does.

use std::path::Path;

/// What a source that reads, writes or walks files names.
const FILE_SYSTEM: &[&str] = &[
    "std::fs",
    "fs::",
    "File::",
    "OpenOptions",
    "read_dir",
    "read_to_string",
    "create_dir",
    "std::path",
    "Path::",
    "PathBuf",
    "std::io::",
    "std::env",
    "include_str!",
    "include_bytes!",
];

/// Every .rs file under `dir`, with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

/// The lines of `text` naming a file-system call, comments left out.
fn offending_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| FILE_SYSTEM.iter().any(|w| l.contains(w)))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn no_source_of_bench_report_names_the_file_system() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 30, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|(name, text)| {
            offending_lines(text)
                .into_iter()
                .map(move |l| format!("{name}: {l}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "bench-report is pure; read and write files in bench's output module:\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn the_scanner_sees_a_file_system_call() {
    assert_eq!(
        offending_lines("// std::fs in a comment\nlet t = std::fs::read_to_string(p)?;"),
        ["let t = std::fs::read_to_string(p)?;"]
    );
    assert!(offending_lines("let f = File::open(p)?;").len() == 1);
    assert!(offending_lines("format!(\"{}\", x.len())").is_empty());
}
