//! A run that is not on a terminal says where it is: a line per column
//! round, and a heartbeat inside long windows, so a pipe or a CI log is
//! never silent for long. Ctrl-C (SIGINT) keeps what was measured: the
//! run's folder gets results.json, marked interrupted, and the reports,
//! and bench exits 130.
//!
//! The heartbeat is checked with a 1-s heartbeat (bench's hidden
//! `--heartbeat`) inside 2-s windows, in about 8 s. `BENCH_E2E_FULL=1` checks
//! it as a piped run has it, the default 5-s heartbeat inside 7-s windows,
//! never silent for 10 s (about 25 s).

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::{bench_into, run_flags};

/// bench with `args` and `--out`, its stderr read line by line as it comes:
/// (the child, the lines with the instant each arrived).
fn spawn_bench(
    args: &[&str],
    out: &std::path::Path,
) -> (std::process::Child, mpsc::Receiver<(Instant, String)>) {
    let mut child = bench_into(out, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Whether to run at the full size (`BENCH_E2E_FULL=1`).
fn full() -> bool {
    std::env::var_os("BENCH_E2E_FULL").is_some_and(|v| v == "1")
}

#[test]
fn a_piped_run_writes_a_line_per_column_round_and_never_goes_quiet_for_long() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let out = tempfile::tempdir().unwrap();
    // Three columns (blocking, async, virtual threads), one round of a
    // window each longer than the heartbeat; the silence allowed is twice
    // the heartbeat (the README's 10 s for a piped run's 5 s).
    let (window, heartbeat, silence) = if full() {
        ("7s", None, Duration::from_secs(10))
    } else {
        ("2s", Some("1s"), Duration::from_secs(3))
    };
    let mut args = run_flags(
        "tiny",
        "json",
        "1",
        &["--duration", window, "--warm-up", "100ms"],
    );
    if let Some(h) = heartbeat {
        args.extend(["--heartbeat", h]);
    }
    let (mut child, lines) = spawn_bench(&args, out.path());
    let status = child.wait().unwrap();
    let lines: Vec<(Instant, String)> = lines.iter().collect();
    let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert!(status.success(), "{}", text.join("\n"));
    // Each column once under the group's load, once at an equal load.
    let round_lines = text.iter().filter(|l| l.contains("[1/1] ")).count();
    let equal_load = text
        .iter()
        .filter(|l| l.contains("at equal load: "))
        .count();
    assert_eq!(
        (round_lines, equal_load),
        (6, 3),
        "one line per column round:\n{}",
        text.join("\n")
    );
    assert!(
        text.iter()
            .any(|l| l.contains("still measuring") && l.contains("round 1/1")),
        "no heartbeat inside a {window} window:\n{}",
        text.join("\n")
    );
    let longest = lines.windows(2).map(|w| w[1].0 - w[0].0).max().unwrap();
    assert!(
        longest < silence,
        "silent for {longest:?}:\n{}",
        text.join("\n")
    );
}

#[test]
fn ctrl_c_keeps_the_columns_measured_and_exits_130() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let out = tempfile::tempdir().unwrap();
    // Long enough that the signal lands mid-run.
    let args = run_flags("tiny", "baseline,json,slow", "3", &["--cold-starts", "0"]);
    let (mut child, lines) = spawn_bench(&args, out.path());
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut seen = Vec::new();
    // Wait for the second finished column round, then interrupt.
    while seen
        .iter()
        .filter(|l: &&String| l.contains("[1/3] "))
        .count()
        < 2
    {
        let (_, line) = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| {
                panic!(
                    "no second column round; stderr so far:\n{}",
                    seen.join("\n")
                )
            });
        seen.push(line);
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = child.wait().unwrap();
    seen.extend(lines.iter().map(|(_, l)| l));
    assert_eq!(status.code(), Some(130), "{}", seen.join("\n"));
    assert!(
        seen.iter().any(|l| l.contains("what was measured is in")),
        "{}",
        seen.join("\n")
    );

    let (dir, json) = crate::common::run_folder(out.path(), &seen.join("\n"));
    assert_eq!(json["interrupted"], true);
    let rounds: usize = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["columns"].as_array().unwrap())
        .map(|c| c["rounds"].as_array().unwrap().len())
        .sum();
    assert!(rounds >= 2, "{rounds} column rounds kept");
    // Not every round ran: the run was cut short.
    assert!(rounds < 3 * 5, "{rounds} column rounds: the whole run?");
    // The matrix runs the slow group first.
    for file in ["report.md", "report.html", "slow-throughput.svg"] {
        assert!(dir.join(file).exists(), "{file} missing");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("INTERRUPTED"));
}
