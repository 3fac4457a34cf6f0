//! How many handler threads are busy, since when all of them, and the
//! warning when all of them have been busy for longer than
//! `--all-busy-warn-ms`: "all 200 handler threads busy for 850 ms; requests
//! are queueing".
//!
//! "Busy" runs from the moment a thread takes a connection off the queue to
//! the moment it finds the queue empty. A thread that finishes a request and
//! finds another one already queued takes it without becoming free, so under
//! saturation the busy count stays at the maximum and the episode's start is
//! kept: the count changes only when a thread goes to sleep on an empty queue
//! or wakes from it, and only then is the lock taken.
//!
//! The poller thread, which ticks every 100 ms whatever the load, checks for
//! a long episode and warns, at most once every [`WARN_EVERY`]. The twin is
//! the async server's slow-poll warning
//! (crates/async-server/src/slow_poll_warnings.rs): there a route blocks the
//! event loop; here the handler pool is the bottleneck.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// At most one warning this often.
const WARN_EVERY: Duration = Duration::from_secs(5);

pub(crate) struct BusyThreads {
    total: usize,
    warn_after: Duration,
    state: Mutex<State>,
}

struct State {
    busy: usize,
    /// Set when the last free thread took work; cleared when one is free again.
    all_busy_since: Option<Instant>,
    last_warning: Option<Instant>,
}

impl BusyThreads {
    /// Every thread counts as busy until it first finds the queue empty,
    /// which each does as soon as it starts.
    pub(crate) fn new(total: usize, warn_after: Duration) -> Self {
        BusyThreads {
            total,
            warn_after,
            state: Mutex::new(State {
                busy: total,
                all_busy_since: None,
                last_warning: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Held for a few assignments, never while waiting.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A thread found the queue empty and is about to wait for work.
    pub(crate) fn became_free(&self) {
        let mut state = self.lock();
        state.busy = state.busy.saturating_sub(1);
        state.all_busy_since = None;
    }

    /// A thread that was waiting took a connection.
    pub(crate) fn became_busy(&self) {
        let mut state = self.lock();
        state.busy = (state.busy + 1).min(self.total);
        if state.busy == self.total {
            state.all_busy_since = Some(Instant::now());
        }
    }

    pub(crate) fn total(&self) -> usize {
        self.total
    }

    pub(crate) fn busy(&self) -> usize {
        self.lock().busy
    }

    /// Called by the poller on every tick with the queue's length: warns if
    /// every thread has been busy for longer than `--all-busy-warn-ms`.
    pub(crate) fn warn_if_all_busy_too_long(&self, now: Instant, queued: usize) {
        let mut state = self.lock();
        let Some(since) = state.all_busy_since else {
            return;
        };
        let busy_for = now.saturating_duration_since(since);
        let quiet_long_enough = state
            .last_warning
            .is_none_or(|at| now.saturating_duration_since(at) >= WARN_EVERY);
        if busy_for <= self.warn_after || !quiet_long_enough {
            return;
        }
        state.last_warning = Some(now);
        drop(state);
        tracing::warn!(
            handler_threads = self.total,
            busy_ms = busy_for.as_millis() as u64,
            queued,
            "all {} handler threads busy for {} ms; requests are queueing ({queued} waiting). \
             Each request holds its thread until its handler returns: more threads \
             (--handler-threads) or shorter waits per request",
            self.total,
            busy_for.as_millis()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_episode_starts_when_the_last_free_thread_takes_work() {
        let busy = BusyThreads::new(2, Duration::from_millis(100));
        busy.became_free();
        busy.became_free();
        assert_eq!(busy.busy(), 0);
        busy.became_busy();
        assert!(busy.lock().all_busy_since.is_none());
        busy.became_busy();
        assert_eq!(busy.busy(), 2);
        let since = busy.lock().all_busy_since.unwrap();
        // One thread frees up: the episode ends.
        busy.became_free();
        assert!(busy.lock().all_busy_since.is_none());
        busy.became_busy();
        assert!(busy.lock().all_busy_since.unwrap() >= since);
    }

    #[test]
    fn at_most_one_warning_every_few_seconds() {
        let busy = BusyThreads::new(1, Duration::from_millis(100));
        busy.became_free();
        busy.became_busy();
        let since = busy.lock().all_busy_since.unwrap();
        busy.warn_if_all_busy_too_long(since + Duration::from_millis(50), 3);
        assert!(
            busy.lock().last_warning.is_none(),
            "not yet past the threshold"
        );
        busy.warn_if_all_busy_too_long(since + Duration::from_millis(150), 3);
        let first = busy.lock().last_warning.unwrap();
        busy.warn_if_all_busy_too_long(since + Duration::from_millis(1150), 3);
        assert_eq!(busy.lock().last_warning, Some(first));
        busy.warn_if_all_busy_too_long(since + Duration::from_millis(5150), 3);
        assert!(busy.lock().last_warning.unwrap() > first);
    }
}
