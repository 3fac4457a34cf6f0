//! Pure parsers for the two `/proc/<pid>` files we read, kept apart from the
//! file reading so they can be tested on fixed texts.

use std::io;

/// The figures taken from `/proc/<pid>/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatusFigures {
    pub(crate) threads: u64,
    pub(crate) rss_bytes: u64,
}

/// Reads `Threads:` and `VmRSS:` from the text of `/proc/<pid>/status`.
///
/// `VmRSS:` is missing for kernel threads and zombies (they have no user
/// memory), so its absence reads as zero; `Threads:` is always there.
pub(crate) fn parse_status(text: &str) -> io::Result<StatusFigures> {
    let mut threads = None;
    let mut rss_bytes = 0;
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("Threads:") {
            threads = Some(parse_number(value.trim(), "Threads")?);
        } else if let Some(value) = line.strip_prefix("VmRSS:") {
            // The kernel always writes this one in kB ("VmRSS:   12345 kB").
            let kib = value.trim().trim_end_matches("kB").trim();
            rss_bytes = parse_number(kib, "VmRSS")? * 1024;
        }
    }
    let threads = threads.ok_or_else(|| invalid("status has no Threads: line".to_owned()))?;
    Ok(StatusFigures { threads, rss_bytes })
}

/// Reads utime and stime (fields 14 and 15, in clock ticks) from the text
/// of `/proc/<pid>/stat`.
///
/// Field 2 is the command name in parentheses, and the name itself may hold
/// spaces and ')' (a thread can name itself anything), so the fields are
/// counted from after the *last* ')' in the line, where field 3 starts.
pub(crate) fn parse_stat_cpu_ticks(text: &str) -> io::Result<(u64, u64)> {
    let after_comm = text
        .rfind(')')
        .map(|at| &text[at + 1..])
        .ok_or_else(|| invalid("stat has no ')' closing the command name".to_owned()))?;
    let mut fields = after_comm.split_ascii_whitespace();
    // after_comm starts at field 3, so field 14 is the 12th item from here.
    let utime = fields
        .nth(14 - 3)
        .ok_or_else(|| invalid("stat has no utime field".to_owned()))?;
    let stime = fields
        .next()
        .ok_or_else(|| invalid("stat has no stime field".to_owned()))?;
    Ok((parse_number(utime, "utime")?, parse_number(stime, "stime")?))
}

/// The fields of `/proc/<pid>/stat` a CPU snapshot needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatFields {
    /// Field 9, the kernel's flags (a kernel thread has `PF_KTHREAD`).
    pub(crate) flags: u64,
    /// Fields 14 and 15, in clock ticks.
    pub(crate) utime: u64,
    pub(crate) stime: u64,
    /// Field 22, clock ticks after boot when the process started.
    pub(crate) start: u64,
}

/// Reads flags, utime, stime and starttime from the text of
/// `/proc/<pid>/stat`, counted like [`parse_stat_cpu_ticks`] from after
/// the last ')'.
pub(crate) fn parse_stat_fields(text: &str) -> io::Result<StatFields> {
    let after_comm = text
        .rfind(')')
        .map(|at| &text[at + 1..])
        .ok_or_else(|| invalid("stat has no ')' closing the command name".to_owned()))?;
    let fields: Vec<&str> = after_comm.split_ascii_whitespace().collect();
    let field = |n: usize, name: &str| -> io::Result<u64> {
        let text = fields
            .get(n - 3)
            .ok_or_else(|| invalid(format!("stat has no {name} field")))?;
        parse_number(text, name)
    };
    Ok(StatFields {
        flags: field(9, "flags")?,
        utime: field(14, "utime")?,
        stime: field(15, "stime")?,
        start: field(22, "starttime")?,
    })
}

