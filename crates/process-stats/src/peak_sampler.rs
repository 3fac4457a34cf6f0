//! Samples a process on a background thread while a load runs and keeps the
//! peaks: the bench starts one per scenario to read the server's peak thread
//! count, peak memory and CPU time used.
//!
//! Peaks need frequent samples (a burst of threads can come and go within a
//! fraction of a second), so sampling runs on its own thread at a fixed
//! interval instead of being left to the caller.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::sample::{sample, ProcessSample};

/// What a [`PeakSampler`] saw between `start` and `stop`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Peaks {
    /// The most threads seen in any one sample.
    pub peak_threads: u64,
    /// The largest resident set seen, in bytes.
    pub peak_rss_bytes: u64,
    /// CPU seconds used between the first and the last sample.
    pub cpu_seconds: f64,
    /// How many samples were taken; 0 when the process was gone from the start.
    pub samples: u64,
}

/// A running sampler; [`PeakSampler::stop`] ends it and returns the [`Peaks`].
///
/// Dropping it without `stop` also ends the thread (its channel closes).
pub struct PeakSampler {
    stop: mpsc::Sender<()>,
    /// `None` when the OS refused a new thread; `stop` then reports no samples.
    thread: Option<JoinHandle<Peaks>>,
}

impl PeakSampler {
    /// Starts sampling process `pid` every `interval` on a new thread. The
    /// first sample is taken at once. If the process disappears, sampling
    /// ends and what was seen until then is kept.
    pub fn start(pid: u32, interval: Duration) -> PeakSampler {
        let (stop, stop_requested) = mpsc::channel();
        let thread = thread::Builder::new()
            .name(format!("peak-sampler-{pid}"))
            .spawn(move || sample_until_stopped(pid, interval, &stop_requested))
            // Without a thread there is nothing to sample with; the run then
            // reports samples = 0 rather than failing the caller's load.
            .ok();
        PeakSampler { stop, thread }
    }

    /// Takes one last sample, ends the sampling thread and returns the peaks.
    pub fn stop(self) -> Peaks {
        // A send error means the thread already ended (the process is gone);
        // its result is still waiting in the join handle.
        let _ = self.stop.send(());
        match self.thread.map(JoinHandle::join) {
            Some(Ok(peaks)) => peaks,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Peaks::default(),
        }
    }
}

fn sample_until_stopped(pid: u32, interval: Duration, stop: &mpsc::Receiver<()>) -> Peaks {
    let mut tracker = PeakTracker::default();
    let started = Instant::now();
    let mut taken: u32 = 0;
    // A failed sample means the process exited (or /proc is unreadable):
    // the loop ends and keeps what it has.
    while let Ok(now) = sample(pid) {
        tracker.add(now);
        taken = taken.saturating_add(1);
        // Aim at fixed ticks from the start so slow samples do not stretch
        // the interval.
        let next_tick = started + interval.saturating_mul(taken);
        let wait = next_tick.saturating_duration_since(Instant::now());
        match stop.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => continue,
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                // The last sample makes cpu_seconds cover the whole run.
                if let Ok(now) = sample(pid) {
                    tracker.add(now);
                }
                break;
            }
        }
    }
    tracker.peaks()
}

#[derive(Default)]
struct PeakTracker {
    first_cpu: Option<f64>,
    last_cpu: f64,
    peaks: Peaks,
}

impl PeakTracker {
    fn add(&mut self, now: ProcessSample) {
        self.first_cpu.get_or_insert(now.cpu_seconds);
        self.last_cpu = now.cpu_seconds;
        self.peaks.peak_threads = self.peaks.peak_threads.max(now.threads);
        self.peaks.peak_rss_bytes = self.peaks.peak_rss_bytes.max(now.rss_bytes);
        self.peaks.samples += 1;
    }

    fn peaks(self) -> Peaks {
        let first = self.first_cpu.unwrap_or(self.last_cpu);
        Peaks {
            cpu_seconds: (self.last_cpu - first).max(0.0),
            ..self.peaks
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(threads: u64, rss_bytes: u64, cpu_seconds: f64) -> ProcessSample {
        ProcessSample {
            threads,
            rss_bytes,
            cpu_seconds,
        }
    }

    #[test]
    fn tracker_keeps_peaks_and_cpu_between_first_and_last() {
        let mut tracker = PeakTracker::default();
        tracker.add(at(10, 5_000, 1.5));
        tracker.add(at(210, 9_000, 2.0));
        tracker.add(at(12, 7_000, 4.0));
        assert_eq!(
            tracker.peaks(),
            Peaks {
                peak_threads: 210,
                peak_rss_bytes: 9_000,
                cpu_seconds: 2.5,
                samples: 3
            }
        );
    }

    #[test]
    fn tracker_with_no_samples_reports_zeroes() {
        assert_eq!(PeakTracker::default().peaks(), Peaks::default());
    }
}
