//! bench-report links no server and no runtime: `cargo tree` of its normal
//! dependencies names none of tokio, hyper, sqlx, may or redis, nor the
//! servers' own plumbing (clap, r2d2, tracing-subscriber, hdrhistogram), so
//! a test of a printer compiles in seconds and rendering a saved run needs
//! nothing but the run. bench-analysis, below it, is held to the same.

use std::process::Command;

/// The crates a report must not pull in, directly or through another crate:
/// the servers' runtimes and drivers, and what only a server's binary uses
/// (its flags, its pools, its log output, its own latency summaries).
const SERVER_CRATES: &[&str] = &[
    "tokio",
    "hyper",
    "sqlx",
    "may",
    "redis",
    "clap",
    "r2d2",
    "tracing-subscriber",
    "hdrhistogram",
];

/// The package names in `cargo tree -p PACKAGE -e normal`, once each.
fn normal_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-p", package, "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo tree failed: {stderr}");
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The crates of [`SERVER_CRATES`] in `names` (a `tokio-` crate counts as tokio).
fn server_crates_in(names: &[String]) -> Vec<&String> {
    names
        .iter()
        .filter(|n| {
            SERVER_CRATES
                .iter()
                .any(|s| *n == s || n.starts_with(&format!("{s}-")))
        })
        .collect()
}

#[test]
fn bench_report_and_bench_analysis_depend_on_no_server_crate() {
    for (package, wanted) in [
        ("bench-report", ["bench-model", "bench-analysis", "serde"]),
        ("bench-analysis", ["bench-model", "contract", "serde"]),
    ] {
        let names = normal_dependencies(package);
        // The tree was read: the crates it must have are in it.
        for wanted in wanted {
            assert!(
                names.iter().any(|n| n == wanted),
                "{wanted} not in {names:?}"
            );
        }
        let linked = server_crates_in(&names);
        assert!(linked.is_empty(), "{package} links {linked:?}");
    }
    // And the check sees such a crate where there is one: bench links them.
    let bench = normal_dependencies("bench");
    for s in ["tokio", "sqlx", "may", "clap", "hdrhistogram"] {
        assert!(bench.iter().any(|n| n == s), "{s} not in bench's tree");
    }
}
