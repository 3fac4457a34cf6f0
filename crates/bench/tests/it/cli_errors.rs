//! Bad input: one clear line on stderr, a non-zero exit, nothing started.

use std::ffi::OsStr;
use std::net::TcpListener;

/// `bench ARGS --out DIR`, which must write nothing: its exit code and stderr.
fn bench(args: &[&str]) -> (i32, String) {
    let out_dir = tempfile::tempdir().unwrap();
    let dir = out_dir.path().as_os_str();
    let out = crate::common::bench(
        args.iter()
            .map(OsStr::new)
            .chain([OsStr::new("--out"), dir]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Nothing was written: the run never started.
    assert_eq!(
        std::fs::read_dir(out_dir.path()).unwrap().count(),
        0,
        "bench wrote files: {stderr}"
    );
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn unknown_group_is_named() {
    let (code, err) = bench(&["--groups", "cpu,gpu"]);
    assert_eq!(code, 2);
    let all: Vec<&str> = bench::plan::GroupId::ALL
        .iter()
        .map(|g| g.as_str())
        .collect();
    assert_eq!(
        err.trim(),
        format!(
            "bench: unknown group \"gpu\"; expected one of {}",
            all.join(", ")
        )
    );
}

#[test]
fn bad_duration_is_refused() {
    let (code, err) = bench(&["--duration", "ten"]);
    assert_eq!(code, 2);
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.contains("expected a duration like 10s, 500ms, 2m or 1m30s, got \"ten\""),
        "{err}"
    );
}

#[test]
fn durations_are_read_as_loadgen_reads_them() {
    // One parser for both tools: `1m30s` works here as it does for `loadgen -d`.
    use clap::Parser as _;
    let cli = bench::cli::Cli::try_parse_from(["bench", "--duration", "1m30s"]).unwrap();
    assert_eq!(
        cli.run.profile.duration,
        Some(std::time::Duration::from_secs(90))
    );
}

#[test]
fn unreachable_async_url_fails_before_anything_starts() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let (code, err) = bench(&["--groups", "baseline", "--async-url", &url]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("bench: cannot reach the async server at {url}: ")),
        "{err}"
    );
}

#[test]
fn a_flag_a_subcommand_does_not_read_is_one_line_naming_it() {
    for (args, says) in [
        (&["render", "r.json", "--groups", "cpu"][..], "'--groups'"),
        (&["--profile", "seed", "export", "--tool", "k6"], "'export'"),
        (
            &[
                "proxy",
                "--to",
                "127.0.0.1:1",
                "--round-trip-us",
                "1",
                "--cold",
            ],
            "'--cold'",
        ),
    ] {
        let (code, err) = bench(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("bench: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
}
