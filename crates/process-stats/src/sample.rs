//! One reading of a process's live figures from `/proc/<pid>/status` and
//! `/proc/<pid>/stat`.

use std::io;
use std::path::Path;
use std::time::Duration;

use crate::parse::{parse_stat_cpu_ticks, parse_status};

/// What a process looks like at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ProcessSample {
    /// OS threads in the process (`Threads:` in `/proc/<pid>/status`).
    pub threads: u64,
    /// Resident set size in bytes (`VmRSS:`), 0 for a zombie.
    pub rss_bytes: u64,
    /// User plus system CPU time used since the process started, in seconds.
    pub cpu_seconds: f64,
}

/// Samples the process `pid`. A process that is gone gives an error of kind
/// [`io::ErrorKind::NotFound`].
pub fn sample(pid: u32) -> io::Result<ProcessSample> {
    sample_dir(&Path::new("/proc").join(pid.to_string()))
}

/// Samples the calling process (through `/proc/self`).
pub fn sample_self() -> io::Result<ProcessSample> {
    sample_dir(Path::new("/proc/self"))
}

pub(crate) fn sample_dir(dir: &Path) -> io::Result<ProcessSample> {
    let status = std::fs::read_to_string(dir.join("status"))?;
    let figures = parse_status(&status)?;
    let cpu = cpu_times_dir(dir)?;
    Ok(ProcessSample {
        threads: figures.threads,
        rss_bytes: figures.rss_bytes,
        cpu_seconds: (cpu.user + cpu.system).as_secs_f64(),
    })
}

/// User and system CPU time of a process (all its threads), apart: what a
/// load generator reports about itself, to tell when the client was the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    pub user: Duration,
    pub system: Duration,
}

impl CpuTimes {
    /// The time used between `earlier` and `self`.
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

/// The calling process's CPU time so far (from `/proc/self/stat`, in the
/// kernel's own tick unit rather than an assumed 100 Hz).
pub fn cpu_times_self() -> io::Result<CpuTimes> {
    cpu_times_dir(Path::new("/proc/self"))
}

fn cpu_times_dir(dir: &Path) -> io::Result<CpuTimes> {
    let stat = std::fs::read_to_string(dir.join("stat"))?;
    let (user, system) = parse_stat_cpu_ticks(&stat)?;
    let hz = ticks_per_second();
    Ok(CpuTimes {
        user: Duration::from_secs_f64(user as f64 / hz),
        system: Duration::from_secs_f64(system as f64 / hz),
    })
}

/// The kernel's USER_HZ, the unit of the times in `/proc/<pid>/stat`
/// (100 on every common Linux, but read rather than assumed).
pub(crate) fn ticks_per_second() -> f64 {
    match rustix::param::clock_ticks_per_second() {
        0 => 100.0,
        ticks => ticks as f64,
    }
}
