//! [`PoolWaitCounters`]: a pool's checkouts and the time they waited, kept
//! per thread and summed when read, for `pool_acquires_total` and
//! `pool_acquire_wait_seconds_total`.
//!
//! Every request that reads Postgres adds to these, from every worker, so
//! they are sharded like the request counters ([`super::SHARDS`]): two
//! workers adding to one pair of atomics would pass its cache line back and
//! forth on every request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{this_threads_shard, PoolWaitTotals, SHARDS};

/// One thread's pair of counters, on a cache line of its own.
#[repr(align(128))]
#[derive(Debug, Default)]
struct Shard {
    acquires: AtomicU64,
    waited_ns: AtomicU64,
}

/// Checkouts and the time they waited, since start-up.
#[derive(Debug)]
pub struct PoolWaitCounters {
    shards: Box<[Shard]>,
}

impl Default for PoolWaitCounters {
    fn default() -> Self {
        PoolWaitCounters {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
        }
    }
}

impl PoolWaitCounters {
    /// Counts one checkout that waited `waited` (whether it got a
    /// connection or gave up).
    pub fn record(&self, waited: Duration) {
        let shard = &self.shards[this_threads_shard()];
        shard.acquires.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        shard.waited_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// Starts timing a checkout: it is counted when the returned timer is
    /// dropped, so a checkout abandoned half way (a timeout around it, a
    /// client that went away) is counted too, with the time it waited.
    pub fn time(&self) -> AcquireTimer<'_> {
        AcquireTimer {
            counters: self,
            started: Instant::now(),
        }
    }

    /// The sums over every thread.
    pub fn totals(&self) -> PoolWaitTotals {
        let (acquires, waited_ns) = self.shards.iter().fold((0u64, 0u64), |(a, w), s| {
            (
                a.wrapping_add(s.acquires.load(Ordering::Relaxed)),
                w.wrapping_add(s.waited_ns.load(Ordering::Relaxed)),
            )
        });
        PoolWaitTotals {
            acquires,
            waited: Duration::from_nanos(waited_ns),
        }
    }
}

/// A checkout being timed; counted when dropped.
#[derive(Debug)]
pub struct AcquireTimer<'a> {
    counters: &'a PoolWaitCounters,
    started: Instant,
}

impl Drop for AcquireTimer<'_> {
    fn drop(&mut self) {
        self.counters.record(self.started.elapsed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkouts_from_every_thread_are_summed() {
        let counters = PoolWaitCounters::default();
        std::thread::scope(|s| {
            for _ in 0..12 {
                s.spawn(|| counters.record(Duration::from_millis(2)));
            }
        });
        let totals = counters.totals();
        assert_eq!(totals.acquires, 12);
        assert_eq!(totals.waited, Duration::from_millis(24));
    }

    #[test]
    fn a_timer_counts_its_checkout_when_dropped() {
        let counters = PoolWaitCounters::default();
        {
            let _timer = counters.time();
            std::thread::sleep(Duration::from_millis(5));
            assert_eq!(counters.totals().acquires, 0);
        }
        let totals = counters.totals();
        assert_eq!(totals.acquires, 1);
        assert!(totals.waited >= Duration::from_millis(5), "{totals:?}");
    }
}
