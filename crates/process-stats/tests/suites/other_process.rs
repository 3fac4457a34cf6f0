//! Sampling a process other than ourselves, including one that exits.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use process_stats::{sample, PeakSampler};

fn sleeper(seconds: &str) -> std::process::Child {
    Command::new("sleep")
        .arg(seconds)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn sleep")
}

#[test]
fn a_single_threaded_child_has_one_thread_and_resident_memory() {
    let mut child = sleeper("5");
    let figures = sample(child.id()).expect("sample child");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(figures.threads, 1, "{figures:?}");
    assert!(figures.rss_bytes > 0, "{figures:?}");
}

#[test]
fn a_process_that_is_gone_gives_not_found() {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id();
    child.wait().expect("wait true");
    let error = sample(pid).expect_err("process is gone");
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{error}");
}

#[test]
fn peak_sampler_stops_when_the_process_exits_and_keeps_what_it_saw() {
    // Arrange
    let mut child = sleeper("0.3");
    let started = Instant::now();
    let sampler = PeakSampler::start(child.id(), Duration::from_millis(10));

    // Act: reap the child, then wait well past its end before stopping.
    child.wait().expect("wait sleep");
    let alive_for = started.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let stop_began = Instant::now();
    let peaks = sampler.stop();

    // Assert
    assert!(peaks.samples >= 1, "{peaks:?}");
    assert_eq!(peaks.peak_threads, 1, "{peaks:?}");
    assert!(peaks.peak_rss_bytes > 0, "{peaks:?}");
    assert!(
        stop_began.elapsed() < Duration::from_secs(5),
        "stop took {:?}",
        stop_began.elapsed()
    );
    // Had sampling gone on until `stop`, it would count ~30 more samples than
    // the 10 ms ticks the child was alive for; a few extra allow for timing.
    let ticks_alive = alive_for.as_millis() as u64 / 10;
    assert!(
        peaks.samples <= ticks_alive + 5,
        "{} samples for {ticks_alive} ticks alive: sampling went on after the exit",
        peaks.samples
    );
}
