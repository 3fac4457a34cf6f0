//! The workspace's house rules that no compiler or clippy lint says,
//! checked by a test rather than by memory (as rust-analyzer's `tidy` test
//! does): every Rust file opens with a `//!` line saying what it is; no
//! source file of a crate grows past [`MAX_SOURCE_LINES`];
//! `[workspace.dependencies]` declares nothing that no crate uses; `unsafe`
//! code lives only in [`UNSAFE_FILES`], each named in ARCHITECTURE.md; and
//! nothing a reader meets (code, docs, scripts, CI; not the dated records
//! under docs/results) names an issue of the tracker by number. (bench-report's
//! saved-run test holds the rendered reports to the same.)
//!
//! What lints do say is left to them: `unwrap()` and `expect()` outside tests
//! are clippy's `unwrap_used` / `expect_used`, long functions its
//! `too_many_lines` (all in the workspace `[lints]` table); a crate's own
//! unused dependency is cargo-machete's, run by `.ci/run`.
//!
//! Scanned: `crates/*/{src,tests,examples,benches}` and this package's `src`
//! and `tests`, never a target directory. The root manifest is read line by
//! line (it is written in the plain `name = ...` style this test expects).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The longest a source file under `crates/*/src` may be: past it, a
/// module does more than one job (ripgrep's and rust-analyzer's modules
/// rarely pass it).
const MAX_SOURCE_LINES: usize = 600;

/// Dependencies of `[workspace.dependencies]` that no crate needs to declare,
/// with the reason. (dependency, reason)
const UNUSED_WORKSPACE_DEPENDENCY_EXCEPTIONS: &[(&str, &str)] = &[];

