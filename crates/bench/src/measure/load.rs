//! Runs one column's load with the `loadgen` library and turns its report into
//! the bench's [`LoadStats`]. The mixed group runs two plans at once: the
//! background load, and a paced /health probe whose latency is the column's.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use loadgen::{LoadModel, Plan, StopAt};

use crate::plan::{Column, Load, LoadOptions, PathValues};
use bench_model::{ErrorKind, Latency, LoadStats, Second};

fn url(addr: SocketAddr, path: &str, paths: PathValues) -> String {
    format!("http://{addr}{}", paths.fill(path))
}

/// A loadgen plan of `model` on `column`'s `path` at `addr`.
pub(super) fn plan(
    addr: SocketAddr,
    column: &Column,
    path: &str,
    model: LoadModel,
    o: &LoadOptions,
    threads: usize,
) -> anyhow::Result<Plan> {
    plan_with(
        addr,
        column,
        path,
        model,
        o,
        (threads, false, Duration::ZERO),
    )
}

/// [`plan`], with `abandon`: requests in flight at the end of a closed loop
/// stopped by duration are abandoned instead of waited for; and `lead`,
/// an unrecorded start on the same connections.
fn plan_with(
    addr: SocketAddr,
    column: &Column,
    path: &str,
    model: LoadModel,
    o: &LoadOptions,
    (threads, abandon, lead): (usize, bool, Duration),
) -> anyhow::Result<Plan> {
    let abandon = abandon
        && matches!(
            model,
            LoadModel::Closed {
                stop: StopAt::Duration(_),
                ..
            }
        );
    let mut b = Plan::builder(url(addr, path, o.paths))
        .method(column.method)
        .load(model)
        .timeout(o.timeout)
        .threads(threads)
        .abandon_in_flight(abandon)
        .unrecorded_lead(lead);
    if let Some(body) = column.body {
        b = b
            .header("Content-Type: application/json")
            .body(body.as_bytes().to_vec());
    }
    b.build()
        .map_err(|e| anyhow::anyhow!("bad load plan for {}: {e}", column.id.as_str()))
}

fn model(load: &Load) -> LoadModel {
    match load {
        Load::Burst { requests, connect } => LoadModel::Burst {
            connections: *requests,
            connect: *connect,
        },
        Load::Closed {
            connections,
            duration,
        } => LoadModel::Closed {
            connections: *connections,
            stop: StopAt::Duration(*duration),
        },
        Load::ClosedCount {
            connections,
            requests,
        } => LoadModel::Closed {
            connections: *connections,
            stop: StopAt::Requests(*requests),
        },
        Load::Stages(stages) => LoadModel::Stages {
            stages: stages
                .iter()
                .map(|&(duration, target)| loadgen::Stage { duration, target })
                .collect(),
        },
        Load::Mixed { .. } => unreachable!("the mixed load is two plans, see run_column"),
        Load::Idle(_) => unreachable!("the idle group is measured by idle_cost, not one plan"),
        Load::Sweep(_) => unreachable!("a sweep runs step by step, see run_sweep_step"),
    }
}

/// Why a column could not be measured.
#[derive(Debug)]
pub enum ColumnError {
    /// The column cannot be measured (its server exited at start-up,
    /// refusing the column's flags; the idle group's connections failed);
    /// the cause in one line. The column is reported as failed and the run
    /// goes on. A window in which no request succeeded is not this: it is
    /// a round at 0 requests per second, kept and judged.
    Failed(String),
    /// Anything else (a bad plan, no file descriptors): the run stops.
    Other(anyhow::Error),
}

impl From<anyhow::Error> for ColumnError {
    fn from(e: anyhow::Error) -> Self {
        ColumnError::Other(e)
    }
}

/// Runs `column` under `load` against `addr`; for the mixed group returns the
/// probe's stats and the background's. `window_starts` is called once, when
/// the measured part begins: at once, or for the mixed group when the probe
/// starts, after the background's lead (so the stall detector's reading
/// before the window leaves the lead out).
pub fn run_column(
    addr: SocketAddr,
    column: &Column,
    load: &Load,
    o: &LoadOptions,
    window_starts: &mut dyn FnMut(),
) -> Result<(LoadStats, Option<LoadStats>), ColumnError> {
    match (load, column.background) {
        (
            Load::Mixed {
                background,
                probe_rps,
                duration,
            },
            Some(bg_path),
        ) => {
            // The background starts first (alone for the lead: the warm-up) and
            // outlasts the probe by a little, so every probe request meets a
            // loaded server.
            let lead = o.mixed_lead;
            let tail = lead.min(Duration::from_millis(250));
            let bg_model = LoadModel::Closed {
                connections: *background,
                stop: StopAt::Duration(lead + *duration + tail),
            };
            let bg_column = Column {
                method: "GET",
                body: None,
                ..column.clone()
            };
            // The background's requests in flight at its end are waited for,
            // not abandoned: the stall detector's reading after the window
            // must come after every poll of the background route, and a
            // request abandoned behind a blocked event loop is still polled.
            let bg_plan = plan(addr, &bg_column, bg_path, bg_model, o, 1)?;
            let bg = std::thread::spawn(move || loadgen::run_blocking(&bg_plan));
            std::thread::sleep(lead);
            window_starts();
            let probe_model = LoadModel::Open {
                rate_rps: *probe_rps,
                stop: StopAt::Duration(*duration),
                initial_connections: 4,
                max_connections: 256,
            };
            let probe_plan = plan(addr, column, column.path, probe_model, o, 1)?;
            let probe = loadgen::run_blocking(&probe_plan)
                .with_context(|| format!("{}: /health probe failed", column.id.as_str()));
            let bg = bg
                .join()
                .map_err(|_| {
                    anyhow::anyhow!("{}: background load thread panicked", column.id.as_str())
                })?
                .with_context(|| format!("{}: background load failed", column.id.as_str()))?;
            // A load with no success is still a round, at 0 requests per
            // second: its errors say what its requests met.
            Ok((stats(&probe?), Some(stats(&bg))))
        }
        _ => {
            let run_plan = plan(addr, column, column.path, model(load), o, o.threads)?;
            window_starts();
            let report = loadgen::run_blocking(&run_plan)
                .with_context(|| format!("{}: load failed", column.id.as_str()))?;
            Ok((stats(&report), None))
        }
    }
}

