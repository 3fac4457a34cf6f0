//! The stall detector's runtime-wide half: a probe task that asks to be woken
//! every [`PROBE_EVERY`] and records how late it actually ran. On a healthy
//! event loop it is late by about the timer's 1-ms granularity; behind a
//! blocked worker it is late by however long the worker was blocked. It
//! sees every stall, whichever task caused it (a route, a connection task,
//! a slow `Drop`), where the per-route monitors see only handlers; Node's
//! `monitorEventLoopDelay` is the same idea.
//!
//! The record itself (its period, and how a long stall also counts the
//! ticks it swallowed) is `server_metrics::lag`, shared with the blocking
//! server's carrier probes.
//!
//! Read through `/metrics` as `event_loop_lag_seconds` (crate::metrics): a
//! summary over the last minute (`server_metrics::recent_durations`). The twin is
//! the blocking server's queue wait (crates/blocking-server/src/queue_wait.rs).

use std::sync::Arc;

use server_metrics::lag::{LagRecord, PROBE_EVERY};
use server_metrics::recent_durations::DurationSummary;
use tokio::time::Instant;

/// The probe's record of how late it woke.
pub(crate) struct LagProbe {
    record: LagRecord,
}

impl LagProbe {
    pub(crate) fn new() -> anyhow::Result<Self> {
        let record = LagRecord::new(std::time::Instant::now()).map_err(anyhow::Error::msg)?;
        Ok(LagProbe { record })
    }

    fn record(&self, late: std::time::Duration) {
        self.record.record(std::time::Instant::now(), late);
    }

    /// The summary for `/metrics`.
    pub(crate) fn summary(&self) -> DurationSummary {
        self.record.summary(std::time::Instant::now())
    }
}

/// Starts the probe task on the current runtime.
pub(crate) fn spawn(probe: Arc<LagProbe>) {
    tokio::spawn(async move {
        loop {
            let due = Instant::now() + PROBE_EVERY;
            tokio::time::sleep_until(due).await;
            probe.record(Instant::now().saturating_duration_since(due));
        }
    });
}
