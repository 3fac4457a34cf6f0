//! One round of one column of a load group on the fresh server started for
//! it: its idle figures, the warm-up (a JVM's own first, until it
//! settles), then the measured window with the server sampled and the
//! machine's CPU accounted, the server's `/metrics` (and the proxy in front
//! of Postgres, in a remote group) read around it, and a JVM's figures
//! from them. The group's load, or any other ([`RoundLoad`]: the
//! equal-load windows' open model).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use process_stats::{CpuSnapshot, PeakSampler, Peaks, ProcessSample};

use super::launch::{Launch, RoundServer};
use crate::measure::cpu_account::{account, Parts};
use crate::measure::detector;
use crate::measure::jvm_warm_up::warm_up_jvm;
use crate::measure::load::{run_column, run_warm_up, ColumnError};
use crate::measure::{jvm_readings, proxy_stats, remote_metrics};
use crate::plan::{Column, Load, LoadOptions};
use crate::servers::{http_get, requests_total};
use bench_model::{CpuUse, JvmWarmUp, LoadStats, ProxyWindow, RoundResult, ServerStats};

/// How often the server's threads and RSS are sampled within a window.
pub(super) const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// The server's figures before the window: from /proc for a server bench
/// started, from its own `/metrics` for one it did not (which may be on
/// another host; without a readable `/metrics` its process rows are "n/a").
struct Idle {
    proc: Option<ProcessSample>,
    remote: Option<remote_metrics::MetricsReading>,
}

impl Idle {
    fn read(server: &RoundServer) -> Idle {
        match server.pid() {
            Some(pid) => Idle {
                proc: process_stats::sample(pid).ok(),
                remote: None,
            },
            None => Idle {
                proc: None,
                remote: remote_metrics::read(server.addr()).ok(),
            },
        }
    }
}

/// What the window itself gave.
struct Window {
    load: LoadStats,
    background_load: Option<LoadStats>,
    cpu: CpuUse,
    peaks: Option<Peaks>,
    remote_readings: Option<Vec<remote_metrics::MetricsReading>>,
    /// `/metrics` read just before the window (for the mixed group: when the
    /// probe starts) and just after it.
    metrics_before: Option<String>,
    metrics_after: Option<String>,
    /// `/metrics` reads the server counted inside the window.
    reads_inside: u64,
    /// What the proxy in front of Postgres carried over the window.
    postgres_proxy: Option<ProxyWindow>,
}

/// How one column round loads its server: an unrecorded warm-up (a JVM's
/// own first, whose record it gives), then the measured window (its load's
/// stats, and the mixed group's background's), which calls its argument
/// when the measured part starts.
pub(super) struct RoundLoad<'a> {
    pub(super) warm_up: &'a dyn Fn(SocketAddr) -> Result<Option<JvmWarmUp>, ColumnError>,
    pub(super) window: &'a WindowLoad<'a>,
}

/// A measured window's load on a server ([`RoundLoad::window`]).
pub(super) type WindowLoad<'a> = dyn Fn(SocketAddr, &mut dyn FnMut()) -> Result<(LoadStats, Option<LoadStats>), ColumnError>
    + 'a;

/// One round of `column` under `load` on `server`, just started for it,
/// after `warm_up`.
pub(super) fn measure_column(
    (launch, server): (&Launch, &RoundServer),
    options: &LoadOptions,
    (column, load, warm_up): (&Column, &Load, Option<&Load>),
    at: (u32, u32),
) -> Result<RoundResult, ColumnError> {
    let warm = |addr| {
        let jvm = warm_up_jvm(addr, column, options)?;
        if let Some(w) = warm_up {
            run_warm_up(addr, column, w, options)?;
        }
        Ok(jvm)
    };
    let window = |addr, starts: &mut dyn FnMut()| run_column(addr, column, load, options, starts);
    let how = RoundLoad {
        warm_up: &warm,
        window: &window,
    };
    measure_round((launch, server), column, &how, at)
}

/// One round of `column` on `server`, just started for it, loaded as
/// `how` says: its idle figures, the warm-up, then the measured window
/// with the server sampled and the machine's CPU accounted.
pub(super) fn measure_round(
    (launch, server): (&Launch, &RoundServer),
    column: &Column,
    how: &RoundLoad<'_>,
    at: (u32, u32),
) -> Result<RoundResult, ColumnError> {
    let idle = Idle::read(server);
    let jvm_warm_up = (how.warm_up)(server.addr())?;
    if column.counts_pins() {
        jvm_readings::await_pins_handed_over(server.addr());
    }
    measure_after(
        &idle,
        (launch, server),
        (column, how.window),
        (jvm_warm_up, at),
    )
}

/// Two rounds on `server`, just started for them: `first` (a column of
/// another group, on the same route) under `first_load`, in place of a
/// warm-up, then `column` under `load`. Both take the server's idle
/// figures from before the first window, where a round of its own takes
/// them from before its warm-up.
pub(super) fn measure_first_then(
    (launch, server): (&Launch, &RoundServer),
    options: &LoadOptions,
    [(first, first_load), (column, load)]: [(&Column, &Load); 2],
    at: (u32, u32),
) -> Result<[RoundResult; 2], ColumnError> {
    let idle = Idle::read(server);
    let jvm_warm_up = warm_up_jvm(server.addr(), column, options)?;
    let first_window =
        |addr, starts: &mut dyn FnMut()| run_column(addr, first, first_load, options, starts);
    let window = |addr, starts: &mut dyn FnMut()| run_column(addr, column, load, options, starts);
    let r = measure_after(
        &idle,
        (launch, server),
        (first, &first_window),
        (jvm_warm_up.clone(), at),
    )?;
    Ok([
        r,
        measure_after(
            &idle,
            (launch, server),
            (column, &window),
            (jvm_warm_up, at),
        )?,
    ])
}

