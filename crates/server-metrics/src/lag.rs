//! How late a probe woke, the record both servers keep of their own
//! stalls: the async server's probe task on the event loop
//! (crates/async-server/src/lag_probe.rs) and the blocking server's probe
//! coroutines on its carriers (crates/blocking-server/src/virtual_threads/pinning.rs).
//! A probe asks to be woken every [`PROBE_EVERY`] and records how late it
//! actually ran: on a healthy loop, about the timer's granularity; behind a
//! blocked thread, however long it was blocked.
//!
//! Why 50 ms: often enough that any stall of 50 ms or more is seen for
//! certain (shorter ones in proportion to their length), rarely enough that
//! 20 wake-ups a second cost nothing measurable, even on an idle server.
//!
//! A stall also delays the ticks that should have happened during it, and a
//! record of the one late tick alone would under-count it (the
//! coordinated-omission problem load generators correct for). So a wake-up
//! that is `late` also records `late - 50 ms`, `late - 100 ms`, ... down to
//! zero: what a request arriving at each of those moments would have waited.
//! The caller passes the clock, so this crate still does no I/O.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::recent_durations::{DurationSummary, RecentDurations};

/// How often a probe asks to be woken.
pub const PROBE_EVERY: Duration = Duration::from_millis(50);

/// A probe's record of how late it woke, over the last minute.
#[derive(Debug)]
pub struct LagRecord {
    lateness: Mutex<RecentDurations>,
}

impl LagRecord {
    pub fn new(now: Instant) -> Result<Self, String> {
        let lateness = RecentDurations::new(now)
            .map_err(|e| format!("creating the lag probe's histogram: {e}"))?;
        Ok(LagRecord {
            lateness: Mutex::new(lateness),
        })
    }

    fn lock(&self) -> MutexGuard<'_, RecentDurations> {
        // Held for one record or one reading, never across a wait.
        self.lateness
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one wake-up `late` after it was due, plus the ticks the stall
    /// swallowed (see the module comment).
    pub fn record(&self, now: Instant, late: Duration) {
        let mut lateness = self.lock();
        lateness.record(now, late);
        let mut missed = late;
        while missed > PROBE_EVERY {
            missed -= PROBE_EVERY;
            lateness.record(now, missed);
        }
    }

    /// The summary for `/metrics`.
    pub fn summary(&self, now: Instant) -> DurationSummary {
        self.lock().summary(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stall_also_counts_the_ticks_it_swallowed() {
        let now = Instant::now();
        let probe = LagRecord::new(now).unwrap();
        probe.record(now, Duration::from_millis(1));
        probe.record(now, Duration::from_millis(230));
        let s = probe.summary(now);
        // 1 ms, then 230, 180, 130, 80, 30 ms.
        assert_eq!(s.count, 6);
        assert_eq!(s.sum, Duration::from_millis(1 + 230 + 180 + 130 + 80 + 30));
        assert!(
            s.max.is_some_and(|m| m >= Duration::from_millis(228)),
            "{s:?}"
        );
    }
}
