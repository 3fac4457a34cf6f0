//! A concurrency sweep group ([`Sweep`]): every column once per round (the
//! shared round loop), each column round one server process taking the
//! steps in ascending order. Between steps the server must be idle within
//! `sweep.settle`, or the next step gets a fresh process ([`Sweep`] says
//! why). Every step of every round is kept.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use process_stats::{CpuSnapshot, PeakSampler};

use super::launch::{Launch, RoundServer};
use super::rounds::{every_column_round, round_line, ColumnRound, Measured};
use super::window::{server_stats, SAMPLE_EVERY};
use super::Ctx;
use crate::measure::cpu_account::{account, Parts};
use crate::measure::jvm_warm_up::warm_up_jvm;
use crate::measure::load::{run_sweep_step, ColumnError};
use crate::measure::{jvm_readings, remote_metrics};
use crate::plan::{Column, GroupPlan, LoadOptions, Sweep};
use crate::servers::{http_get_within, requests_total};
use bench_model::{ColumnResult, GroupResult, RoundResult, ServerStats, SweepInfo, SweepStep};

/// The sweep group `group`, its load `sweep`, with the blocking server's
/// predicted cap the plan carries.
pub(super) fn measure_sweep_group(
    group: &GroupPlan,
    sweep: &Sweep,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let measure = |at: &ColumnRound<'_>| {
        // A sweep says each step as it ends; the round is kept after its
        // last step.
        let on_step = |r: &RoundResult| cx.progress.say(&step_line(at, r));
        let column = &group.group.columns[at.column];
        let rounds = measure_sweep_column(column, sweep, cx, at, on_step)?;
        Ok(Measured {
            rounds,
            lines: Vec::new(),
        })
    };
    let (cap, cap_note) = group.sweep_cap.clone().unwrap_or_default();
    let info = SweepInfo {
        steps: sweep.steps.clone(),
        rounds: group.rounds,
        window_seconds: sweep.window.as_secs_f64(),
        warm_up_seconds: sweep.warm_up.as_secs_f64(),
        cap,
        cap_note,
    };
    let result = |columns: Vec<ColumnResult>| GroupResult {
        columns,
        sweep: Some(info.clone()),
        ..group.empty_result(cx.options)
    };
    let kept = |so_far: &[ColumnResult]| cx.snapshot.keep(result(so_far.to_vec()));
    let mut columns = group.empty_columns(cx.options);
    every_column_round(&mut columns, group.rounds, (cx.progress, kept), measure)?;
    Ok(result(columns))
}

/// One step's progress line.
fn step_line(at: &ColumnRound<'_>, r: &RoundResult) -> String {
    format!(
        "{}{}",
        round_line(at, r),
        r.step.map_or(String::new(), |s| format!(
            " [{} connections{}; {} unfinished at the end]",
            s.connections,
            if s.fresh_server { ", fresh server" } else { "" },
            s.unfinished
        ))
    )
}

/// One column round of a sweep: a fresh server, then every step in
/// ascending order, each measured like a column window (idle figures just
/// before it, peaks within it, the machine's CPU split over it). A sweep's
/// server is killed, not drained: its drain would only serve abandoned
/// requests. A server bench did not start cannot be replaced or sampled:
/// its steps run on it as it is, the process rows "n/a".
fn measure_sweep_column(
    column: &Column,
    sweep: &Sweep,
    cx: &Ctx<'_>,
    at: &ColumnRound<'_>,
    on_step: impl Fn(&RoundResult),
) -> Result<Vec<RoundResult>, ColumnError> {
    let (launch, options) = (cx.launch, cx.options);
    let mut server = launch.start_column(column)?;
    let mut out = Vec::new();
    for (k, &connections) in sweep.steps.iter().enumerate() {
        let mut fresh_server = false;
        if k > 0 && matches!(server, RoundServer::Owned(_)) && !settled(server.addr(), sweep.settle)
        {
            server.kill();
            server = launch.start_column(column)?;
            fresh_server = true;
        }
        let step = (column, connections, k == 0 || fresh_server);
        let mut r = measure_step(launch, &server, step, sweep, options)?;
        r.round = at.round;
        r.position = at.position;
        if let Some(step) = &mut r.step {
            step.fresh_server = fresh_server;
        }
        on_step(&r);
        out.push(r);
    }
    server.kill();
    Ok(out)
}

