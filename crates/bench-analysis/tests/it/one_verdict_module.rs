//! Verdicts are made in one module: no source file of bench-analysis but
//! `verdict.rs` names HELD, NOT HELD, SAME or INCONCLUSIVE except to match on
//! one (a pattern, followed by `=>` on its line), so no finding can carry
//! a rule of its own. NOT MEASURED, which says a column is missing, may be
//! named anywhere. Test code (a `*_tests.rs` module, or what follows a
//! file's `#[cfg(test)]`) is not looked at.

use std::path::{Path, PathBuf};

const MADE_ONLY_IN_VERDICT_RS: &[&str] = &[
    "Verdict::Held",
    "Verdict::NotHeld",
    "Verdict::Same",
    "Verdict::Inconclusive",
    "Verdict::*",
    "Verdict::{",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that name a verdict other than to match on it, as
/// "line N: text".
fn verdicts_made(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| {
            MADE_ONLY_IN_VERDICT_RS.iter().any(|name| {
                line.match_indices(name)
                    .any(|(at, _)| !line[at..].contains("=>"))
            })
        })
        .map(|(i, line)| format!("line {}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn verdicts_are_made_in_the_verdict_module_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.iter().any(|f| f.ends_with("verdict.rs")));
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name == "verdict.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in verdicts_made(&text) {
            found.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "a verdict made outside src/verdict.rs (judge rounds with bench_analysis::verdict):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_match_arm_and_test_code_are_not_a_verdict_made() {
    let text = "fn f(v: Verdict) -> u8 {\n    match v {\n        Verdict::Held => 1,\n        _ => 0,\n    }\n}\nfn g() -> Verdict {\n    Verdict::NotHeld\n}\n#[cfg(test)]\nmod tests {\n    const V: Verdict = Verdict::Held;\n}\n";
    assert_eq!(verdicts_made(text), ["line 8: Verdict::NotHeld"]);
}
