//! How much `/cpu` work takes a given time on this machine, for tests that
//! need a request to hold a thread for long enough to see.
//!
//! The time per item is measured here, in this build, with
//! `contract::workload::n_taking`. Other tests and other processes share the
//! cores and can only make a probe slower, never faster; a slow probe makes
//! the `n` too small, and a request meant to block a worker for 500 ms then
//! blocks it for 50 ms, below a test's threshold. So the probes are many,
//! short, and spread out, and the fastest one decides.

use std::time::Duration;

use contract::workload::n_taking;

/// The `n` for `/cpu?n=` whose work takes about `target` of one core when
/// nothing else runs, and that time: the largest `n` of twenty
/// calibrations a few milliseconds apart.
pub fn cpu_n_taking(target: Duration) -> (u64, Duration) {
    let mut best = n_taking(target, 200_000);
    for _ in 0..19 {
        std::thread::sleep(Duration::from_millis(5));
        let next = n_taking(target, 200_000);
        if next.0 > best.0 {
            best = next;
        }
    }
    best
}
