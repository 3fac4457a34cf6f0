//! Running a plan: check the open-file limit, start the workers the load
//! model asks for, drive the model's clock (deadline, burst release, stage
//! controller, arrival clock), collect the timeline while it runs, and turn
//! the aggregate into a [`Report`]. Nothing here prints.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::aggregate::{Aggregator, TimelineBuilder, LATE_SEND_THRESHOLD};
use crate::fd_limit::{ensure_fd_capacity, FdLimitError};
use crate::latency_stats::{error_rate_percent, record_micros, summarize};
use crate::plan::{LoadModel, Plan, StopAt};
use crate::report::{
    ms, BurstInfo, ClientCpu, ErrorCounts, LoadInfo, OpenLoopInfo, Report, RequestCounts,
    StageInfo, TargetInfo, SCHEMA_VERSION,
};
use crate::request_bytes::RequestTemplate;
use crate::stages::{active_connections_at, total_duration};
use crate::ticket_queue::TicketQueue;
use crate::worker::{Pacing, Shared};

/// How often the stage controller adjusts the active connection count.
const STAGE_TICK: Duration = Duration::from_millis(100);
/// Shortest sleep of the open-mode arrival clock.
const CLOCK_QUANTUM: Duration = Duration::from_micros(250);
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
///
/// Each client thread runs its own single-threaded tokio runtime with its
/// own epoll instance, and connections are dealt out to them round-robin,
/// the way wrk gives each thread its own event loop: no task ever moves
/// between threads, and an idle thread sleeps in its own `epoll_wait`
/// instead of waking others to look for work to steal. (Measured against a
/// work-stealing runtime on this 2-core machine, CPU per request was the
/// same within noise; this layout is the one whose cost is easiest to
/// reason about next to wrk's.)
pub fn run_blocking_with_progress(plan: &Plan, progress: &Progress) -> Result<Report, RunError> {
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
    let result = driver.block_on(run_on(plan, progress, runtimes));
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
    run_on(plan, progress, vec![tokio::runtime::Handle::current()]).await
}

/// What driving the load model produced besides the records.
struct LoadPhase {
    start: Instant,
    end: Instant,
    open_loop: Option<OpenLoopInfo>,
    burst: Option<BurstInfo>,
    /// Requests abandoned in flight at the deadline ([`Plan::abandon_in_flight`]),
    /// each with how long it had been in flight then.
    unfinished_ages: Vec<Duration>,
}

