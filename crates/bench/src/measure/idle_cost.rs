//! What idle keep-alive connections cost a server: one round of
//! the idle group on one fresh server. /health is probed with no idle
//! connection open (which also warms the server up); the server's threads,
//! RSS and open files are read once the probe's connections are closed:
//! the idle line. Then for each size in turn, connections are added until
//! that many are open ([`crate::measure::idle_connections`]), the server is sampled
//! and /health probed beside them. Last, every connection is closed and the
//! server's open files must come back down.
//!
//! A size is skipped, with the reason, when its connections do not fit
//! under bench's open-file limit (raised to the hard limit first, as the
//! load generator does) or the server's own; a size that cannot be opened
//! (tiny_http out of threads, a deadline) is that size's result, and the
//! larger ones are not tried.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::measure::idle_connections::IdleConnections;
use crate::measure::load::{run_column, ColumnError};
use crate::plan::LoadOptions;
use crate::plan::{Column, IdleLoad, Load};
use bench_model::{IdleRound, IdleStep, ProbeStats, ProcessFigures, IDLE_FDS_SLACK};

/// Open files the server needs besides the idle connections and the probe's
/// (listener, epoll, pools, logs): a size is skipped when the server's limit
/// does not leave this much.
pub const SERVER_FD_HEADROOM: u64 = 256;

/// How long the server gets to close its side once bench closed every
/// connection, and to close the probe's connections before the idle line.
const CLOSE_WITHIN: Duration = Duration::from_secs(5);

/// How long the connections of a size settle before the server is sampled.
const SETTLE: Duration = Duration::from_millis(50);

/// The server's threads, RSS and open files now.
pub fn figures(pid: u32) -> anyhow::Result<ProcessFigures> {
    let s = process_stats::sample(pid).with_context(|| format!("cannot read /proc/{pid}"))?;
    let open_fds =
        process_stats::open_fds(pid).with_context(|| format!("cannot read /proc/{pid}/fd"))?;
    Ok(ProcessFigures {
        threads: s.threads,
        rss_bytes: s.rss_bytes,
        open_fds,
    })
}

