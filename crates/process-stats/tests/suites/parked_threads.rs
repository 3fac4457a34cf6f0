//! Threads a test starts and holds parked until it lets them go: the
//! threads this process's counts must see come and go.

use std::sync::{Arc, Barrier};
use std::thread::{self, JoinHandle};

/// `n` threads, each parked on a barrier until [`ParkedThreads::release`].
pub(crate) struct ParkedThreads {
    release: Arc<Barrier>,
    threads: Vec<JoinHandle<()>>,
}

impl ParkedThreads {
    /// Starts `n` threads, each parked until released.
    pub(crate) fn start(n: usize) -> ParkedThreads {
        let release = Arc::new(Barrier::new(n + 1));
        let threads = (0..n)
            .map(|_| {
                let release = Arc::clone(&release);
                thread::spawn(move || {
                    release.wait();
                })
            })
            .collect();
        ParkedThreads { release, threads }
    }

    /// Lets every thread go, and waits for each to end.
    pub(crate) fn release(self) {
        self.release.wait();
        for thread in self.threads {
            thread.join().expect("a parked thread");
        }
    }
}
