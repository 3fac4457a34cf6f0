//! A `PeakSampler` on this process catches a short burst of threads. In a
//! process of its own (rusty-fork runs the test binary again for it alone),
//! so that the baseline thread count holds still.

use std::thread;
use std::time::Duration;

use process_stats::PeakSampler;
use rusty_fork::rusty_fork_test;

use crate::parked_threads::ParkedThreads;

rusty_fork_test! {
    #[test]
    fn peak_sampler_sees_a_thread_spike() {
        // Arrange: the sampler's own thread is part of the baseline.
        let sampler = PeakSampler::start(std::process::id(), Duration::from_millis(10));
        thread::sleep(Duration::from_millis(50));
        let baseline = process_stats::sample_self().expect("baseline").threads;

        // Act: 20 threads live for ~200 ms (20 sampling intervals), then end.
        let spike = ParkedThreads::start(20);
        thread::sleep(Duration::from_millis(200));
        spike.release();
        thread::sleep(Duration::from_millis(50));
        let peaks = sampler.stop();

        // Assert
        assert!(
            peaks.peak_threads >= baseline + 20,
            "baseline {baseline}, {peaks:?}"
        );
        assert!(peaks.samples >= 5, "{peaks:?}");
        assert!(peaks.peak_rss_bytes > 0, "{peaks:?}");
        let after = process_stats::sample_self().expect("after").threads;
        assert!(after < peaks.peak_threads, "after {after}, {peaks:?}");
    }
}
