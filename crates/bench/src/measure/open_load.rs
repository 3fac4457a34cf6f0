//! The open model of an equal-load window: requests arrive at a fixed
//! rate whatever the server does (wrk2's constant throughput, vegeta's
//! attack), and each one's latency counts from its intended start, so
//! that a server that falls behind cannot hide it by slowing the client
//! (coordinated omission). The same rate for every column is what makes
//! their server CPU per request comparable.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use loadgen::{LoadModel, StopAt};

use super::load::{plan, stats, ColumnError};
use crate::plan::{Column, LoadOptions};
use bench_model::LoadStats;

/// Connections open at the start; the pool grows when every one is busy.
/// At half the slowest column's throughput a request waits for no
/// connection: a few suffice, and more are opened as the latency needs.
const INITIAL_CONNECTIONS: usize = 8;

/// The most connections the pool may grow to: far above what the rate
/// needs on a server that keeps up, and below the blocking server's 200
/// handler threads' queue.
const MAX_CONNECTIONS: usize = 512;

/// `column` at `addr` loaded at `rate_rps` for `duration`, open model.
pub fn run_open(
    addr: SocketAddr,
    column: &Column,
    (rate_rps, duration): (f64, Duration),
    o: &LoadOptions,
) -> Result<LoadStats, ColumnError> {
    let model = LoadModel::Open {
        rate_rps,
        stop: StopAt::Duration(duration),
        initial_connections: INITIAL_CONNECTIONS,
        max_connections: MAX_CONNECTIONS,
    };
    let open = plan(addr, column, column.path, model, o, o.threads)?;
    let report = loadgen::run_blocking(&open)
        .with_context(|| format!("{}: load at an equal rate failed", column.id.as_str()))?;
    Ok(stats(&report))
}
