//! `GET /metrics` of the blocking server: the contract's figures (the
//! standard process metrics from `/proc`, the request counters and the
//! request-latency histogram, `server_metrics::metrics`), the gauges and checkout
//! totals of both pools (crate::driver), and on virtual threads the pinning
//! detector's figures (crate::virtual_threads::pinning), under the server
//! label `virtual`.
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

use server_metrics::metrics::{
    append_summaries, render, write_family_header, MetricsSnapshot, SummarySeries,
};

use crate::executor::{Executor, HandlerPool};
use crate::AppState;

pub(crate) fn render_metrics(state: &AppState) -> String {
    // Without /proc the answer is still 200, minus the process metrics (the
    // shared rule, server_metrics::metrics). Twin: crates/async-server/src/metrics.rs.
    let server = state.executor.metrics_label();
    let mut text = render(&MetricsSnapshot {
        server,
        process: server_support::process_gauges(),
        requests: state.counters.read(),
        pools: state.driver.pool_gauges(),
    });
    match &state.executor {
        Executor::PlatformThreads {
            handler_pool: Some(pool),
        } => append_handler_pool(&mut text, pool),
        Executor::PlatformThreads { handler_pool: None } => {}
        Executor::VirtualThreads { pins } => pins.render(&mut text, server),
    }
    text
}

/// Handler threads in all and busy, and each route's queue wait.
fn append_handler_pool(out: &mut String, pool: &HandlerPool) {
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