#[test]
fn every_rust_file_starts_with_a_module_doc_line() {
    let files = rust_files();
    assert!(files.len() > 100, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter(|file| !read(file).starts_with("//!"))
        .map(|file| relative(file))
        .collect();
    assert!(
        offenders.is_empty(),
        "these files do not start with a `//!` line saying what they are:\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn no_crate_source_file_is_longer_than_the_limit() {
    let offenders: Vec<String> = rust_files()
        .iter()
        .filter(|file| is_crate_source(&relative(file)))
        .map(|file| (relative(file), read(file).lines().count()))
        .filter(|(_, lines)| *lines > MAX_SOURCE_LINES)
        .map(|(file, lines)| format!("{file}: {lines} lines"))
        .collect();
    assert!(
        offenders.is_empty(),
        "split these into modules of one job each (at most {MAX_SOURCE_LINES} lines):\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn every_workspace_dependency_is_declared_by_some_crate() {
    let root_manifest = read(&workspace_root().join("Cargo.toml"));
    let declared: BTreeSet<String> = manifests()
        .iter()
        .flat_map(|manifest| dependencies(&read(manifest)))
        .collect();
    let unused: Vec<String> = section_keys(&root_manifest, |section| {
        section == "workspace.dependencies"
    })
    .into_iter()
    .filter(|dep| !declared.contains(dep))
    .filter(|dep| {
        !UNUSED_WORKSPACE_DEPENDENCY_EXCEPTIONS
            .iter()
            .any(|(name, _)| name == dep)
    })
    .collect();
    assert!(
        unused.is_empty(),
        "[workspace.dependencies] in Cargo.toml declares what no crate uses: {unused:?}"
    );
}

#[test]
fn the_manifest_reader_sees_every_dependency_table() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\n\
        serde.workspace = true\ntokio = { workspace = true }\n\n\
        [dev-dependencies]\ntiny_http = \"0.12\"\n\n[dependencies.rand]\nversion = \"0.9\"\n\n\
        [lints]\nworkspace = true\n";
    assert_eq!(
        dependencies(manifest),
        vec!["serde", "tokio", "tiny_http", "rand"]
    );
    assert!(is_crate_source("crates/bench/src/run/mod.rs"));
    assert!(!is_crate_source("crates/bench/tests/end_to_end.rs"));
    assert!(!is_crate_source("tests/src/app.rs"));
}

/// The line (1-based) of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

#[test]
fn the_front_door_stays_short() {
    // The README is the front door (ripgrep's and axum's are 150-500
    // lines): the two commands on the first screen, the run at a glance
    // (which model for which workload) on the second; the full findings
    // live on the run's own page, the rest in docs/. ARCHITECTURE.md is a
    // code map.
    let readme = read(&workspace_root().join("README.md"));
    let architecture = read(&workspace_root().join("ARCHITECTURE.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; move detail to docs/ (at most 250)"
    );
    for command in ["cargo run --release -p bench", "cargo test --workspace"] {
        let at = line_of(&readme, command);
        assert!(
            at.is_some_and(|n| n <= 40),
            "README.md names `{command}` first at line {at:?}, not in its first 40 lines"
        );
    }
    let glance = line_of(&readme, "generated by bench doc-tables: glance");
    assert!(
        glance.is_some_and(|n| n <= 80),
        "README.md's matrix at a glance starts at line {glance:?}, not in its first 80 lines"
    );
    let lines = architecture.lines().count();
    assert!(
        lines <= 150,
        "ARCHITECTURE.md has {lines} lines (at most 150)"
    );
}

/// The files that may hold `unsafe` code, with why: everywhere else the
/// workspace's `unsafe_code = "deny"` holds, and ARCHITECTURE.md names
/// each of these.
const UNSAFE_FILES: &[(&str, &str)] = &[
    (
        "crates/blocking-server/src/virtual_threads/spawn.rs",
        "may's spawns are unsafe: a coroutine's stack must fit what it runs",
    ),
    (
        "crates/local-services/src/parent_death.rs",
        "prctl(PR_SET_PDEATHSIG) in a child before exec",
    ),
];

/// Files that may name an issue number, with why.
const ISSUE_NUMBER_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "crates/bench-model/src/results_file.rs",
        "reads old runs' \"none (issue N: ...)\" seed fields, and tests that it does",
    ),
    (
        "tests/tests/suites/tidy.rs",
        "this file: the scanners' own examples",
    ),
];

#[test]
fn unsafe_code_lives_only_in_the_listed_files() {
    let architecture = read(&workspace_root().join("ARCHITECTURE.md"));
    let with_unsafe: BTreeSet<String> = rust_files()
        .iter()
        .map(|file| relative(file))
        // This file: the scanner's own examples.
        .filter(|file| !file.ends_with("suites/tidy.rs"))
        .filter(|file| has_unsafe(&read(&workspace_root().join(file))))
        .collect();
    let listed: BTreeSet<String> = UNSAFE_FILES.iter().map(|(f, _)| f.to_string()).collect();
    let unlisted: Vec<&String> = with_unsafe.difference(&listed).collect();
    let stale: Vec<&String> = listed.difference(&with_unsafe).collect();
    let unmapped: Vec<&String> = listed
        .iter()
        .filter(|file| !architecture.contains(file.trim_start_matches("crates/")))
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty() && unmapped.is_empty(),
        "unsafe code outside UNSAFE_FILES: {unlisted:?}; listed without unsafe code: \
         {stale:?}; listed but not named in ARCHITECTURE.md: {unmapped:?}"
    );
}

