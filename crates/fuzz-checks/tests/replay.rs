//! Every committed input of every fuzz target, replayed through its check:
//! the seeds (fuzz/seeds/{target}/) and the inputs that once crashed a
//! target (fuzz/regressions/{target}/), so what a fuzzer found stays tested
//! without one.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use fuzz_checks::TARGETS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files in `dir`, sorted; none if it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn every_seed_and_regression_input_passes_its_target() {
    let mut failures = Vec::new();
    for target in TARGETS {
        let seeds = inputs(&fuzz_dir().join("seeds").join(target.name));
        assert!(
            seeds.len() >= 3,
            "{}: {} seeds in fuzz/seeds",
            target.name,
            seeds.len()
        );
        let regressions = inputs(&fuzz_dir().join("regressions").join(target.name));
        for file in seeds.iter().chain(&regressions) {
            let bytes = std::fs::read(file).expect("a committed input");
            if catch_unwind(AssertUnwindSafe(|| (target.check)(&bytes))).is_err() {
                failures.push(format!("{}: {}", target.name, file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "these inputs fail their target (its panic is printed above):\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn every_target_has_a_fuzz_target_file() {
    for target in TARGETS {
        let file = fuzz_dir()
            .join("fuzz_targets")
            .join(format!("{}.rs", target.name));
        assert!(file.is_file(), "no {}", file.display());
    }
}
