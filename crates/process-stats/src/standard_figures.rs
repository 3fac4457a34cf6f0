//! The figures the Prometheus client libraries export about their own
//! process under standard names (`process_cpu_seconds_total`,
//! `process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`,
//! `process_start_time_seconds`, and `process_threads`), read in one call, so
//! each server's `/metrics` asks for them once and renders them with the
//! shared renderer (`server_metrics::metrics`).

use std::io;
use std::path::Path;

use crate::parse::{parse_boot_time, parse_stat_start_ticks};
use crate::sample::{sample_dir, ticks_per_second};

/// The calling process's standard figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StandardFigures {
    pub threads: u64,
    pub rss_bytes: u64,
    /// User plus system CPU time since the process started.
    pub cpu_seconds: f64,
    /// Entries of `/proc/self/fd`: files, sockets and pipes open now.
    pub open_fds: u64,
    /// The soft open-file limit; `None` when it is unlimited.
    pub max_fds: Option<u64>,
    /// When the process started, in seconds since the Unix epoch (the
    /// machine's boot time plus the process's start in clock ticks after it,
    /// as the Prometheus client libraries compute it).
    pub start_time_seconds: f64,
}

/// Reads [`StandardFigures`] of the calling process from `/proc/self`,
/// `/proc/self/fd`, `/proc/self/limits` and `/proc/stat`.
pub fn standard_figures_self() -> io::Result<StandardFigures> {
    let dir = Path::new("/proc/self");
    let sample = sample_dir(dir)?;
    let open_fds = std::fs::read_dir(dir.join("fd"))?.count() as u64;
    let limits = std::fs::read_to_string(dir.join("limits"))?;
    let max_fds = crate::parse_open_files_limit(&limits).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "/proc/self/limits has no Max open files line",
        )
    })?;
    let start_ticks = parse_stat_start_ticks(&std::fs::read_to_string(dir.join("stat"))?)?;
    let boot = parse_boot_time(&std::fs::read_to_string("/proc/stat")?)?;
    Ok(StandardFigures {
        threads: sample.threads,
        rss_bytes: sample.rss_bytes,
        cpu_seconds: sample.cpu_seconds,
        open_fds,
        max_fds,
        start_time_seconds: boot as f64 + start_ticks as f64 / ticks_per_second(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This process started after the machine booted and before now, has
    /// files open below its limit, and at least the test's thread.
    #[test]
    fn this_process_figures_are_plausible() {
        let figures = standard_figures_self().unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            figures.start_time_seconds <= now + 1.0
                && figures.start_time_seconds > now - 86_400.0 * 365.0,
            "{figures:?}"
        );
        assert!(figures.threads >= 1 && figures.rss_bytes > 0, "{figures:?}");
        assert!(figures.open_fds >= 1, "{figures:?}");
        assert!(
            figures.max_fds.is_none_or(|max| max >= figures.open_fds),
            "{figures:?}"
        );
    }
}