#[test]
fn no_issue_numbers_in_code_docs_or_scripts() {
    // What a reader sees says why in words; the tracker's numbers mean
    // nothing to them. The dated folders under docs/results are records of
    // their day and stay as they were written.
    let offenders: Vec<String> = prose_and_code_files()
        .iter()
        .map(|file| (relative(file), read(file)))
        .filter(|(file, _)| !ISSUE_NUMBER_EXCEPTIONS.iter().any(|(f, _)| f == file))
        .flat_map(|(file, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, line)| names_an_issue_number(line))
                .map(|(n, line)| format!("{file}:{}: {}", n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "say why in words, not by issue number:\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn the_word_scanners_find_what_they_look_for() {
    assert!(names_an_issue_number("see issue 22's aim"));
    assert!(names_an_issue_number("(Issue #9)"));
    assert!(names_an_issue_number("issues 2 and 3"));
    assert!(!names_an_issue_number("if let Some((issued, limit))"));
    assert!(!names_an_issue_number("an issue with 2 parts"));
    assert!(has_unsafe("fn f() { unsafe { g() } }"));
    assert!(has_unsafe("#![allow(unsafe_code)]"));
    assert!(!has_unsafe(
        "//! no unsafe here: the workspace denies `unsafe_code`"
    ));
}

/// Whether `line` names an issue by number: "issue 9", "Issue #22",
/// "issues 2".
fn names_an_issue_number(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            return false;
        }
        let rest = lower[at + "issue".len()..].trim_start_matches('s');
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let rest = rest.strip_prefix('#').unwrap_or(rest);
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Whether Rust source `text` has unsafe code, or allows it.
fn has_unsafe(text: &str) -> bool {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .any(|code| {
            code.contains("allow(unsafe_code)")
                || ["unsafe {", "unsafe fn", "unsafe impl", "unsafe extern"]
                    .iter()
                    .any(|form| code.contains(form))
        })
}

/// Every file a reader of the project meets: the Rust sources, crates'
/// manifests and READMEs, the docs (the dated folders under docs/results
/// apart), the scripts, CI, and the container and observability files.
fn prose_and_code_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = rust_files();
    for dir in crate_dirs() {
        files.extend(["Cargo.toml", "README.md"].map(|f| dir.join(f)));
    }
    files.extend(
        [
            "README.md",
            "ARCHITECTURE.md",
            "Cargo.toml",
            "Dockerfile",
            "docker-compose.yml",
            ".ci/run",
            "docs/results/README.md",
        ]
        .map(|f| root.join(f)),
    );
    for dir in ["docs", "scripts", "observe", "calibration"] {
        collect_files(&root.join(dir), &mut files);
    }
    files.retain(|f| f.is_file() && !is_dated_record(&relative(f)));
    files.sort();
    files.dedup();
    files
}

/// `docs/results/<name>-<date>/...`: a record of its day.
fn is_dated_record(relative: &str) -> bool {
    let parts: Vec<&str> = relative.split(['/', '\\']).collect();
    parts.len() >= 4 && parts[0] == "docs" && parts[1] == "results"
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else if path.extension().is_some_and(|e| {
            [
                "md",
                "rs",
                "java",
                "sh",
                "py",
                "yml",
                "yaml",
                "json",
                "toml",
                "Dockerfile",
            ]
            .iter()
            .any(|x| e == *x)
        }) || path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("Dockerfile"))
        {
            out.push(path);
        }
    }
}

// ---------------------------------------------------------------------------
// Finding files
// ---------------------------------------------------------------------------

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(workspace_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The crate directories: `crates/*` and this package.
pub(crate) fn crate_dirs() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.push(root.join("tests"));
    dirs.sort();
    dirs
}

fn manifests() -> Vec<PathBuf> {
    crate_dirs()
        .into_iter()
        .map(|dir| dir.join("Cargo.toml"))
        .collect()
}

fn rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in crate_dirs() {
        for sub in ["src", "tests", "examples", "benches"] {
            collect_rust_files(&dir.join(sub), &mut files);
        }
    }
    files.sort();
    files
}

fn collect_rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with("target") {
            continue;
        }
        collect_rust_files(&path, out);
    }
}

/// `crates/<name>/src/...`: a crate's own source, binaries included.
fn is_crate_source(relative: &str) -> bool {
    let parts: Vec<&str> = relative.split(['/', '\\']).collect();
    parts.len() >= 4 && parts[0] == "crates" && parts[2] == "src"
}

// ---------------------------------------------------------------------------
// Reading Cargo.toml line by line
// ---------------------------------------------------------------------------

/// The dependency names a crate manifest declares, in every dependency
/// table (`[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`,
/// `[target.'...'.dependencies]`).
fn dependencies(manifest: &str) -> Vec<String> {
    section_keys(manifest, |section| {
        section == "dependencies"
            || section == "dev-dependencies"
            || section == "build-dependencies"
            || (section.starts_with("target.") && section.ends_with("dependencies"))
    })
}

/// The keys (`name = ...` or `name.workspace = true`) of the sections whose
/// header `wanted` accepts; a `[dependencies.name]` table counts as `name`.
pub(crate) fn section_keys(manifest: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let mut keys = Vec::new();
    let mut in_wanted = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let header = header.trim();
            in_wanted = wanted(header);
            if !in_wanted {
                if let Some((table, name)) = header.rsplit_once('.') {
                    if wanted(table) {
                        keys.push(name.trim().to_owned());
                    }
                }
            }
            continue;
        }
        if in_wanted {
            let key = line
                .split(['=', '.'])
                .next()
                .unwrap_or_default()
                .trim()
                .trim_matches('"');
            if !key.is_empty() {
                keys.push(key.to_owned());
            }
        }
    }
    keys
}
