//! The load generator's own CPU time, read from `/proc/self/stat` so that a
//! report can show when the client, not the server, was the limit. Reading
//! the file avoids an `unsafe` call to `getrusage`; on systems without
//! `/proc` the figures are zero.

use std::time::Duration;

/// Kernel clock ticks per second for `/proc` times. Linux fixes `USER_HZ`
/// at 100 on every architecture it exports to user space.
const USER_HZ: f64 = 100.0;

/// User and system CPU time of this process (all threads).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CpuTime {
    pub(crate) user: Duration,
    pub(crate) system: Duration,
}

impl CpuTime {
    /// CPU time so far; zero if it cannot be read.
    pub(crate) fn now() -> CpuTime {
        std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|text| parse_stat(&text))
            .unwrap_or_default()
    }

    /// Time used between `earlier` and `self`.
    pub(crate) fn since(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

/// Fields 14 and 15 (utime, stime) of `/proc/<pid>/stat`. The command name
/// (field 2) may contain spaces and parentheses, so counting starts after
/// its last `)`.
fn parse_stat(text: &str) -> Option<CpuTime> {
    let after_name = &text[text.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace();
    // after_name starts at field 3 (state); utime is field 14.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(CpuTime {
        user: Duration::from_secs_f64(utime as f64 / USER_HZ),
        system: Duration::from_secs_f64(stime as f64 / USER_HZ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utime_and_stime_even_with_odd_names() {
        let line =
            "1234 (my (odd) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0 99 0 0";
        let cpu = parse_stat(line).expect("valid stat line");
        assert_eq!(cpu.user, Duration::from_millis(2500));
        assert_eq!(cpu.system, Duration::from_millis(750));
    }

    #[test]
    fn reads_this_process() {
        // Burn a little CPU so the figure cannot stay at zero on Linux.
        let start = CpuTime::now();
        let mut x = 0u64;
        let t = std::time::Instant::now();
        while t.elapsed() < Duration::from_millis(60) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let used = CpuTime::now().since(start);
        if std::path::Path::new("/proc/self/stat").exists() {
            assert!(
                used.user + used.system >= Duration::from_millis(10),
                "{used:?}"
            );
        }
    }
}
