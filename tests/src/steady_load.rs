//! Client threads that ask a server for its routes in a loop until
//! stopped, every request recorded with its times: the load under which
//! the outage and restart suites take a dependency away
//! (tests/tests/suites/outage_under_load.rs, database_restart.rs).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::http;

/// One request as a client thread saw it, its times from the test's start.
pub struct Record {
    pub path: &'static str,
    pub sent: Duration,
    pub took: Duration,
    /// `Err` when the transport failed (no answer).
    pub answer: Result<(u16, Vec<u8>), String>,
}

/// Client threads on one server, until [`SteadyLoad::stop`].
pub struct SteadyLoad {
    stop: Arc<AtomicBool>,
    records: Arc<Mutex<Vec<Record>>>,
    threads: Vec<JoinHandle<()>>,
}

impl SteadyLoad {
    /// `threads_per_path` client threads on each of `paths` against `addr`:
    /// each sends a GET, records it, pauses `think_time`, and again; times
    /// are measured from `start`.
    pub fn start(
        addr: SocketAddr,
        paths: &[&'static str],
        threads_per_path: usize,
        think_time: Duration,
        start: Instant,
    ) -> SteadyLoad {
        let stop = Arc::new(AtomicBool::new(false));
        let records = Arc::new(Mutex::new(Vec::new()));
        let threads = paths
            .iter()
            .flat_map(|path| std::iter::repeat_n(*path, threads_per_path))
            .map(|path| {
                let (stop, records) = (stop.clone(), records.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        let sent = start.elapsed();
                        let answer = http::send(addr, "GET", path, &[], b"")
                            .map(|r| (r.status, r.body))
                            .map_err(|e| e.to_string());
                        let took = start.elapsed() - sent;
                        let record = Record {
                            path,
                            sent,
                            took,
                            answer,
                        };
                        records
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(record);
                        std::thread::sleep(think_time);
                    }
                })
            })
            .collect();
        SteadyLoad {
            stop,
            records,
            threads,
        }
    }

    /// Stops every client thread after its request in flight; every record.
    pub fn stop(self) -> Vec<Record> {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads {
            thread.join().expect("a client thread panicked");
        }
        std::mem::take(&mut *self.records.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