/// The unrecorded warm-up before a column's window ([`Load::warm_up`]). A
/// warm-up that is a closed loop stopped by duration abandons its requests
/// still in flight at its end instead of waiting for them: nothing of it is
/// recorded, and the window then starts on a server still busy with them,
/// as it would be under a load that went on. Such a warm-up judges nothing:
/// one shorter than a request's latency (a 300-ms sleep behind a blocked
/// event loop) may have no answer at all, and the window says what the
/// server does. What it got is returned, for a JVM's warm-up to judge
/// ([`crate::measure::jvm_warm_up`]).
pub fn run_warm_up(
    addr: SocketAddr,
    column: &Column,
    load: &Load,
    o: &LoadOptions,
) -> Result<LoadStats, ColumnError> {
    let Load::Closed { .. } = load else {
        return run_column(addr, column, load, o, &mut || {}).map(|(stats, _)| stats);
    };
    let how = (o.threads, true, Duration::ZERO);
    let warm_up_plan = plan_with(addr, column, column.path, model(load), o, how)?;
    let report = loadgen::run_blocking(&warm_up_plan)
        .with_context(|| format!("{}: warm-up failed", column.id.as_str()))?;
    Ok(stats(&report))
}

/// One sweep step against `addr`: a closed loop at `connections` for
/// `warm_up` (unrecorded) then `window` on the same connections, cut at the
/// window's end ([`crate::plan::Sweep`]). `at_window` runs on this thread
/// when the measured window starts (bench takes its CPU snapshot and starts
/// the sampler there), while the load runs on another. A step in which
/// nothing succeeded is a figure of the sweep, not a failure: the report
/// shows its zero throughput and what its requests met.
pub fn run_sweep_step(
    addr: SocketAddr,
    column: &Column,
    connections: usize,
    (warm_up, window): (Duration, Duration),
    o: &LoadOptions,
    at_window: impl FnOnce(),
) -> Result<(LoadStats, bench_model::SweepStep), ColumnError> {
    let model = LoadModel::Closed {
        connections,
        stop: StopAt::Duration(window),
    };
    let how = (o.threads, true, warm_up);
    let plan = plan_with(addr, column, column.path, model, o, how)?;
    let load = std::thread::spawn(move || loadgen::run_blocking(&plan));
    std::thread::sleep(warm_up);
    at_window();
    let report = load
        .join()
        .map_err(|_| anyhow::anyhow!("{}: load thread panicked", column.id.as_str()))?
        .with_context(|| {
            format!(
                "{}: load failed at {connections} connections",
                column.id.as_str()
            )
        })?;
    let stats = stats(&report);
    let bound = report
        .latency_lower_bound_ms
        .as_ref()
        .map_or(stats.latency_ms, latency);
    Ok((
        stats,
        bench_model::SweepStep {
            connections,
            fresh_server: false,
            latency_lower_bound_ms: bound,
            unfinished: report.errors.unfinished,
            timeouts: report.errors.timeout,
            listen_overflows: None,
        },
    ))
}

fn latency(l: &loadgen::LatencySummary) -> Latency {
    Latency {
        avg: l.mean,
        min: l.min,
        max: l.max,
        stdev: l.stdev,
        p50: l.p50,
        p95: l.p95,
        p99: l.p99,
        p99_9: Some(l.p99_9),
    }
}

/// The bench's view of a loadgen report.
pub fn stats(r: &loadgen::Report) -> LoadStats {
    let mut errors_by_kind = std::collections::BTreeMap::new();
    for (status, n) in &r.errors.by_status {
        // loadgen keys statuses by their digits; anything else is not a status.
        let kind = status.parse().map_or(ErrorKind::Other, ErrorKind::Status);
        *errors_by_kind.entry(kind).or_insert(0) += *n;
    }
    for (kind, n) in [
        (ErrorKind::Connect, r.errors.connect),
        (ErrorKind::Timeout, r.errors.timeout),
        (ErrorKind::Other, r.errors.other),
        (ErrorKind::Unfinished, r.errors.unfinished),
    ] {
        if n > 0 {
            *errors_by_kind.entry(kind).or_insert(0) += n;
        }
    }
    LoadStats {
        total_requests: r.requests.total,
        ok_requests: r.requests.ok,
        errors: r.requests.errors,
        errors_by_kind,
        duration_seconds: r.elapsed_ms / 1000.0,
        throughput_rps: r.throughput_rps,
        successful_throughput_rps: r.successful_throughput_rps,
        latency_ms: latency(&r.latency_ms),
        timeline: r
            .timeline
            .iter()
            .map(|t| Second {
                second: t.second,
                requests: t.requests,
                errors: t.errors,
                p50_ms: t.p50_ms,
                p99_ms: t.p99_ms,
            })
            .collect(),
        client_cpu_seconds: r.client_cpu.cpu_ms / 1000.0,
        connect_ms: r
            .burst
            .as_ref()
            .and_then(|b| b.connect_ms.as_ref())
            .map(latency),
    }
}
