//! `sample_self` sees CPU time the test burns.

use std::time::{Duration, Instant};

#[test]
fn cpu_seconds_grow_during_a_busy_loop() {
    let before = process_stats::sample_self().expect("sample before");
    // Spin until 0.2 s of CPU shows up, giving up after 20 s of wall time, so a
    // busy machine only makes the test slower, never wrong.
    let give_up = Instant::now() + Duration::from_secs(20);
    let mut acc = 0u64;
    let mut now = before;
    while now.cpu_seconds - before.cpu_seconds < 0.2 && Instant::now() < give_up {
        for i in 0..1_000_000u64 {
            acc = acc.wrapping_add(std::hint::black_box(i * i));
        }
        now = process_stats::sample_self().expect("sample during");
    }
    std::hint::black_box(acc);
    assert!(
        now.cpu_seconds - before.cpu_seconds >= 0.2,
        "before {before:?}, after {now:?}"
    );
}
