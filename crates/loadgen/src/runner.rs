//! Running a plan: check the open-file limit, set up the workers' shared
//! state, drive the load model (crate::drive) until it ends or an
//! [`Interrupt`] stops it, collect the timeline while it runs, and turn the
//! aggregate into a [`Report`] (crate::report_assembly). Nothing here prints.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::aggregate::{Aggregator, Kept, TimelineBuilder};
use crate::drive::{drive_abandoning, drive_load, LoadPhase};
use crate::fd_limit::{ensure_fd_capacity, FdLimitError};
use crate::interrupt::{Interrupt, INTERRUPT_GRACE};
use crate::plan::{BurstConnect, LoadModel, Plan};
use crate::report::Report;
use crate::report_assembly::{build_report, Measured};
use crate::request_bytes::RequestTemplate;
use crate::worker::Shared;

/// How often finished seconds are folded and progress is published.
const COLLECT_TICK: Duration = Duration::from_millis(250);

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The plan needs more connections than the open-file limit allows.
    #[error(transparent)]
    FdLimit(#[from] FdLimitError),
    /// The tokio runtime for `run_blocking` could not be built.
    #[error("cannot start the client runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The latency histograms could not be created.
    #[error("cannot create the latency histograms: {0}")]
    Histogram(#[source] hdrhistogram::CreationError),
}

/// Live counters a caller may watch while a run is going (the CLI's progress
/// bar); updated a few times a second, not per request.
#[derive(Debug, Default)]
pub struct Progress {
    completed: AtomicU64,
    errors: AtomicU64,
}

impl Progress {
    /// Requests that ended so far.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Relaxed)
    }
    /// Errors so far.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }
}

/// Runs `plan` on `plan.threads` client threads of its own; for callers
/// without a runtime (the CLI, the benchmark runner).
pub fn run_blocking(plan: &Plan) -> Result<Report, RunError> {
    run_blocking_with_progress(plan, &Progress::default())
}

/// [`run_blocking`], publishing live counts into `progress`.
pub fn run_blocking_with_progress(plan: &Plan, progress: &Progress) -> Result<Report, RunError> {
    run_blocking_interruptible(plan, progress, &Interrupt::new())
}

/// [`run_blocking_with_progress`], stopped early when `interrupt` is
/// triggered: no request starts after it, those in flight get
/// [`INTERRUPT_GRACE`] to land, and the report (marked `interrupted`)
/// counts what ended by then.
///
/// Each client thread runs its own single-threaded tokio runtime with its
/// own epoll instance, and connections are dealt out to them round-robin,
/// the way wrk gives each thread its own event loop: no task ever moves
/// between threads, and an idle thread sleeps in its own `epoll_wait`
/// instead of waking others to look for work to steal. (Measured against a
/// work-stealing runtime on this 2-core machine, CPU per request was the
/// same within noise; this layout is the one whose cost is easiest to
/// reason about next to wrk's.)
pub fn run_blocking_interruptible(
    plan: &Plan,
    progress: &Progress,
    interrupt: &Interrupt,
) -> Result<Report, RunError> {
    let (release_tx, release_rx) = watch::channel(false);
    let mut runtimes = Vec::with_capacity(plan.threads);
    let mut threads = Vec::with_capacity(plan.threads);
    for index in 0..plan.threads {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(RunError::Runtime)?;
        runtimes.push(runtime.handle().clone());
        let mut release = release_rx.clone();
        let thread = std::thread::Builder::new()
            .name(format!("loadgen-client-{index}"))
            .spawn(move || {
                runtime.block_on(async move {
                    let _ = release.wait_for(|done| *done).await;
                })
            })
            .map_err(RunError::Runtime)?;
        threads.push(thread);
    }
    let driver = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let result = driver.block_on(run_on(plan, progress, interrupt, runtimes));
    let _ = release_tx.send(true);
    for thread in threads {
        let _ = thread.join();
    }
    result
}

/// Runs `plan` on the current tokio runtime (its thread count wins over
/// `plan.threads`).
pub async fn run(plan: &Plan) -> Result<Report, RunError> {
    run_with_progress(plan, &Progress::default()).await
}

/// [`run`], publishing live counts into `progress`.
pub async fn run_with_progress(plan: &Plan, progress: &Progress) -> Result<Report, RunError> {
    run_interruptible(plan, progress, &Interrupt::new()).await
}

/// [`run_with_progress`], stopped early when `interrupt` is triggered (as
/// [`run_blocking_interruptible`] is).
pub async fn run_interruptible(
    plan: &Plan,
    progress: &Progress,
    interrupt: &Interrupt,
) -> Result<Report, RunError> {
    let runtimes = vec![tokio::runtime::Handle::current()];
    run_on(plan, progress, interrupt, runtimes).await
}

