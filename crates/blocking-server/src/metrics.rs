//! `GET /metrics` of the blocking server: live thread count and RSS from
//! `/proc`, request counters, and the gauges of both r2d2 pools.
//!
//! The thread count is the number to watch: it stays at the handler threads
//! plus a few, whatever the load (the async twin, crates/async-server/src/metrics.rs,
//! stays near the core count).

use contract::metrics::{render, MetricsSnapshot, PoolGauges};

use crate::AppState;

pub(crate) fn render_metrics(state: &AppState) -> String {
    let process = process_stats::sample_self().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "reading /proc/self for /metrics failed");
        process_stats::ProcessSample::default()
    });
    let db = state.db.state();
    let cache = state.cache.state();
    render(&MetricsSnapshot {
        server: "blocking",
        os_threads: process.threads,
        rss_bytes: process.rss_bytes,
        cpu_seconds: process.cpu_seconds,
        in_flight: state.counters.in_flight(),
        requests: state.counters.counts(),
        pools: vec![
            PoolGauges {
                pool: "postgres",
                max_size: u64::from(state.db.max_size()),
                size: u64::from(db.connections),
                idle: u64::from(db.idle_connections),
                // r2d2 does not say how many threads wait for a connection.
                waiters: None,
            },
            PoolGauges {
                pool: "redis",
                max_size: u64::from(state.cache.max_size()),
                size: u64::from(cache.connections),
                idle: u64::from(cache.idle_connections),
                waiters: None,
            },
        ],
    })
}