/// One step on `server`: its window, sampled and CPU-accounted, and the
/// machine's listen overflows over it (a server whose backlog was too
/// small for the step's connections opened at once); on a server just
/// started (`fresh`), the JVM's own warm-up first, kept with the step.
fn measure_step(
    launch: &Launch,
    server: &RoundServer,
    (column, connections, fresh): (&Column, usize, bool),
    sweep: &Sweep,
    options: &LoadOptions,
) -> Result<RoundResult, ColumnError> {
    let (addr, pid) = (server.addr(), server.pid());
    let jvm = match fresh {
        true => jvm_of_fresh(addr, column, options)?,
        false => None,
    };
    let idle = pid.and_then(|p| process_stats::sample(p).ok());
    let overflows_before = process_stats::listen_overflows().ok();
    let mut at_start = None;
    let measured = run_sweep_step(
        addr,
        column,
        connections,
        (sweep.warm_up, sweep.window),
        options,
        || {
            at_start = Some((
                CpuSnapshot::take(),
                pid.map(|p| PeakSampler::start(p, SAMPLE_EVERY)),
                Instant::now(),
            ));
        },
    );
    let Some((cpu_before, sampler, window)) = at_start else {
        return Err(anyhow::anyhow!("the sweep step's window never started").into());
    };
    let window_seconds = window.elapsed().as_secs_f64();
    let peaks = sampler.map(PeakSampler::stop);
    let cpu_after = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
    let cpu_before = cpu_before.context("cannot read /proc for CPU accounting")?;
    let (load, mut step): (_, SweepStep) = measured?;
    step.listen_overflows = overflows_before
        .zip(process_stats::listen_overflows().ok())
        .map(|(before, after)| after.saturating_sub(before));
    let parts = Parts {
        server_pid: pid,
        bench_pid: std::process::id(),
        proxy_pids: &launch.proxy_pids,
        irq_apart: launch.irq_apart,
    };
    Ok(RoundResult {
        round: 0,
        position: 0,
        load,
        background_load: None,
        server_process: match (idle, peaks) {
            (Some(i), Some(p)) => server_stats(&i, &p),
            _ => ServerStats::default(),
        },
        cpu: account(&cpu_before, &cpu_after, parts, window_seconds),
        // Reading /metrics around the window would queue behind the
        // step's own requests on a saturated server: not read.
        server_counted_requests: None,
        machine_cpu_measured: pid.is_some(),
        not_measured: Vec::new(),
        // Not read: see server_counted_requests above.
        detector: None,
        step: Some(step),
        postgres_proxy: None,
        jvm,
    })
}

/// A Java server's JVM on a fresh sweep server: its warm-up until it
/// settles, and the version it says it is (read once it is over, on an
/// idle server; the step's own window is not read, see above).
fn jvm_of_fresh(
    addr: SocketAddr,
    column: &Column,
    options: &LoadOptions,
) -> Result<Option<bench_model::JvmWindow>, ColumnError> {
    let Some(warm_up) = warm_up_jvm(addr, column, options)? else {
        return Ok(None);
    };
    let version = match http_get_within(addr, "/metrics", QUIET_FOR * 10, QUIET_FOR * 10) {
        Ok((200, body)) => jvm_readings::parse(&body).map(|r| r.version),
        _ => None,
    };
    Ok(Some(bench_model::JvmWindow {
        version: version.unwrap_or_default(),
        warm_up: Some(warm_up),
        ..Default::default()
    }))
}

/// How long a server must look idle to count as settled: longer than the
/// 300 ms a `/posts/1/blocking` call holds a worker, so a backlog the
/// in-flight gauge does not see (connections an async server has accepted
/// but not yet read) still shows as requests completing in between.
const QUIET_FOR: Duration = Duration::from_millis(350);

/// Whether the server at `addr` is idle within `within`: two /metrics reads
/// `QUIET_FOR` apart (each answered behind whatever is queued before it)
/// show nothing in flight but the read itself, and no request completed in
/// between but the first read.
pub(super) fn settled(addr: SocketAddr, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let read = || -> Option<(f64, u64)> {
        let left = deadline.saturating_duration_since(Instant::now());
        match http_get_within(addr, "/metrics", left, left) {
            Ok((200, body)) => Some((
                remote_metrics::value(&body, "http_requests_in_flight", &[])?,
                requests_total(&body),
            )),
            _ => None,
        }
    };
    let mut last: Option<u64> = None;
    while Instant::now() < deadline {
        match read() {
            Some((in_flight, total)) if in_flight <= 1.0 => {
                if last.is_some_and(|before| total <= before + 1) {
                    return true;
                }
                last = Some(total);
            }
            _ => last = None,
        }
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(QUIET_FOR.min(left));
    }
    false
}
