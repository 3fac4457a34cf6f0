//! bench-report links no server and no runtime: `cargo tree` of its normal
//! dependencies names none of tokio, hyper, sqlx, may or redis, so a test
//! of a printer compiles in seconds and rendering a saved run needs
//! nothing but the run.

use std::process::Command;

/// The crates a report must not pull in, directly or through another crate.
const SERVER_CRATES: &[&str] = &["tokio", "hyper", "sqlx", "may", "redis"];

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

#[test]
fn bench_report_depends_on_no_server_crate() {
    let names = normal_dependencies("bench-report");
    // The tree was read: the crates it must have are in it.
    for wanted in ["bench-model", "bench-analysis", "serde"] {
        assert!(
            names.iter().any(|n| n == wanted),
            "{wanted} not in {names:?}"
        );
    }
    let linked: Vec<&String> = names
        .iter()
        .filter(|n| {
            SERVER_CRATES
                .iter()
                .any(|s| *n == s || n.starts_with(&format!("{s}-")))
        })
        .collect();
    assert!(linked.is_empty(), "bench-report links {linked:?}");
    // And the check sees such a crate where there is one: bench links them.
    let bench = normal_dependencies("bench");
    for s in ["tokio", "sqlx", "may"] {
        assert!(bench.iter().any(|n| n == s), "{s} not in bench's tree");
    }
}
