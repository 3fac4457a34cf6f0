//! The standard process figures of both servers' `/metrics` (threads,
//! resident memory, CPU time, open files), read from `/proc/self`.

use server_metrics::metrics::ProcessGauges;

/// The standard process metrics, from `/proc/self`; `None` (and a warning)
/// when `/proc` cannot be read, and `/metrics` still answers 200 without
/// them (the shared rule, `server_metrics::metrics`). Blocks the caller for a
/// few system calls.
pub fn process_gauges() -> Option<ProcessGauges> {
    let figures = process_stats::standard_figures_self()
        .inspect_err(|e| tracing::warn!(error = %e, "reading /proc/self for /metrics failed"))
        .ok()?;
    Some(ProcessGauges {
        os_threads: figures.threads,
        rss_bytes: figures.rss_bytes,
        cpu_seconds: figures.cpu_seconds,
        open_fds: figures.open_fds,
        max_fds: figures.max_fds,
        start_time_seconds: figures.start_time_seconds,
    })
}