/// Runs `plan` with workers spread over `runtimes`; the caller's task
/// drives the load model's clock and collects the timeline.
async fn run_on(
    plan: &Plan,
    progress: &Progress,
    runtimes: Vec<tokio::runtime::Handle>,
) -> Result<Report, RunError> {
    ensure_fd_capacity(plan.load.peak_connections())?;
    let cpu_before = own_cpu_seconds();
    // Second zero of the timeline and of recording: after the unrecorded lead.
    let origin = Instant::now() + plan.unrecorded_lead;
    let open = matches!(plan.load, LoadModel::Open { .. });
    let clock_base = Instant::now();
    let shared = Arc::new(Shared {
        addr: plan.target.addr,
        template: RequestTemplate::new(&plan.target, &plan.request),
        keep_alive: plan.request.keep_alive,
        timeout: plan.timeout,
        aggregator: Aggregator::new(plan.threads * 4, open, plan.abandon_in_flight, origin)
            .map_err(RunError::Histogram)?,
        stop: AtomicBool::new(false),
        in_flight_since: plan.abandon_in_flight.then(|| {
            (0..plan.load.peak_connections())
                .map(|_| AtomicU64::new(0))
                .collect()
        }),
        clock_base,
        runtimes,
    });

    let (done_tx, done_rx) = watch::channel(false);
    let drive = async {
        let phase = if plan.abandon_in_flight {
            drive_abandoning(&shared, &plan.load, origin, plan.unrecorded_lead).await
        } else {
            drive_load(&shared, &plan.load, origin).await
        };
        let _ = done_tx.send(true);
        phase
    };
    let (phase, mut timeline) = tokio::join!(drive, collect_timeline(&shared, progress, done_rx));
    let cpu_seconds = (own_cpu_seconds() - cpu_before).max(0.0);

    shared.aggregator.drain_seconds(u64::MAX, &mut timeline);
    let totals = shared.aggregator.totals();
    let unfinished = phase.unfinished_ages.len() as u64;
    let latency_lower_bound_ms = totals.bounded.map(|mut h| {
        for age in &phase.unfinished_ages {
            record_micros(&mut h, u64::try_from(age.as_micros()).unwrap_or(u64::MAX));
        }
        summarize(&h)
    });
    publish(&shared.aggregator, progress);

    let elapsed = phase.end.saturating_duration_since(phase.start);
    let elapsed_s = elapsed.as_secs_f64().max(1e-9);
    let counts = &totals.counts;
    let by_status: std::collections::BTreeMap<String, u64> = counts
        .statuses
        .iter()
        .filter(|(code, _)| **code >= 400)
        .map(|(code, n)| (code.to_string(), *n))
        .collect();
    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        target: TargetInfo {
            url: plan.target.url.clone(),
            method: plan.request.method.clone(),
            keep_alive: plan.request.keep_alive,
            timeout_ms: ms(plan.timeout),
        },
        load: load_info(&plan.load),
        threads: plan.threads,
        elapsed_ms: ms(elapsed),
        requests: RequestCounts {
            total: counts.total + unfinished,
            ok: counts.total - counts.errors,
            errors: counts.errors + unfinished,
        },
        throughput_rps: (counts.total + unfinished) as f64 / elapsed_s,
        successful_throughput_rps: (counts.total - counts.errors) as f64 / elapsed_s,
        error_rate_percent: error_rate_percent(
            counts.errors + unfinished,
            counts.total + unfinished,
        ),
        errors: ErrorCounts {
            status: by_status.values().sum(),
            by_status,
            connect: counts.connect,
            timeout: counts.timeout,
            other: counts.other,
            unfinished,
        },
        status_codes: counts
            .statuses
            .iter()
            .map(|(code, n)| (code.to_string(), *n))
            .collect(),
        latency_ms: summarize(&totals.latency),
        latency_uncorrected_ms: totals.uncorrected.as_ref().map(summarize),
        latency_lower_bound_ms,
        open_loop: phase.open_loop.map(|info| OpenLoopInfo {
            late_sends: counts.late_sends,
            ..info
        }),
        burst: phase.burst,
        timeline: timeline.finish(),
        client_cpu: ClientCpu {
            cpu_ms: cpu_seconds * 1000.0,
            cores_used: cpu_seconds
                / (origin.elapsed() + plan.unrecorded_lead)
                    .as_secs_f64()
                    .max(1e-9),
        },
        thresholds: Vec::new(),
    };
    report.thresholds = plan
        .thresholds
        .iter()
        .map(|t| t.evaluate(&report))
        .collect();
    Ok(report)
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

fn spawn(shared: &Arc<Shared>, worker: usize, pacing: Pacing) -> JoinHandle<()> {
    shared.spawn_worker(worker, pacing)
}

async fn join_all(handles: Vec<JoinHandle<()>>) {
    for handle in handles {
        // A worker that panicked has lost only its own in-flight request.
        let _ = handle.await;
    }
}

/// A closed loop that ends at its deadline sharp ([`Plan::abandon_in_flight`]):
/// every worker is aborted there, closing its connection, and the requests
/// still in flight are counted as unfinished instead of waited for. A
/// response that lands in the microseconds between the deadline and the
/// abort is still recorded. The workers start `lead` before `origin`
/// ([`Plan::unrecorded_lead`]).
async fn drive_abandoning(
    shared: &Arc<Shared>,
    load: &LoadModel,
    origin: Instant,
    lead: Duration,
) -> LoadPhase {
    let (connections, duration) = match load {
        LoadModel::Closed {
            connections,
            stop: StopAt::Duration(d),
        } => (*connections, *d),
        // The plan builder allows nothing else with abandon_in_flight.
        other => return drive_load(shared, other, origin - lead).await,
    };
    let handles: Vec<_> = (0..connections)
        .map(|i| spawn(shared, i, Pacing::Closed { budget: None }))
        .collect();
    tokio::time::sleep_until((origin + duration).into()).await;
    let end = Instant::now();
    shared.stop.store(true, Ordering::Relaxed);
    for handle in &handles {
        handle.abort();
    }
    join_all(handles).await;
    LoadPhase {
        start: origin,
        end,
        open_loop: None,
        burst: None,
        unfinished_ages: shared
            .in_flight_since
            .iter()
            .flatten()
            .map(|slot| slot.load(Ordering::Relaxed))
            .filter(|&since| since > 0)
            .map(|since| {
                let started = shared.clock_base + Duration::from_nanos(since - 1);
                end.saturating_duration_since(started)
            })
            .collect(),
    }
}

