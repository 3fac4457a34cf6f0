//! Every saved run under docs/results renders byte for byte as it did
//! when `saved_renders.txt` was last written: the terminal report and every
//! report file (report.md, report.html, the charts), with the findings the
//! run was saved with. A refactor that claims to change no output proves it
//! here; a change meant to alter what a reader sees rewrites the list
//! (`UPDATE_SAVED_RENDERS=1 cargo test -p bench-report --test it saved_renders`)
//! and says in its commit which runs and files changed, and why.
//!
//! The list keeps a 64-bit FNV-1a hash per file, not the files: the
//! rendered runs are megabytes, and `bench render RESULTS --out DIR` with
//! the old and the new build shows what changed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::{read_run, saved_runs, workspace};

/// Where the hashes are kept, beside this file.
fn list_path() -> PathBuf {
    workspace().join("crates/bench-report/tests/it/saved_renders.txt")
}

#[test]
fn every_saved_run_renders_as_it_did() {
    let now = renders();
    let path = list_path();
    if std::env::var_os("UPDATE_SAVED_RENDERS").is_some() {
        std::fs::write(&path, write_list(&now)).unwrap();
        return;
    }
    let kept = read_list(&std::fs::read_to_string(&path).unwrap_or_default());
    let mut changed = Vec::new();
    for key in now
        .keys()
        .chain(kept.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        match (kept.get(key), now.get(key)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(_), Some(_)) => changed.push(format!("{key}: renders differently")),
            (None, Some(_)) => changed.push(format!("{key}: new")),
            (Some(_), None) => changed.push(format!("{key}: no longer rendered")),
            (None, None) => {}
        }
    }
    assert!(
        changed.is_empty(),
        "saved runs render differently from {}:\n  {}\nIf the change is meant, \
         run UPDATE_SAVED_RENDERS=1 cargo test -p bench-report --test it saved_renders \
         and say in the commit what changed and why.",
        path.display(),
        changed.join("\n  ")
    );
}

#[test]
fn the_hash_tells_one_byte_apart() {
    assert_ne!(fnv1a(b"report 1.05x"), fnv1a(b"report 1.04x"));
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    let list = BTreeMap::from([("run/report.md".to_owned(), 7u64)]);
    assert_eq!(read_list(&write_list(&list)), list);
}

/// "run/file" -> the hash of what this build renders for it.
fn renders() -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for results in saved_runs() {
        let run = results
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap();
        let saved = read_run(&results);
        let (r, f, t) = (&saved.results, &saved.findings, &saved.thresholds);
        let text = bench_report::text::render(r, f, t);
        out.insert(format!("{run}/terminal"), fnv1a(text.as_bytes()));
        for (name, body) in bench_report::files::report_files(r, f, t) {
            out.insert(format!("{run}/{name}"), fnv1a(body.as_bytes()));
        }
    }
    out
}

/// 64-bit FNV-1a: stable across builds and platforms, unlike std's hasher.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn write_list(list: &BTreeMap<String, u64>) -> String {
    let mut text = String::from(
        "# Saved runs' renders: run/file and the FNV-1a hash of what this build\n\
         # renders (tests/it/saved_renders.rs writes and checks this file).\n",
    );
    for (key, hash) in list {
        text.push_str(&format!("{key} {hash:016x}\n"));
    }
    text
}

fn read_list(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (key, hash) = l.rsplit_once(' ')?;
            Some((key.to_owned(), u64::from_str_radix(hash, 16).ok()?))
        })
        .collect()
}
