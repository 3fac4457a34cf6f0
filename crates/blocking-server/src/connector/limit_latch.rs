//! The connector's connection cap, after Tomcat's `LimitLatch`: the acceptor
//! counts a connection up before it accepts one and waits while the count is
//! at the cap; a connection counts itself down when it is dropped (closed),
//! wherever that happens: on a handler thread, in the poller's sweep or in
//! the drain. At the cap new clients wait in the listen backlog.
//!
//! The cap is what the open-file limit leaves beside the pools
//! (`contract::open_files`): accepting until `accept(2)` fails would take
//! the descriptors a pool needs to connect. The virtual threads' acceptor
//! keeps the same cap with may's semaphore, whose wait parks the acceptor
//! coroutine instead of its carrier.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How often an acceptor waiting at the cap looks whether the drain began.
const SHUTDOWN_CHECK: Duration = Duration::from_millis(50);

/// The count of open connections and its limit.
pub(super) struct LimitLatch {
    count: Mutex<usize>,
    released: Condvar,
    limit: usize,
}

/// One open connection's place under the cap, given back when dropped.
pub(super) struct Counted {
    latch: Arc<LimitLatch>,
}

impl LimitLatch {
    pub(super) fn new(limit: usize) -> Arc<Self> {
        Arc::new(LimitLatch {
            count: Mutex::new(0),
            released: Condvar::new(),
            limit: limit.max(1),
        })
    }

    /// Counts one connection up, first waiting (on the acceptor thread)
    /// while the count is at the limit; `None` once `stopping` says the
    /// drain has begun.
    pub(super) fn count_up_or_await(
        self: &Arc<Self>,
        stopping: impl Fn() -> bool,
    ) -> Option<Counted> {
        let mut count = self.lock();
        while *count >= self.limit {
            if stopping() {
                return None;
            }
            count = self
                .released
                .wait_timeout(count, SHUTDOWN_CHECK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *count += 1;
        Some(Counted {
            latch: Arc::clone(self),
        })
    }

    /// Connections counted now.
    #[cfg(test)]
    fn count(&self) -> usize {
        *self.lock()
    }

    fn lock(&self) -> MutexGuard<'_, usize> {
        // Held for a count update only.
        self.count.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        *self.latch.lock() -= 1;
        self.latch.released.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    use super::*;

    #[test]
    fn the_acceptor_waits_at_the_cap_until_a_connection_closes() {
        let latch = LimitLatch::new(2);
        let first = latch.count_up_or_await(|| false).expect("below the cap");
        let _second = latch.count_up_or_await(|| false).expect("below the cap");
        assert_eq!(latch.count(), 2);
        let waiter = {
            let latch = Arc::clone(&latch);
            std::thread::spawn(move || latch.count_up_or_await(|| false).is_some())
        };
        #[allow(
            clippy::disallowed_methods,
            reason = "a test's pause on its own thread, in no request"
        )]
        std::thread::sleep(Duration::from_millis(100));
        assert!(!waiter.is_finished(), "took a third place under a cap of 2");
        drop(first);
        assert!(waiter.join().expect("the waiter"));
        // The third one's place was given back when its guard was dropped
        // inside the thread.
        assert_eq!(latch.count(), 1);
    }

    #[test]
    fn a_waiting_acceptor_returns_once_the_drain_begins() {
        let latch = LimitLatch::new(1);
        let _only = latch.count_up_or_await(|| false).expect("below the cap");
        let stopping = Arc::new(AtomicBool::new(false));
        let waiter = {
            let (latch, stopping) = (Arc::clone(&latch), Arc::clone(&stopping));
            std::thread::spawn(move || {
                latch
                    .count_up_or_await(|| stopping.load(Ordering::SeqCst))
                    .is_none()
            })
        };
        let started = Instant::now();
        stopping.store(true, Ordering::SeqCst);
        assert!(waiter.join().expect("the waiter"));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(latch.count(), 1);
    }
}
