//! Printers of a run: pure functions from [`crate::model::RunResults`] to text.
//!
//! The terminal table, `report.md`, `results.json` and the SVG charts are all
//! made here from the same results, so they cannot disagree.

pub mod charts;
pub mod markdown;
pub mod table;
pub mod text;

use crate::model::RunResults;

/// "2 cores, AMD EPYC, 23.5 GiB memory, Linux 6.x"
pub fn machine_line(results: &RunResults) -> String {
    let m = &results.machine;
    format!(
        "{} cores, {}, {:.1} GiB memory, {}, load average {:.2} at start",
        m.cores,
        m.cpu_model,
        m.memory_bytes as f64 / (1024.0 * 1024.0 * 1024.0),
        m.os,
        m.load_average_at_start
    )
}

/// Every setting that shapes the figures, in one sentence.
pub fn settings_line(results: &RunResults) -> String {
    let s = &results.settings;
    format!(
        "profile {}{}; blocking: {} handler threads; async: {} workers, {} blocking threads, {} rayon threads; pools: Postgres {}, Redis {}; load generator: {} threads; /cpu n = {}; servers: {}",
        s.profile,
        if s.cold_start { " (cold start per column)" } else { "" },
        s.blocking_handler_threads,
        s.async_worker_threads,
        s.async_blocking_threads,
        s.async_rayon_threads,
        s.db_pool_size,
        s.redis_pool_size,
        s.loadgen_threads,
        s.cpu_n,
        s.targets
    )
}