/// Waits until the server holds at most `fds` open files, for `within` at
/// the most; the figures then and how long it took (`None`: not in time).
fn wait_for_fds(
    pid: u32,
    fds: u64,
    within: Duration,
) -> anyhow::Result<(ProcessFigures, Option<Duration>)> {
    let start = Instant::now();
    loop {
        let now = figures(pid)?;
        if now.open_fds <= fds {
            return Ok((now, Some(start.elapsed())));
        }
        if start.elapsed() >= within {
            return Ok((now, None));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// /health in a closed loop of the load's probe connections.
fn probe(
    addr: SocketAddr,
    column: &Column,
    load: &IdleLoad,
    options: &LoadOptions,
) -> Result<ProbeStats, String> {
    let closed = Load::Closed {
        connections: load.probe_connections,
        duration: load.probe_for,
    };
    match run_column(addr, column, &closed, options, &mut || {}) {
        Ok((s, _)) => Ok(ProbeStats {
            requests: s.total_requests,
            errors: s.errors,
            p50_ms: s.latency_ms.p50,
            p99_ms: s.latency_ms.p99,
        }),
        Err(ColumnError::Failed(cause)) => Err(cause),
        Err(ColumnError::Other(e)) => Err(format!("{e:#}")),
    }
}

/// Why `size` idle connections (and the probe's) cannot be opened, if they
/// do not fit under bench's open-file limit or the server's. The server's
/// need is its idle count plus `fds_per_connection` for each (at least 1;
/// tiny_http holds 2, a reader's and a writer's copy of each socket).
pub fn does_not_fit(
    size: usize,
    probe_connections: usize,
    server_idle_fds: u64,
    fds_per_connection: f64,
    server_limit: Option<u64>,
) -> Option<String> {
    if let Err(e) = loadgen::ensure_fd_capacity(size + probe_connections) {
        return Some(format!("{size} idle connections skipped: bench's {e}"));
    }
    let per = fds_per_connection.max(1.0);
    let needed = server_idle_fds
        + (per * (size + probe_connections) as f64).ceil() as u64
        + SERVER_FD_HEADROOM;
    match server_limit {
        Some(limit) if needed > limit => Some(format!(
            "{size} idle connections skipped: at {per:.1} open files per connection the server would need about {needed} and its limit is {limit}"
        )),
        _ => None,
    }
}

/// One round on the server at `addr` (process `pid`, started fresh for it).
pub fn measure_round(
    addr: SocketAddr,
    pid: u32,
    column: &Column,
    load: &IdleLoad,
    options: &LoadOptions,
    (round, position): (u32, u32),
) -> anyhow::Result<IdleRound> {
    let fresh = figures(pid)?;
    let probe_none_open = probe(addr, column, load, options)
        .map_err(|cause| anyhow::anyhow!("/health with no idle connection open: {cause}"))?;
    // The idle line: after the warm probe, its connections closed again.
    let (idle, _) = wait_for_fds(pid, fresh.open_fds, CLOSE_WITHIN)?;
    let server_limit = process_stats::open_files_limit(pid).ok().flatten();

    let mut conns = IdleConnections::new();
    let mut steps: Vec<IdleStep> = Vec::new();
    let mut stopped = None;
    for &size in &load.sizes {
        // Measured at the size before; 1 before any is open.
        let fds_per_connection = steps
            .last()
            .and_then(|s| s.fds_per_connection(&idle))
            .unwrap_or(1.0);
        if let Some(reason) = does_not_fit(
            size,
            load.probe_connections,
            idle.open_fds,
            fds_per_connection,
            server_limit,
        ) {
            stopped = Some(reason);
            break;
        }
        let started = Instant::now();
        let failure = conns
            .open_up_to(addr, size, load.open_within)
            .err()
            .map(|cause| format!("opened {} of {size}: {cause}", conns.len()));
        let open_seconds = started.elapsed().as_secs_f64();
        std::thread::sleep(SETTLE);
        let server = figures(pid)?;
        let probe = probe(addr, column, load, options).ok();
        let step = IdleStep {
            connections: size,
            opened: conns.len(),
            open_seconds,
            server,
            probe,
            still_open: conns.still_open(),
            failure,
        };
        let failed = step.failure.is_some();
        steps.push(step);
        if failed {
            stopped = Some(format!(
                "{size} idle connections could not all be opened, so no larger size was tried"
            ));
            break;
        }
    }
    conns.close_all();
    let (after, took) = wait_for_fds(pid, idle.open_fds + IDLE_FDS_SLACK, CLOSE_WITHIN)?;
    Ok(IdleRound {
        round,
        position,
        idle,
        probe_none_open,
        steps,
        stopped,
        after_close: took.map(|_| after),
        closed_within_ms: took.map(|d| d.as_secs_f64() * 1000.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_is_skipped_when_the_servers_files_would_not_fit() {
        // 1 file per connection: 12 + 10,008 + 256 fits under 20,000.
        assert_eq!(does_not_fit(10_000, 8, 12, 1.0, Some(20_000)), None);
        // tiny_http's 2: about 20,284 do not.
        let why = does_not_fit(10_000, 8, 12, 2.0, Some(20_000)).unwrap();
        assert_eq!(
            why,
            "10000 idle connections skipped: at 2.0 open files per connection the server would need about 20284 and its limit is 20000"
        );
        // Below 1 (nothing measured yet, or noise) counts as 1; no limit fits all.
        assert_eq!(does_not_fit(100, 2, 10, 0.2, Some(368)), None);
        assert!(does_not_fit(100, 2, 10, 0.2, Some(367)).is_some());
        assert_eq!(does_not_fit(100, 2, 10, 3.0, None), None);
    }
}