/// Reads starttime (field 22: clock ticks after boot when the process
/// started) from the text of `/proc/<pid>/stat`, counted like
/// [`parse_stat_cpu_ticks`] from after the last ')'.
pub(crate) fn parse_stat_start_ticks(text: &str) -> io::Result<u64> {
    let after_comm = text
        .rfind(')')
        .map(|at| &text[at + 1..])
        .ok_or_else(|| invalid("stat has no ')' closing the command name".to_owned()))?;
    let start = after_comm
        .split_ascii_whitespace()
        .nth(22 - 3)
        .ok_or_else(|| invalid("stat has no starttime field".to_owned()))?;
    parse_number(start, "starttime")
}

/// Reads `btime` (when the machine booted, in seconds since the Unix epoch)
/// from the text of `/proc/stat`.
pub(crate) fn parse_boot_time(text: &str) -> io::Result<u64> {
    let value = text
        .lines()
        .find_map(|line| line.strip_prefix("btime "))
        .ok_or_else(|| invalid("/proc/stat has no btime line".to_owned()))?;
    parse_number(value.trim(), "btime")
}

pub(crate) fn parse_number(text: &str, what: &str) -> io::Result<u64> {
    text.parse()
        .map_err(|_| invalid(format!("{what} is not a number: {text:?}")))
}

pub(crate) fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_gives_the_start_in_ticks_and_proc_stat_the_boot_time() {
        // Fields 3..=22 after a command name holding ") (".
        let stat = "42 (a) (b) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 98765 1000 10";
        assert_eq!(parse_stat_start_ticks(stat).unwrap(), 98765);
        assert!(parse_stat_start_ticks("42 (a) S 1").is_err());
        let proc_stat = "cpu  1 2 3 4\nintr 5\nbtime 1764633600\nprocesses 9\n";
        assert_eq!(parse_boot_time(proc_stat).unwrap(), 1_764_633_600);
        assert!(parse_boot_time("cpu 1 2 3\n").is_err());
    }

    const STATUS: &str = "Name:\tblocking-server\nUmask:\t0022\nState:\tS (sleeping)\n\
        Tgid:\t4242\nPid:\t4242\nVmPeak:\t  300000 kB\nVmRSS:\t   12345 kB\n\
        RssAnon:\t    8000 kB\nThreads:\t217\nSigQ:\t0/31457\n";

    #[test]
    fn status_gives_threads_and_rss_in_bytes() {
        let figures = parse_status(STATUS).expect("status parses");
        assert_eq!(
            figures,
            StatusFigures {
                threads: 217,
                rss_bytes: 12345 * 1024
            }
        );
    }

    #[test]
    fn status_of_a_zombie_has_no_rss_and_reads_as_zero() {
        let zombie = "Name:\tdone\nState:\tZ (zombie)\nThreads:\t1\n";
        let figures = parse_status(zombie).expect("status parses");
        assert_eq!(figures.rss_bytes, 0);
        assert_eq!(figures.threads, 1);
    }

    #[test]
    fn status_without_threads_is_an_error() {
        let error = parse_status("Name:\tx\nVmRSS:\t1 kB\n").expect_err("must fail");
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("Threads"), "{error}");
    }

    #[test]
    fn stat_gives_utime_and_stime() {
        // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt
        // cminflt majflt cmajflt utime=250 stime=31 cutime cstime ...
        let stat = "4242 (async-server) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 31 7 8 20 0 3 0";
        assert_eq!(parse_stat_cpu_ticks(stat).expect("stat parses"), (250, 31));
    }

    #[test]
    fn stat_with_spaces_and_parentheses_in_the_name_counts_from_the_last_paren() {
        // A command name like "a) b (c) 9 9" would shift every field if the
        // line were split on the first ')' or on whitespace.
        let stat = "77 (a) b (c) 9 9) R 1 77 77 0 -1 0 1 2 3 4 1000 2000 5 6 20 0 1 0";
        assert_eq!(
            parse_stat_cpu_ticks(stat).expect("stat parses"),
            (1000, 2000)
        );
    }

    #[test]
    fn truncated_stat_is_an_error() {
        let error = parse_stat_cpu_ticks("1 (x) S 0 1 1").expect_err("must fail");
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    }
}
