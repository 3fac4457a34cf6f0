//! What a Ctrl-C (SIGINT) or SIGTERM during a run must do: keep what was
//! measured, then clean up. The run keeps its results so far here after
//! every column round ([`keep_partial`]); on the signal they are written
//! (results.json marked interrupted, the reports) into the run's folder
//! before anything stops. Then the throwaway database and Redis key prefix
//! are dropped; child servers die with bench (each asks the kernel for a
//! parent-death signal), which the database would not.

use std::path::PathBuf;
use std::sync::Mutex;

use bench_model::RunResults;

type Guards = (local_services::TestDatabase, local_services::RedisPrefix);

/// The database and prefix to drop if the run is interrupted.
static INTERRUPT_GUARDS: Mutex<Option<Guards>> = Mutex::new(None);

/// What the run has measured so far, and where it writes.
static PARTIAL: Mutex<Option<(PathBuf, RunResults)>> = Mutex::new(None);

/// The results so far of the run writing into `dir`: the groups finished,
/// then the group in progress with its columns so far.
pub(super) fn keep_partial(dir: &std::path::Path, results: RunResults) {
    *PARTIAL.lock().unwrap_or_else(|p| p.into_inner()) = Some((dir.to_owned(), results));
}

/// Forgets the results so far: the run is over and writes them itself.
pub(super) fn forget_partial() {
    PARTIAL.lock().unwrap_or_else(|p| p.into_inner()).take();
}

/// Writes what the run measured before the signal, marked interrupted.
fn write_partial() {
    let taken = PARTIAL.lock().unwrap_or_else(|p| p.into_inner()).take();
    let Some((dir, mut results)) = taken else {
        return;
    };
    results.interrupted = true;
    match crate::output::judge_and_write(&dir, &results, crate::output::Echo::Quiet) {
        Ok(()) => eprintln!(
            "bench: interrupted; what was measured is in {}",
            dir.display()
        ),
        Err(e) => eprintln!("bench: interrupted; could not write what was measured: {e:#}"),
    }
}

/// On SIGINT or SIGTERM: write what was measured, drop the database and
/// prefix, stop services we started, exit 130. Loads are bounded, but a
/// seed-profile column can take minutes, so waiting for it is not an option.
pub fn install_interrupt_cleanup() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("bench-interrupt".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                eprintln!("bench: interrupted, cleaning up");
                write_partial();
                drop(take_guards());
                local_services::stop_started_services();
                std::process::exit(130);
            }
        })?;
    Ok(())
}

/// Keeps the run's database and prefix until [`take_guards`].
pub(super) fn keep_guards(guards: Guards) {
    *INTERRUPT_GUARDS.lock().unwrap_or_else(|p| p.into_inner()) = Some(guards);
}

/// The run's database and prefix, if still held; dropping them cleans up.
pub(super) fn take_guards() -> Option<Guards> {
    INTERRUPT_GUARDS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
}
