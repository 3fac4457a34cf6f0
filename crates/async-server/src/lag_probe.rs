//! The stall detector's runtime-wide half: a probe task that asks to be woken
//! every [`PROBE_EVERY`] and records how late it actually ran. On a healthy
//! event loop it is late by about the timer's 1-ms granularity; behind a
//! blocked worker it is late by however long the worker was blocked. It
//! sees every stall, whichever task caused it (a route, a connection task,
//! a slow `Drop`), where the per-route monitors see only handlers; Node's
//! `monitorEventLoopDelay` is the same idea.
//!
//! Why 50 ms: often enough that any stall of 50 ms or more is seen for
//! certain (shorter ones in proportion to their length; the per-route slow
//! polls catch those exactly), rarely enough that 20 wake-ups a second cost
//! nothing measurable, even on an idle server.
//!
//! A stall also delays the ticks that should have happened during it, and a
//! probe that records only the one late tick would under-count it (the
//! coordinated-omission problem load generators correct for). So a wake-up
//! that is `late` also records `late - 50 ms`, `late - 100 ms`, ... down to
//! zero: what a request arriving at each of those moments would have waited.
//!
//! Read through `/metrics` as `event_loop_lag_seconds` (crate::metrics): a
//! summary over the last minute (`contract::recent_durations`). The twin is
//! the blocking server's queue wait (crates/blocking-server/src/queue_wait.rs).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use contract::recent_durations::{DurationSummary, RecentDurations};
use tokio::time::Instant;

/// How often the probe asks to be woken.
pub(crate) const PROBE_EVERY: Duration = Duration::from_millis(50);

/// The probe's record of how late it woke.
pub(crate) struct LagProbe {
    lateness: Mutex<RecentDurations>,
}

impl LagProbe {
    pub(crate) fn new() -> anyhow::Result<Self> {
        let lateness = RecentDurations::new(std::time::Instant::now())
            .map_err(|e| anyhow::anyhow!("creating the lag probe's histogram: {e}"))?;
        Ok(LagProbe {
            lateness: Mutex::new(lateness),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RecentDurations> {
        // Held for one record or one reading, never across an await.
        self.lateness
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one wake-up `late` after it was due, plus the ticks the stall
    /// swallowed (see the module comment).
    fn record(&self, late: Duration) {
        let now = std::time::Instant::now();
        let mut lateness = self.lock();
        lateness.record(now, late);
        let mut missed = late;
        while missed > PROBE_EVERY {
            missed -= PROBE_EVERY;
            lateness.record(now, missed);
        }
    }

    /// The summary for `/metrics`.
    pub(crate) fn summary(&self) -> DurationSummary {
        self.lock().summary(std::time::Instant::now())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stall_also_counts_the_ticks_it_swallowed() {
        let probe = LagProbe::new().unwrap();
        probe.record(Duration::from_millis(1));
        probe.record(Duration::from_millis(230));
        let s = probe.summary();
        // 1 ms, then 230, 180, 130, 80, 30 ms.
        assert_eq!(s.count, 6);
        assert_eq!(s.sum, Duration::from_millis(1 + 230 + 180 + 130 + 80 + 30));
        assert!(
            s.max.is_some_and(|m| m >= Duration::from_millis(228)),
            "{s:?}"
        );
    }
}
