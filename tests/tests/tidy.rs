//! The workspace's house rules, checked by a test rather than by memory (as
//! rust-analyzer's `tidy` test does): every Rust file opens with a `//!`
//! line saying what it is; library code never calls `.unwrap()` or
//! `.expect(`; and no dependency is declared that nothing uses.
//!
//! Scanned: `crates/*/{src,tests,examples,benches}` and this package's `src`
//! and `tests`, never a target directory. Plain text reading, no parser: the
//! sources are lexed just enough to tell code from comments and strings, and
//! the manifests are read line by line (they are written in the simple
//! `name.workspace = true` / `name = { ... }` style this test expects).
//!
//! What counts as library code: everything under `crates/*/src`, thin
//! binaries (`main.rs`, `src/bin/`) included, since a binary's `unwrap` is a
//! panic a user sees; minus `#[cfg(test)]` items. Test code (`tests/`,
//! `examples/`, this package) may unwrap.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Dependencies a crate declares without naming them in its sources, each
/// with the reason. (crate, dependency, reason)
const UNREFERENCED_DEPENDENCY_EXCEPTIONS: &[(&str, &str, &str)] = &[];

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
fn library_code_does_not_unwrap_or_expect() {
    let mut offenders = Vec::new();
    for file in rust_files() {
        let rel = relative(&file);
        if !is_library_code(&rel) {
            continue;
        }
        let code = without_cfg_test_items(&code_only(&read(&file)));
        for (index, line) in code.lines().enumerate() {
            for pattern in [".unwrap()", ".expect("] {
                if line.contains(pattern) {
                    offenders.push(format!("{rel}:{}: {pattern}", index + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "library code (crates/*/src outside #[cfg(test)]) must not unwrap or expect; \
         return an error with context, or handle the case:\n  {}",
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
fn every_crate_dependency_is_used_in_its_sources() {
    let mut offenders = Vec::new();
    for manifest in manifests() {
        let dir = manifest.parent().unwrap_or(Path::new("."));
        let crate_name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut sources = String::new();
        for sub in ["src", "tests", "examples", "benches", "build.rs"] {
            let mut files = Vec::new();
            collect_rust_files(&dir.join(sub), &mut files);
            for file in files {
                sources.push_str(&code_only(&read(&file)));
                sources.push('\n');
            }
        }
        for dep in dependencies(&read(&manifest)) {
            let ident = dep.replace('-', "_");
            let used = [
                format!("{ident}::"),
                format!("use {ident}"),
                format!("extern crate {ident}"),
            ]
            .iter()
            .any(|needle| contains_as_path(&sources, needle));
            let excepted = UNREFERENCED_DEPENDENCY_EXCEPTIONS
                .iter()
                .any(|(krate, name, _)| *krate == crate_name && *name == dep);
            if !used && !excepted {
                offenders.push(format!("{}: {dep}", relative(&manifest)));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "declared but never named in the crate's sources (remove it, or add an \
         exception with the reason to tests/tests/tidy.rs):\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn the_lexer_and_the_cfg_test_filter_see_what_they_should() {
    let source = r#"//! x
fn a() -> u8 { let s = "b.unwrap() { "; let c = '{'; s.len() as u8 } // .unwrap()
/* .expect( */
fn b<'a>(x: &'a str) -> &'a str { x.trim().unwrap_or_default() }
#[cfg(test)]
mod tests {
    fn t() { Some(1).unwrap(); let _ = '}'; }
}
fn c() { None::<u8>.expect("no"); }
"#;
    let code = without_cfg_test_items(&code_only(source));
    let hits: Vec<usize> = code
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains(".unwrap()") || line.contains(".expect("))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits, vec![9], "{code}");
    assert!(contains_as_path("x\nuse serde::Y;", "use serde"));
    assert!(!contains_as_path("use serde_json::x;", "use serde"));
    assert!(!contains_as_path("my_tokio::x", "tokio::"));
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\n\
        serde.workspace = true\ntokio = { workspace = true }\n\n\
        [dev-dependencies]\ntiny_http = \"0.12\"\n\n[lints]\nworkspace = true\n";
    assert_eq!(dependencies(manifest), vec!["serde", "tokio", "tiny_http"]);
}

// ---------------------------------------------------------------------------
// Finding files
// ---------------------------------------------------------------------------

fn workspace_root() -> PathBuf {
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

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The crate directories: `crates/*` and this package.
fn crate_dirs() -> Vec<PathBuf> {
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

/// `crates/<name>/src/...`: library code, binaries included.
fn is_library_code(relative: &str) -> bool {
    let parts: Vec<&str> = relative.split(['/', '\\']).collect();
    parts.len() >= 4 && parts[0] == "crates" && parts[2] == "src"
}

// ---------------------------------------------------------------------------
// Reading Rust just enough
// ---------------------------------------------------------------------------

/// The source with comments and the insides of string and char literals
/// replaced by spaces (newlines kept, so line numbers stay right).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            // A raw string r"..." or r#"..."#: ends at a quote followed by as many #.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('"');
            for _ in i + 1..=j {
                out.push(' ');
            }
            i = j + 1;
            while i < chars.len() {
                let closes =
                    chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#'));
                if closes {
                    out.push('"');
                    for _ in 0..hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{7f}') or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push('\'');
                    for _ in i + 1..end {
                        out.push(' ');
                    }
                    out.push('\'');
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// `code` (from [`code_only`]) with every `#[cfg(test)]` item blanked out:
/// from the attribute to the end of the item (its closing brace, or the `;`
/// of a one-line item).
fn without_cfg_test_items(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= out.len() {
        if out[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + marker.len();
        let mut depth = 0usize;
        while j < out.len() {
            match out[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                ';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(out.len());
        for c in &mut out[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    out.into_iter().collect()
}

/// Whether `needle` (a crate name followed by `::`, or `use name`) appears
/// with no identifier character right before it, and for `use name`, none
/// right after it (so `use serde` does not match `use serde_json`).
fn contains_as_path(haystack: &str, needle: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    haystack.match_indices(needle).any(|(at, _)| {
        let before_ok = haystack[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !is_ident(c));
        let after_ok = needle.ends_with("::")
            || haystack[at + needle.len()..]
                .chars()
                .next()
                .is_none_or(|c| !is_ident(c));
        before_ok && after_ok
    })
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
fn section_keys(manifest: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
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
