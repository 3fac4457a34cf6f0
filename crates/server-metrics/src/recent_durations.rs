//! Durations over a sliding window of the last minute, for the `/metrics`
//! summaries both servers report about their own waiting: the async server's
//! event-loop lag (how late its probe task woke) and the blocking server's
//! queue wait (how long a request waited for a free handler thread).
//!
//! Simple on purpose: one HDR histogram per 10-second slot, six slots; a
//! reading merges the slots, so its quantiles cover the last 50 to 60 seconds
//! (the oldest slot is dropped whole when a new one starts). Count and sum run
//! since start-up, as Prometheus summaries do, so anyone can take differences
//! between two readings. Values are kept in microseconds with two significant
//! digits (1% resolution), from 1 µs to an hour; a longer value counts as an
//! hour. The caller passes the clock (`now`), so the window is testable
//! exactly and this crate still does no I/O.

use std::time::{Duration, Instant};

use hdrhistogram::{CreationError, Histogram};

/// How far back the quantiles of a [`DurationSummary`] look (at most).
pub const RECENT_WINDOW: Duration = Duration::from_secs(60);
/// The window is this many slots; the oldest is dropped whole.
const SLOTS: usize = 6;
const SLOT_LENGTH: Duration = Duration::from_secs(RECENT_WINDOW.as_secs() / SLOTS as u64);
/// The longest value kept apart from others: one hour, in microseconds.
const HIGHEST_MICROS: u64 = 3_600_000_000;

/// A sliding-window record of durations. Not synchronised: each server keeps
/// it behind its own short-held lock.
#[derive(Debug, Clone)]
pub struct RecentDurations {
    /// u32 counts: a slot would need four billion values in 10 s to saturate.
    slots: Vec<Histogram<u32>>,
    current: usize,
    current_started: Instant,
    count: u64,
    sum: Duration,
}

/// What a `/metrics` summary shows: quantiles over the recent window (`None`
/// when nothing was recorded in it), count and sum since start-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DurationSummary {
    pub count: u64,
    pub sum: Duration,
    /// Values recorded in the window the quantiles below cover.
    pub recent_count: u64,
    pub p50: Option<Duration>,
    pub p99: Option<Duration>,
    pub max: Option<Duration>,
}

impl RecentDurations {
    /// An empty record whose first slot starts at `now`.
    pub fn new(now: Instant) -> Result<Self, CreationError> {
        let empty = Histogram::new_with_bounds(1, HIGHEST_MICROS, 2)?;
        Ok(RecentDurations {
            slots: vec![empty; SLOTS],
            current: 0,
            current_started: now,
            count: 0,
            sum: Duration::ZERO,
        })
    }

    /// Moves the window to `now`: the slots that ended are emptied for reuse.
    fn advance(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.current_started);
        let ended = (elapsed.as_nanos() / SLOT_LENGTH.as_nanos()) as usize;
        for _ in 0..ended.min(SLOTS) {
            self.current = (self.current + 1) % SLOTS;
            self.slots[self.current].reset();
        }
        self.current_started += SLOT_LENGTH * ended as u32;
    }

    /// Records one duration, observed at `now`.
    pub fn record(&mut self, now: Instant, value: Duration) {
        self.advance(now);
        let micros = u64::try_from(value.as_micros()).unwrap_or(u64::MAX);
        self.slots[self.current].saturating_record(micros.clamp(1, HIGHEST_MICROS));
        self.count += 1;
        self.sum = self.sum.saturating_add(value);
    }

    /// The summary as of `now`.
    pub fn summary(&mut self, now: Instant) -> DurationSummary {
        self.advance(now);
        let mut merged = self.slots[self.current].clone();
        for (i, slot) in self.slots.iter().enumerate() {
            // Same bounds and precision: adding cannot fail.
            if i != self.current && merged.add(slot).is_err() {
                break;
            }
        }
        let at = |q: f64| (!merged.is_empty()).then(|| micros(merged.value_at_quantile(q)));
        DurationSummary {
            count: self.count,
            sum: self.sum,
            recent_count: merged.len(),
            p50: at(0.5),
            p99: at(0.99),
            max: (!merged.is_empty()).then(|| micros(merged.max())),
        }
    }
}

fn micros(value: u64) -> Duration {
    Duration::from_micros(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Within 1% (two significant digits).
    fn close(got: Option<Duration>, want: Duration) -> bool {
        got.is_some_and(|g| g.as_secs_f64() >= want.as_secs_f64() * 0.99 && g <= want + want / 100)
    }

    #[test]
    fn quantiles_cover_the_window_and_count_since_start() {
        let start = Instant::now();
        let mut r = RecentDurations::new(start).unwrap();
        for i in 1..=100 {
            r.record(start + ms(i), ms(i));
        }
        let s = r.summary(start + ms(200));
        assert_eq!((s.count, s.recent_count), (100, 100));
        assert_eq!(s.sum, ms(5050));
        assert!(close(s.p50, ms(50)), "{s:?}");
        assert!(close(s.p99, ms(99)), "{s:?}");
        assert!(close(s.max, ms(100)), "{s:?}");
    }

    #[test]
    fn old_values_leave_the_window_but_stay_in_count_and_sum() {
        let start = Instant::now();
        let mut r = RecentDurations::new(start).unwrap();
        r.record(start, ms(900));
        // Still inside the window 55 s later (the slot it is in has not ended 60 s ago)...
        assert!(close(r.summary(start + ms(55_000)).max, ms(900)));
        r.record(start + ms(58_000), ms(3));
        // ...gone once its slot is the oldest and a new slot starts.
        let s = r.summary(start + ms(61_000));
        assert!(close(s.max, ms(3)), "{s:?}");
        assert_eq!((s.count, s.recent_count), (2, 1));
        // Nothing at all for a whole window: no quantiles, not zeros.
        let s = r.summary(start + ms(500_000));
        assert_eq!((s.p50, s.p99, s.max, s.recent_count), (None, None, None, 0));
        assert_eq!(s.count, 2);
    }
}
