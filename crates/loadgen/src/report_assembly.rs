//! Turning what a run measured into its [`Report`]: the merged counts and
//! histograms, the load phase's bounds, the timeline and the client's CPU
//! time, then the thresholds evaluated on the result. Pure: nothing is
//! measured here.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::aggregate::{Counts, Totals};
use crate::drive::LoadPhase;
use crate::latency_stats::{error_rate_percent, record_micros, summarize};
use crate::plan::{LoadModel, Plan, StopAt};
use crate::report::{
    ms, BurstInfo, ClientCpu, ErrorCounts, LoadInfo, ModelName, OpenLoopInfo, Report,
    RequestCounts, StageInfo, TargetInfo, TimelineRow, TransferInfo, SCHEMA_VERSION,
};
use crate::stages::total_duration;

/// What a run measured, besides the plan it ran.
pub(crate) struct Measured {
    pub(crate) phase: LoadPhase,
    pub(crate) totals: Totals,
    pub(crate) timeline: Vec<TimelineRow>,
    /// The client's CPU time over the whole run, and the run's wall time
    /// (its unrecorded lead included).
    pub(crate) cpu_seconds: f64,
    pub(crate) wall: Duration,
    pub(crate) interrupted: bool,
}

/// The bytes both ways, in all and per second of the load phase.
fn transfer(counts: &Counts, elapsed_s: f64) -> TransferInfo {
    TransferInfo {
        sent_bytes: counts.sent_bytes,
        received_bytes: counts.received_bytes,
        sent_bytes_per_second: counts.sent_bytes as f64 / elapsed_s,
        received_bytes_per_second: counts.received_bytes as f64 / elapsed_s,
    }
}

/// The report of `plan` from what it measured.
pub(crate) fn build_report(plan: &Plan, m: Measured) -> Report {
    let Measured {
        phase, mut totals, ..
    } = m;
    let unfinished = phase.unfinished_ages.len() as u64;
    let latency_lower_bound_ms = totals.bounded.take().map(|mut h| {
        for age in &phase.unfinished_ages {
            record_micros(&mut h, u64::try_from(age.as_micros()).unwrap_or(u64::MAX));
        }
        summarize(&h)
    });
    let elapsed = phase.end.saturating_duration_since(phase.start);
    let elapsed_s = elapsed.as_secs_f64().max(1e-9);
    let counts = &totals.counts;
    let by_status: BTreeMap<String, u64> = counts
        .statuses
        .iter()
        .filter(|(code, _)| **code >= 400)
        .map(|(code, n)| (code.to_string(), *n))
        .collect();
    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        interrupted: m.interrupted,
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
        transfer: transfer(counts, elapsed_s),
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
        burst: phase.burst.map(|info| with_connects(info, &totals)),
        timeline: m.timeline,
        client_cpu: ClientCpu {
            cpu_ms: m.cpu_seconds * 1000.0,
            cores_used: m.cpu_seconds / m.wall.as_secs_f64().max(1e-9),
        },
        thresholds: Vec::new(),
    };
    report.thresholds = plan
        .thresholds
        .iter()
        .map(|t| t.evaluate(&report))
        .collect();
    report
}

/// A burst's details with its connects: timed before the release by the
/// drive, or (with the connect in the request) inside the records.
fn with_connects(info: BurstInfo, totals: &Totals) -> BurstInfo {
    BurstInfo {
        connect_ms: info
            .connect_ms
            .or_else(|| totals.connect.as_ref().map(summarize)),
        ..info
    }
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
                model: ModelName::Closed,
                connections: *connections,
                duration_ms,
                requests,
                rate_rps: None,
                max_connections: None,
                stages: None,
                burst_connect: None,
            }
        }
        LoadModel::Burst {
            connections,
            connect,
        } => LoadInfo {
            model: ModelName::Burst,
            connections: *connections,
            duration_ms: None,
            requests: Some(*connections as u64),
            rate_rps: None,
            max_connections: None,
            stages: None,
            burst_connect: Some(*connect),
        },
        LoadModel::Stages { stages } => LoadInfo {
            model: ModelName::Stages,
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
            burst_connect: None,
        },
        LoadModel::Open {
            rate_rps,
            stop,
            initial_connections,
            max_connections,
        } => {
            let (duration_ms, requests) = split(stop);
            LoadInfo {
                model: ModelName::Open,
                connections: *initial_connections,
                duration_ms,
                requests,
                rate_rps: Some(*rate_rps),
                max_connections: Some(*max_connections),
                stages: None,
                burst_connect: None,
            }
        }
    }
}