/// The window of `column` under `load` on `server`, whose idle figures
/// were `idle`, after the JVM's own warm-up `jvm_warm_up` if it had one.
fn measure_after(
    idle: &Idle,
    (launch, server): (&Launch, &RoundServer),
    (column, load): (&Column, &WindowLoad<'_>),
    (jvm_warm_up, (round, position)): (Option<JvmWarmUp>, (u32, u32)),
) -> Result<RoundResult, ColumnError> {
    let remote = idle.remote.is_some();
    let window = measure_window(launch, server, (column, load), remote)?;
    let detector = match (&window.metrics_before, &window.metrics_after) {
        (Some(before), Some(after)) => detector::window(before, after, &column.detector_routes()),
        _ => None,
    };
    // A JVM's own figures, its pins once JFR has handed them over.
    let jvm = jvm_readings::of_window(
        window.metrics_before.as_deref(),
        window.metrics_after.as_deref(),
        server.addr(),
    )
    .map(|w| bench_model::JvmWindow {
        warm_up: jvm_warm_up,
        ..w
    });
    let counted = |text: &Option<String>| text.as_deref().map(requests_total);
    let mut r = RoundResult {
        round,
        position,
        load: window.load,
        background_load: window.background_load,
        server_process: ServerStats::default(),
        cpu: window.cpu,
        // The first /metrics read is counted by the server after `before` was taken.
        server_counted_requests: match (
            counted(&window.metrics_before),
            counted(&window.metrics_after),
        ) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b).saturating_sub(1 + window.reads_inside)),
            _ => None,
        },
        machine_cpu_measured: true,
        not_measured: Vec::new(),
        detector,
        step: None,
        postgres_proxy: window.postgres_proxy,
        jvm,
    };
    match (idle, window.peaks, window.remote_readings) {
        (Idle { proc: Some(i), .. }, Some(p), _) => r.server_process = server_stats(i, &p),
        (
            Idle {
                remote: Some(i), ..
            },
            _,
            Some(readings),
        ) => {
            r.server_process = remote_metrics::server_stats(i, &readings);
            r.server_counted_requests = remote_metrics::requests_in(&readings);
            r.machine_cpu_measured = false;
        }
        _ => {}
    }
    Ok(r)
}

/// The measured window: the load, with the server sampled (from /proc, or
/// from `/metrics` when `remote`) and the machine's CPU snapshotted around it.
fn measure_window(
    launch: &Launch,
    server: &RoundServer,
    (column, load): (&Column, &WindowLoad<'_>),
    remote: bool,
) -> Result<Window, ColumnError> {
    let (addr, pid) = (server.addr(), server.pid());
    let metrics_before = metrics_text(addr);
    let cpu_before = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
    let sampler = pid.map(|p| PeakSampler::start(p, SAMPLE_EVERY));
    let remote_sampler = remote
        .then(|| remote_metrics::RemoteSampler::start(addr, remote_metrics::SAMPLE_EVERY).ok())
        .flatten();
    // The stall detector's reading before the window: the one above, or for
    // the mixed group one taken when the probe starts (after the lead), on a
    // thread so that a blocked event loop cannot delay the probe.
    let mut detector_reader = None;
    // The proxy in front of Postgres, around the window; not in the mixed
    // groups, whose background runs a lead before the probe's window.
    let proxy = launch
        .postgres_proxy_stats
        .filter(|_| column.background.is_none());
    let proxy_before = proxy.and_then(|a| proxy_stats::read(a).ok());
    let started = Instant::now();
    let measured = load(addr, &mut || {
        if column.background.is_some() {
            detector_reader = std::thread::Builder::new()
                .name("bench-detector-reading".into())
                .spawn(move || metrics_text(addr))
                .ok();
        }
    });
    let window_seconds = started.elapsed().as_secs_f64();
    let postgres_proxy = match (proxy_before, proxy.and_then(|a| proxy_stats::read(a).ok())) {
        (Some(before), Some(after)) => Some(proxy_stats::window(&before, &after)),
        _ => None,
    };
    let peaks = sampler.map(PeakSampler::stop);
    let remote_readings = remote_sampler.and_then(|s| s.stop().ok());
    let cpu_after = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
    let (load, background_load) = measured?;
    // A reading inside the window is a request the server counted too.
    let (metrics_before, reads_inside) = match detector_reader {
        Some(reader) => {
            let text = reader.join().ok().flatten();
            let counted = u64::from(text.is_some());
            (text, counted)
        }
        None => (metrics_before, 0),
    };
    let parts = Parts {
        server_pid: pid,
        bench_pid: std::process::id(),
        proxy_pids: &launch.proxy_pids,
        irq_apart: launch.irq_apart,
    };
    Ok(Window {
        load,
        background_load,
        cpu: account(&cpu_before, &cpu_after, parts, window_seconds),
        peaks,
        remote_readings,
        metrics_before,
        metrics_after: metrics_text(addr),
        reads_inside,
        postgres_proxy,
    })
}

/// The server row of a round from its idle sample and the window's peaks.
pub(super) fn server_stats(idle: &ProcessSample, peaks: &Peaks) -> ServerStats {
    ServerStats {
        idle_threads: idle.threads,
        peak_threads: peaks.peak_threads,
        idle_rss_bytes: idle.rss_bytes,
        peak_rss_bytes: peaks.peak_rss_bytes,
        cpu_seconds: peaks.cpu_seconds,
        samples: peaks.samples,
    }
}

/// A server's `/metrics` text, `None` when it cannot be read.
fn metrics_text(addr: SocketAddr) -> Option<String> {
    match http_get(addr, "/metrics") {
        Ok((200, body)) => Some(body),
        _ => None,
    }
}
