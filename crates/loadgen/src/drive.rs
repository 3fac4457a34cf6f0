//! The load models' clocks: starting the workers a model asks for and
//! driving it to its end — the deadline of a closed loop (or its request
//! budget), the release instant of a burst, the stage controller, the open
//! model's arrival clock — and saying when the load phase began and ended.
//! Every clock also ends when the run's `stop` flag is set (an interrupt).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::aggregate::LATE_SEND_THRESHOLD;
use crate::latency_stats::{record_micros, summarize};
use crate::plan::{BurstConnect, LoadModel, StopAt};
use crate::report::{ms, BurstInfo, OpenLoopInfo};
use crate::stages::{active_connections_at, total_duration, Stage};
use crate::ticket_queue::TicketQueue;
use crate::worker::{Pacing, Shared};

/// How often the stage controller adjusts the active connection count.
const STAGE_TICK: Duration = Duration::from_millis(100);
/// Shortest sleep of the open-mode arrival clock.
const CLOCK_QUANTUM: Duration = Duration::from_micros(250);

/// What driving the load model produced besides the records.
pub(crate) struct LoadPhase {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
    pub(crate) open_loop: Option<OpenLoopInfo>,
    pub(crate) burst: Option<BurstInfo>,
    /// Requests abandoned in flight at the deadline ([`crate::Plan::abandon_in_flight`]),
    /// each with how long it had been in flight then.
    pub(crate) unfinished_ages: Vec<Duration>,
}

impl LoadPhase {
    /// A phase from `start` to now with nothing else to say.
    pub(crate) fn plain(start: Instant) -> Self {
        LoadPhase {
            start,
            end: Instant::now(),
            open_loop: None,
            burst: None,
            unfinished_ages: Vec::new(),
        }
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
pub(crate) async fn drive_abandoning(
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
pub(crate) async fn drive_load(
    shared: &Arc<Shared>,
    load: &LoadModel,
    origin: Instant,
) -> LoadPhase {
    match load {
        LoadModel::Closed { connections, stop } => {
            drive_closed(shared, *connections, *stop, origin).await
        }
        LoadModel::Burst {
            connections,
            connect,
        } => drive_burst(shared, (*connections, *connect), origin).await,
        LoadModel::Stages { stages } => {
            drive_stages(shared, stages, load.peak_connections(), origin).await
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

/// Closed loop: each worker sends again as soon as it is answered, until
/// the deadline sets `stop` or the request budget is spent.
async fn drive_closed(
    shared: &Arc<Shared>,
    connections: usize,
    stop: StopAt,
    origin: Instant,
) -> LoadPhase {
    let budget = match stop {
        StopAt::Requests(n) => Some((Arc::new(AtomicU64::new(0)), n)),
        StopAt::Duration(_) => None,
    };
    let handles: Vec<_> = (0..connections)
        .map(|i| {
            let pacing = Pacing::Closed {
                budget: budget.clone(),
            };
            spawn(shared, i, pacing)
        })
        .collect();
    let deadline = match stop {
        StopAt::Duration(d) => {
            let shared = Arc::clone(shared);
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
    LoadPhase::plain(origin)
}

/// Burst: start a worker per request and wait until each has reported
/// (with connections opened first, each once its connect ended), then
/// release one request on each at the same instant. The phase, and every
/// request's latency, starts at the release; with the connect in the
/// request, each worker opens its connection only then.
async fn drive_burst(
    shared: &Arc<Shared>,
    (connections, connect): (usize, BurstConnect),
    origin: Instant,
) -> LoadPhase {
    let (ready_tx, mut ready_rx) = mpsc::channel(1024);
    let (release_tx, release_rx) = watch::channel(None);
    let handles: Vec<_> = (0..connections)
        .map(|i| {
            let pacing = Pacing::Burst {
                ready: ready_tx.clone(),
                release: release_rx.clone(),
                connect,
            };
            spawn(shared, i, pacing)
        })
        .collect();
    drop(ready_tx);
    let mut reported = 0;
    let mut connects = shared.aggregator.empty_histogram();
    while reported < connections {
        match ready_rx.recv().await {
            Some(connected_in) => {
                reported += 1;
                if let Some(took) = connected_in {
                    record_micros(
                        &mut connects,
                        u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
                    );
                }
            }
            None => break,
        }
    }
    let release = Instant::now();
    let _ = release_tx.send(Some(release));
    join_all(handles).await;
    LoadPhase {
        burst: Some(BurstInfo {
            connections,
            connect,
            connected_before_release: connects.len() as usize,
            connect_phase_ms: ms(release - origin),
            // With the connect in the request, the report fills it in from
            // the requests' records.
            connect_ms: (connect == BurstConnect::First).then(|| summarize(&connects)),
        }),
        ..LoadPhase::plain(release)
    }
}

/// Stages: a controller moves the active connection count along the ramp
/// every [`STAGE_TICK`]; workers above it park.
async fn drive_stages(
    shared: &Arc<Shared>,
    stages: &[Stage],
    peak: usize,
    origin: Instant,
) -> LoadPhase {
    let total = total_duration(stages);
    let (active_tx, active_rx) = watch::channel(active_connections_at(stages, Duration::ZERO));
    let handles: Vec<_> = (0..peak)
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
        if elapsed >= total || shared.stop.load(Ordering::Relaxed) {
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
    LoadPhase::plain(origin)
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
        } || shared.stop.load(Ordering::Relaxed);
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
