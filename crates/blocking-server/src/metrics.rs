//! `GET /metrics` of the blocking server: live thread count and RSS from
//! `/proc`, request counters, and the gauges of both r2d2 pools.
//!
//! The thread count is the number to watch: it stays at the handler threads
//! plus a few, whatever the load (the async twin, crates/async-server/src/metrics.rs,
//! stays near the core count).

use contract::metrics::{render, MetricsSnapshot, PoolGauges, ProcessGauges};

use crate::AppState;

pub(crate) fn render_metrics(state: &AppState) -> String {
    // Without /proc the answer is still 200, minus the process gauges (the
    // contract's rule, contract::metrics). Twin: crates/async-server/src/metrics.rs.
    let process = process_stats::sample_self()
        .inspect_err(|e| tracing::warn!(error = %e, "reading /proc/self for /metrics failed"))
        .ok()
        .map(|p| ProcessGauges::new(p.threads, p.rss_bytes, p.cpu_seconds));
    let db = state.db.state();
    let cache = state.cache.state();
    render(&MetricsSnapshot {
        server: "blocking",
        process,
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
