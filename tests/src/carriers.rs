//! Who may use may's carrier threads in this test process at a time.
//!
//! may's scheduler is process-wide: every in-process virtual-thread server
//! of a test binary runs on the same carriers. Servers that only answer
//! requests can share them. A server slowed on purpose (behind fault
//! proxies, whose delays its pinning driver holds a carrier through) would
//! hold back every other virtual-thread server's requests and lag probes,
//! and a test that times carriers (a yielding driver beside a pinned one,
//! the pinning detector's "no other route") would read another test's
//! pinning as its own. So such a server has the carriers to itself: it
//! waits until no other virtual-thread server runs, and none starts until
//! it stops.
//!
//! A shared holder does not wait for an exclusive one that is only
//! waiting, so a test may start several shared servers in turn without a
//! deadlock (an exclusive one may wait longer; every test is bounded).

use std::sync::{Condvar, Mutex, PoisonError};

/// The gate's state: how many shared holders, and whether one holds it alone.
#[derive(Default)]
struct State {
    shared: usize,
    exclusive: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    shared: 0,
    exclusive: false,
});
static CHANGED: Condvar = Condvar::new();

/// A hold on the carriers, released on drop.
#[derive(Debug)]
pub(crate) struct CarrierHold {
    exclusive: bool,
}

impl CarrierHold {
    /// Waits until the carriers can be had, `exclusive`ly or shared.
    pub(crate) fn acquire(exclusive: bool) -> Self {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let free = if exclusive {
                !state.exclusive && state.shared == 0
            } else {
                !state.exclusive
            };
            if free {
                break;
            }
            state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        if exclusive {
            state.exclusive = true;
        } else {
            state.shared += 1;
        }
        Self { exclusive }
    }
}

impl Drop for CarrierHold {
    fn drop(&mut self) {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        if self.exclusive {
            state.exclusive = false;
        } else {
            state.shared -= 1;
        }
        CHANGED.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn an_exclusive_hold_waits_for_shared_ones_and_shared_ones_for_it() {
        let shared = CarrierHold::acquire(false);
        let second_shared = CarrierHold::acquire(false);
        let got_it = Arc::new(AtomicBool::new(false));
        let waiter = {
            let got_it = Arc::clone(&got_it);
            std::thread::spawn(move || {
                let hold = CarrierHold::acquire(true);
                got_it.store(true, Ordering::SeqCst);
                hold
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !got_it.load(Ordering::SeqCst),
            "exclusive beside shared holds"
        );
        // A shared holder is not held back by an exclusive one that waits.
        drop(CarrierHold::acquire(false));
        drop((shared, second_shared));
        let exclusive = waiter.join().unwrap();
        assert!(got_it.load(Ordering::SeqCst));
        let blocked = std::thread::spawn(|| CarrierHold::acquire(false));
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !blocked.is_finished(),
            "a shared hold beside an exclusive one"
        );
        drop(exclusive);
        drop(blocked.join().unwrap());
    }
}
