//! The `loadgen` binary: parse the command line, run the plan with a
//! progress line on a terminal, print the report, and exit with 0 (all
//! thresholds passed), 1 (a threshold failed or the run broke), 2 (bad
//! input or a plan the machine cannot run; nothing was sent) or 3 (no
//! request succeeded; the report is still printed, the cause goes to stderr).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::error::ErrorKind;
use clap::Parser;
use loadgen::cli::{one_line_error, Cli};
use loadgen::{render_text, run_blocking_with_progress, Progress, RunError};

/// Exit status when not one request got a status below 400: distinct from a
/// failed threshold (1) so that scripts can tell "slow" from "not there".
const NO_SUCCESS: u8 = 3;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("loadgen: {}", one_line_error(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let (plan, output) = match cli.into_plan() {
        Ok(parts) => parts,
        Err(message) => {
            eprintln!("loadgen: {message}");
            return ExitCode::from(2);
        }
    };

    let progress = Progress::default();
    let finished = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| show_progress(&progress, &finished));
        }
        let result = run_blocking_with_progress(&plan, &progress);
        finished.store(true, Ordering::Relaxed);
        result
    });
    let report = match result {
        Ok(report) => report,
        Err(e @ RunError::FdLimit(_)) => {
            eprintln!("loadgen: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("loadgen: {e}");
            return ExitCode::FAILURE;
        }
    };

    let text = if output.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => json + "\n",
            Err(e) => {
                eprintln!("loadgen: cannot serialise the report: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        render_text(&report)
    };
    let written = match &output.out {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| format!("cannot write report to '{}': {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write report to stdout: {e}")),
    };
    if let Err(message) = written {
        eprintln!("loadgen: {message}");
        return ExitCode::FAILURE;
    }

    if let Some(cause) = report.no_success_cause() {
        // One line: the cause says more than any threshold it also failed.
        eprintln!("loadgen: {cause}");
        return ExitCode::from(NO_SUCCESS);
    }
    let failed: Vec<&str> = report
        .thresholds
        .iter()
        .filter(|t| !t.passed)
        .map(|t| t.expression.as_str())
        .collect();
    if !failed.is_empty() {
        eprintln!("loadgen: thresholds failed: {}", failed.join(", "));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Redraws one status line on the terminal four times a second.
fn show_progress(progress: &Progress, finished: &AtomicBool) {
    let start = Instant::now();
    let mut last = (start, 0u64);
    let mut stderr = std::io::stderr();
    while !finished.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        let now = Instant::now();
        let done = progress.completed();
        let rate =
            (done - last.1.min(done)) as f64 / now.duration_since(last.0).as_secs_f64().max(1e-3);
        last = (now, done);
        let _ = write!(
            stderr,
            "\r\x1b[2K{:>6.1}s  {:>10} requests  {:>10.0} req/s  {} errors",
            start.elapsed().as_secs_f64(),
            done,
            rate,
            progress.errors()
        );
        let _ = stderr.flush();
    }
    let _ = write!(stderr, "\r\x1b[2K");
    let _ = stderr.flush();
}
