//! What the `loadgen` binary does, as a library function (the servers'
//! binaries are built the same way), so a test harness can run the very same
//! command as a binary of its own: parse the command line, run the plan with a
//! progress line on a terminal, print the report, and exit with 0 (all
//! thresholds passed), 1 (a threshold failed or the run broke), 2 (bad
//! input or a plan the machine cannot run; nothing was sent), 3 (no
//! request succeeded; the report is still printed, the cause goes to stderr)
//! or 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM) when a
//! signal stopped the run: the first one stops the load and the report of
//! what ran is printed, marked interrupted, as wrk, oha and k6 print theirs;
//! a second one exits at once.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::error::ErrorKind;
use clap::Parser;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::cli::{one_line_error, Cli, OutputOptions};
use crate::{render_text, run_blocking_interruptible, Interrupt, Plan, Progress, Report, RunError};

/// Exit status when not one request got a status below 400: distinct from a
/// failed threshold (1) so that scripts can tell "slow" from "not there".
const NO_SUCCESS: u8 = 3;

/// Runs loadgen from command-line arguments (`args[0]` is the program name).
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
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
    let interrupt = Interrupt::new();
    let signal = match stop_on_signals(&interrupt) {
        Ok(signal) => signal,
        Err(e) => {
            eprintln!("loadgen: cannot install the signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = match run_with_progress_line(&plan, &interrupt) {
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
    if let Err(message) = write_report(&report, &output) {
        eprintln!("loadgen: {message}");
        return ExitCode::FAILURE;
    }
    exit_code(&report, signal.load(Ordering::Relaxed))
}

/// Ctrl-C and SIGTERM: the first triggers `interrupt` (and its number is
/// kept, for the exit code), a second exits at once with 128 + its number.
fn stop_on_signals(interrupt: &Interrupt) -> std::io::Result<Arc<AtomicI32>> {
    let first = Arc::new(AtomicI32::new(0));
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    let (interrupt, seen) = (interrupt.clone(), Arc::clone(&first));
    std::thread::Builder::new()
        .name("loadgen-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if seen
                    .compare_exchange(0, signal, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    eprintln!(
                        "loadgen: signal {signal}: stopping the load, the report follows \
                         (again to exit at once)"
                    );
                    interrupt.trigger();
                } else {
                    std::process::exit(128 + signal);
                }
            }
        })?;
    Ok(first)
}

/// Runs the plan, with a progress line on a terminal.
fn run_with_progress_line(plan: &Plan, interrupt: &Interrupt) -> Result<Report, RunError> {
    let progress = Progress::default();
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| show_progress(&progress, &finished));
        }
        let result = run_blocking_interruptible(plan, &progress, interrupt);
        finished.store(true, Ordering::Relaxed);
        result
    })
}

/// Prints the report (text or `--json`) to standard output or `--out`.
fn write_report(report: &Report, output: &OutputOptions) -> Result<(), String> {
    let text = if output.json {
        serde_json::to_string_pretty(report)
            .map(|json| json + "\n")
            .map_err(|e| format!("cannot serialise the report: {e}"))?
    } else {
        render_text(report)
    };
    match &output.out {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| format!("cannot write report to '{}': {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write report to stdout: {e}")),
    }
}

/// The exit status for a written report; `signal` is the one that stopped
/// the run, 0 if none did.
fn exit_code(report: &Report, signal: i32) -> ExitCode {
    if report.interrupted {
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(130));
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
