//! `GET /metrics` of the blocking server: live thread count and RSS from
//! `/proc`, request counters, and the gauges of both r2d2 pools.
//!
//! The thread count is the number to watch: it stays at the handler threads
//! plus a few, whatever the load (the async twin, crates/async-server/src/metrics.rs,
//! stays near the core count).
//!
//! With the `nio` connector, also what the handler pool is doing: threads in
//! all and busy now, and per route how long requests waited for a free
//! thread (crate::queue_wait). With `--connector tiny-http` these are absent:
//! tiny_http does not tell.

use std::fmt::Write as _;

use contract::metrics::{
    append_summaries, render, write_family_header, MetricsSnapshot, PoolGauges, ProcessGauges,
    SummarySeries,
};

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
    let mut text = render(&MetricsSnapshot {
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
    });
    append_handler_pool(&mut text, state);
    text
}

/// Handler threads in all and busy, and each route's queue wait.
fn append_handler_pool(out: &mut String, state: &AppState) {
    let Some(pool) = &state.handler_pool else {
        return;
    };
    for (name, help, value) in [
        (
            "handler_threads",
            "Handler threads (--handler-threads).",
            pool.busy.total(),
        ),
        (
            "handler_threads_busy",
            "Handler threads serving a connection now (this request's included).",
            pool.busy.busy(),
        ),
    ] {
        write_family_header(out, name, help, "gauge");
        let _ = writeln!(out, "{name}{{server=\"blocking\"}} {value}");
    }
    let series: Vec<SummarySeries<'_>> = pool
        .queue_waits
        .summaries()
        .into_iter()
        .map(|(route, summary)| SummarySeries {
            label: Some(("route", route)),
            summary,
        })
        .collect();
    append_summaries(
        out,
        "handler_queue_wait_seconds",
        "Time a request waited in the queue for a free handler thread; \
         quantiles over the last minute, sum and count since start-up.",
        "blocking",
        &series,
    );
}