/// Starts the workers for the model and drives its clock to the end.
async fn drive_load(shared: &Arc<Shared>, load: &LoadModel, origin: Instant) -> LoadPhase {
    match load {
        LoadModel::Closed { connections, stop } => {
            let budget = match stop {
                StopAt::Requests(n) => Some((Arc::new(AtomicU64::new(0)), *n)),
                StopAt::Duration(_) => None,
            };
            let handles: Vec<_> = (0..*connections)
                .map(|i| {
                    spawn(
                        shared,
                        i,
                        Pacing::Closed {
                            budget: budget.clone(),
                        },
                    )
                })
                .collect();
            let deadline = match stop {
                StopAt::Duration(d) => {
                    let shared = Arc::clone(shared);
                    let d = *d;
                    Some(tokio::spawn(async move {
                        tokio::time::sleep(d).await;
                        shared.stop.store(true, Ordering::Relaxed);
                    }))
                }
                StopAt::Requests(_) => None,
            };
            join_all(handles).await;
            if let Some(deadline) = deadline {
                deadline.abort();
            }
            LoadPhase {
                start: origin,
                end: Instant::now(),
                open_loop: None,
                burst: None,
                unfinished_ages: Vec::new(),
            }
        }
        LoadModel::Burst { connections } => {
            let (ready_tx, mut ready_rx) = mpsc::channel(1024);
            let (release_tx, release_rx) = watch::channel(None);
            let handles: Vec<_> = (0..*connections)
                .map(|i| {
                    let pacing = Pacing::Burst {
                        ready: ready_tx.clone(),
                        release: release_rx.clone(),
                    };
                    spawn(shared, i, pacing)
                })
                .collect();
            drop(ready_tx);
            let mut reported = 0;
            let mut connected = 0;
            while reported < *connections {
                match ready_rx.recv().await {
                    Some(ok) => {
                        reported += 1;
                        connected += usize::from(ok);
                    }
                    None => break,
                }
            }
            let release = Instant::now();
            let _ = release_tx.send(Some(release));
            join_all(handles).await;
            LoadPhase {
                start: release,
                end: Instant::now(),
                open_loop: None,
                burst: Some(BurstInfo {
                    connections: *connections,
                    connected_before_release: connected,
                    connect_phase_ms: ms(release - origin),
                }),
                unfinished_ages: Vec::new(),
            }
        }
        LoadModel::Stages { stages } => {
            let total = total_duration(stages);
            let (active_tx, active_rx) =
                watch::channel(active_connections_at(stages, Duration::ZERO));
            let handles: Vec<_> = (0..load.peak_connections())
                .map(|index| {
                    let pacing = Pacing::Staged {
                        index,
                        active: active_rx.clone(),
                    };
                    spawn(shared, index, pacing)
                })
                .collect();
            drop(active_rx);
            loop {
                let elapsed = origin.elapsed();
                if elapsed >= total {
                    break;
                }
                let target = active_connections_at(stages, elapsed);
                active_tx.send_if_modified(|active| {
                    let changed = *active != target;
                    *active = target;
                    changed
                });
                tokio::time::sleep(STAGE_TICK.min(total - elapsed)).await;
            }
            shared.stop.store(true, Ordering::Relaxed);
            // Dropping the sender wakes parked workers so that they exit.
            drop(active_tx);
            join_all(handles).await;
            LoadPhase {
                start: origin,
                end: Instant::now(),
                open_loop: None,
                burst: None,
                unfinished_ages: Vec::new(),
            }
        }
        LoadModel::Open {
            rate_rps,
            stop,
            initial_connections,
            max_connections,
        } => {
            drive_open(
                shared,
                *rate_rps,
                *stop,
                *initial_connections,
                *max_connections,
            )
            .await
        }
    }
}