/// Runs `plan` with workers spread over `runtimes`; the caller's task
/// drives the load model's clock and collects the timeline.
async fn run_on(
    plan: &Plan,
    progress: &Progress,
    interrupt: &Interrupt,
    runtimes: Vec<tokio::runtime::Handle>,
) -> Result<Report, RunError> {
    ensure_fd_capacity(plan.load.peak_connections())?;
    let cpu_before = own_cpu_seconds();
    // Second zero of the timeline and of recording: after the unrecorded lead.
    let origin = Instant::now() + plan.unrecorded_lead;
    let shared = Arc::new(shared_state(plan, origin, runtimes)?);

    let (done_tx, done_rx) = watch::channel(false);
    let drive = async {
        let phase = drive_until_interrupted(&shared, plan, origin, interrupt).await;
        let _ = done_tx.send(true);
        phase
    };
    let ((phase, interrupted), mut timeline) =
        tokio::join!(drive, collect_timeline(&shared, progress, done_rx));
    let cpu_seconds = (own_cpu_seconds() - cpu_before).max(0.0);

    shared.aggregator.drain_seconds(u64::MAX, &mut timeline);
    let totals = shared.aggregator.totals();
    publish(&shared.aggregator, progress);
    let measured = Measured {
        phase,
        totals,
        timeline: timeline.finish(),
        cpu_seconds,
        wall: origin.elapsed() + plan.unrecorded_lead,
        interrupted,
    };
    Ok(build_report(plan, measured))
}

/// What every worker of the run shares.
fn shared_state(
    plan: &Plan,
    origin: Instant,
    runtimes: Vec<tokio::runtime::Handle>,
) -> Result<Shared, RunError> {
    let kept = Kept {
        uncorrected: matches!(plan.load, LoadModel::Open { .. }),
        bounded: plan.abandon_in_flight,
        connect: matches!(
            plan.load,
            LoadModel::Burst {
                connect: BurstConnect::InRequest,
                ..
            }
        ),
    };
    Ok(Shared {
        addr: plan.target.addr,
        template: RequestTemplate::new(&plan.target, &plan.request),
        keep_alive: plan.request.keep_alive,
        timeout: plan.timeout,
        aggregator: Aggregator::new(plan.threads * 4, kept, origin).map_err(RunError::Histogram)?,
        stop: AtomicBool::new(false),
        in_flight_since: plan.abandon_in_flight.then(|| {
            (0..plan.load.peak_connections())
                .map(|_| AtomicU64::new(0))
                .collect()
        }),
        clock_base: Instant::now(),
        runtimes,
    })
}

/// Drives the load model to its end, or until `interrupt`: then no request
/// starts any more (`stop`), the model's clock ends, and what is in flight
/// gets [`INTERRUPT_GRACE`] to land. Returns the phase and whether it was
/// interrupted.
async fn drive_until_interrupted(
    shared: &Arc<Shared>,
    plan: &Plan,
    origin: Instant,
    interrupt: &Interrupt,
) -> (LoadPhase, bool) {
    let drive = async {
        if plan.abandon_in_flight {
            drive_abandoning(shared, &plan.load, origin, plan.unrecorded_lead).await
        } else {
            drive_load(shared, &plan.load, origin).await
        }
    };
    tokio::pin!(drive);
    tokio::select! {
        phase = &mut drive => (phase, false),
        () = interrupt.triggered() => {
            shared.stop.store(true, Ordering::Relaxed);
            let stopped = Instant::now();
            match tokio::time::timeout(INTERRUPT_GRACE, &mut drive).await {
                Ok(phase) => (phase, true),
                // Still going (a burst still connecting, a request that will
                // not land): the phase ends at the interrupt; the workers left
                // are dropped with their runtimes.
                Err(_) => (LoadPhase { end: stopped, ..LoadPhase::plain(origin) }, true),
            }
        }
    }
}

/// CPU time (user + system, all threads) this process has used so far, from
/// the process CPU-time clock: to the nanosecond, where `/proc`'s figures
/// move in 10-ms ticks (a short run then read 0 ms about one time in five).
fn own_cpu_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn publish(aggregator: &Aggregator, progress: &Progress) {
    let (completed, errors) = aggregator.running_counts();
    progress.completed.store(completed, Ordering::Relaxed);
    progress.errors.store(errors, Ordering::Relaxed);
}

/// Folds finished seconds into the timeline while the load runs, so that
/// per-second histograms do not pile up over a long run.
async fn collect_timeline(
    shared: &Shared,
    progress: &Progress,
    mut done: watch::Receiver<bool>,
) -> TimelineBuilder {
    let mut timeline = TimelineBuilder::default();
    let mut tick = tokio::time::interval(COLLECT_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            changed = done.wait_for(|d| *d) => {
                let _ = changed;
                return timeline;
            }
        }
        let current = shared.aggregator.second_of(Instant::now());
        shared.aggregator.drain_seconds(current, &mut timeline);
        // Keep the last finished second open a little longer for records
        // that were timed just before the boundary but locked just after.
        timeline.fold_before(current.saturating_sub(1));
        publish(&shared.aggregator, progress);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_cpu_time_grows_while_this_process_computes() {
        let before = own_cpu_seconds();
        let mut x = 0u64;
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(60) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let used = own_cpu_seconds() - before;
        if std::path::Path::new("/proc/self/stat").exists() {
            assert!(used >= 0.01, "{used} s of CPU for 60 ms of spinning");
        }
    }
}
