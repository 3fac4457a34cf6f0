//! `sample_self` sees threads the test starts. In a process of its own
//! (rusty-fork runs the test binary again for it alone), so that no other
//! test's threads come and go while it counts.

use rusty_fork::rusty_fork_test;

use crate::parked_threads::ParkedThreads;

rusty_fork_test! {
    #[test]
    fn sample_self_counts_threads_the_test_starts() {
        // Arrange
        let before = process_stats::sample_self().expect("sample before");
        // The kernel's own list of this process's threads, read another way.
        let tasks = std::fs::read_dir("/proc/self/task")
            .expect("/proc/self/task")
            .count() as u64;
        assert_eq!(before.threads, tasks, "{before:?}");
        assert!(before.rss_bytes > 0, "{before:?}");
        let parked = ParkedThreads::start(5);

        // Act
        let during = process_stats::sample_self().expect("sample during");
        parked.release();

        // Assert
        assert!(
            during.threads >= before.threads + 5,
            "before {before:?}, during {during:?}"
        );
    }
}