/// The arrival clock of open mode: request `i` is due at `start + i / rate`,
/// whether or not earlier ones have answered. The pool grows when no worker
/// is free so that arrivals do not wait on responses, up to the cap.
///
/// The clock runs on a blocking thread with `std::thread::sleep`, not on a
/// tokio timer: tokio's timer wheel has millisecond granularity and would
/// make most sends leave up to a millisecond late, which the corrected
/// latency would then (rightly) charge to the server.
async fn drive_open(
    shared: &Arc<Shared>,
    rate_rps: f64,
    stop: StopAt,
    initial_connections: usize,
    max_connections: usize,
) -> LoadPhase {
    let shared_for_clock = Arc::clone(shared);
    let start = Instant::now();
    let clock = tokio::task::spawn_blocking(move || {
        arrival_clock(
            &shared_for_clock,
            start,
            rate_rps,
            stop,
            initial_connections.min(max_connections),
            max_connections,
        )
    })
    .await;
    let (handles, scheduled, pool_cap_hits) = clock.unwrap_or_default();
    let connections_used = handles.len();
    join_all(handles).await;
    LoadPhase {
        start,
        end: Instant::now(),
        open_loop: Some(OpenLoopInfo {
            rate_rps,
            scheduled,
            late_sends: 0,
            late_threshold_ms: ms(LATE_SEND_THRESHOLD),
            pool_cap_hits,
            connections_used,
        }),
        burst: None,
        unfinished_ages: Vec::new(),
    }
}

/// Hands out tickets on schedule; returns the workers it started, the
/// tickets scheduled and how often the pool cap was hit.
fn arrival_clock(
    shared: &Arc<Shared>,
    start: Instant,
    rate_rps: f64,
    stop: StopAt,
    initial_connections: usize,
    max_connections: usize,
) -> (Vec<JoinHandle<()>>, u64, u64) {
    let tickets = Arc::new(TicketQueue::default());
    let start_worker = |index: usize| {
        tickets.count_new_worker();
        let pacing = Pacing::Open {
            tickets: Arc::clone(&tickets),
            counted_as_spare: true,
        };
        shared.spawn_worker(index, pacing)
    };
    let mut handles: Vec<_> = (0..initial_connections).map(start_worker).collect();
    let mut scheduled: u64 = 0;
    let mut pool_cap_hits: u64 = 0;
    let mut last_wake = start;
    loop {
        let intended = start + Duration::from_secs_f64(scheduled as f64 / rate_rps);
        let over = match stop {
            StopAt::Duration(d) => intended >= start + d,
            StopAt::Requests(n) => scheduled >= n,
        };
        if over {
            break;
        }
        let now = Instant::now();
        if intended > now {
            // Wake at most once per quantum and send everything due then:
            // at high rates this trades up to a quarter millisecond of
            // lateness for far fewer thread wake-ups per request.
            let wake = intended.max(last_wake + CLOCK_QUANTUM);
            std::thread::sleep(wake - now);
            last_wake = Instant::now();
        }
        if tickets.spare() <= 0 {
            if handles.len() < max_connections {
                handles.push(start_worker(handles.len()));
            } else {
                pool_cap_hits += 1;
            }
        }
        tickets.push(intended);
        scheduled += 1;
    }
    tickets.close();
    (handles, scheduled, pool_cap_hits)
}

fn load_info(load: &LoadModel) -> LoadInfo {
    let split = |stop: &StopAt| match stop {
        StopAt::Duration(d) => (Some(ms(*d)), None),
        StopAt::Requests(n) => (None, Some(*n)),
    };
    match load {
        LoadModel::Closed { connections, stop } => {
            let (duration_ms, requests) = split(stop);
            LoadInfo {
                model: "closed".into(),
                connections: *connections,
                duration_ms,
                requests,
                rate_rps: None,
                max_connections: None,
                stages: None,
            }
        }
        LoadModel::Burst { connections } => LoadInfo {
            model: "burst".into(),
            connections: *connections,
            duration_ms: None,
            requests: Some(*connections as u64),
            rate_rps: None,
            max_connections: None,
            stages: None,
        },
        LoadModel::Stages { stages } => LoadInfo {
            model: "stages".into(),
            connections: load.peak_connections(),
            duration_ms: Some(ms(total_duration(stages))),
            requests: None,
            rate_rps: None,
            max_connections: None,
            stages: Some(
                stages
                    .iter()
                    .map(|s| StageInfo {
                        duration_ms: ms(s.duration),
                        target: s.target,
                    })
                    .collect(),
            ),
        },
        LoadModel::Open {
            rate_rps,
            stop,
            initial_connections,
            max_connections,
        } => {
            let (duration_ms, requests) = split(stop);
            LoadInfo {
                model: "open".into(),
                connections: *initial_connections,
                duration_ms,
                requests,
                rate_rps: Some(*rate_rps),
                max_connections: Some(*max_connections),
                stages: None,
            }
        }
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
