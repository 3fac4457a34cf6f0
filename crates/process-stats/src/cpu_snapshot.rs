//! A snapshot of where the whole machine's CPU time has gone so far: the
//! busy time of all cores from `/proc/stat`, and the CPU time of every
//! process from `/proc/<pid>/stat`, each with its command name.
//!
//! Two snapshots taken around a measured window tell how many CPU seconds
//! each process, and everything else, used in between. On a machine where
//! the load generator, the servers and their databases share two cores,
//! that is how a report knows whether the machine was quiet.

use std::io;

use crate::parse::{invalid, parse_number, parse_stat_cpu_ticks};
use crate::sample::ticks_per_second;

/// One process's CPU time at the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessCpu {
    pub pid: u32,
    /// The command name (`comm`, at most 15 bytes: `postgres`, `redis-server`).
    pub name: String,
    /// User plus system time, in clock ticks.
    pub ticks: u64,
}

/// The machine's CPU time at one instant, in clock ticks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSnapshot {
    /// Busy time summed over all cores: everything in the `cpu` line of
    /// `/proc/stat` but `idle` and `iowait`.
    pub busy_ticks: u64,
    /// Every process that could be read.
    pub processes: Vec<ProcessCpu>,
    /// Clock ticks per second (USER_HZ), the unit of every tick count here.
    pub ticks_per_second: u64,
}

impl CpuSnapshot {
    /// Reads `/proc/stat` and every `/proc/<pid>/stat`. A process that exits
    /// while the directory is walked is skipped.
    pub fn take() -> io::Result<CpuSnapshot> {
        let busy_ticks = parse_proc_stat_busy_ticks(&std::fs::read_to_string("/proc/stat")?)?;
        let mut processes = Vec::new();
        for entry in std::fs::read_dir("/proc")?.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if let Ok(p) = parse_process_cpu(pid, &text) {
                processes.push(p);
            }
        }
        Ok(CpuSnapshot {
            busy_ticks,
            processes,
            ticks_per_second: ticks_per_second() as u64,
        })
    }

    /// Ticks of process `pid`, if it was running.
    pub fn ticks_of(&self, pid: u32) -> Option<u64> {
        self.processes
            .iter()
            .find(|p| p.pid == pid)
            .map(|p| p.ticks)
    }
}

/// The busy ticks of all cores from the text of `/proc/stat`: the first
/// line, `cpu  user nice system idle iowait irq softirq steal guest guest_nice`,
/// summed without idle (4th) and iowait (5th). Guest time is already
/// counted inside user and nice, so it is not added again.
pub fn parse_proc_stat_busy_ticks(text: &str) -> io::Result<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with("cpu "))
        .ok_or_else(|| invalid("/proc/stat has no \"cpu \" line".to_owned()))?;
    let fields: Vec<u64> = line
        .split_ascii_whitespace()
        .skip(1)
        .map(|f| parse_number(f, "a /proc/stat cpu field"))
        .collect::<io::Result<_>>()?;
    if fields.len() < 4 {
        return Err(invalid(format!(
            "/proc/stat's cpu line has {} fields, expected at least 4",
            fields.len()
        )));
    }
    Ok(fields
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, v)| v)
        .sum())
}

/// A process's name and CPU ticks from the text of its `/proc/<pid>/stat`.
pub fn parse_process_cpu(pid: u32, text: &str) -> io::Result<ProcessCpu> {
    let open = text
        .find('(')
        .ok_or_else(|| invalid("stat has no '(' opening the command name".to_owned()))?;
    let close = text
        .rfind(')')
        .ok_or_else(|| invalid("stat has no ')' closing the command name".to_owned()))?;
    let name = text.get(open + 1..close).unwrap_or_default().to_owned();
    let (user, system) = parse_stat_cpu_ticks(text)?;
    Ok(ProcessCpu {
        pid,
        name,
        ticks: user + system,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_ticks_leave_out_idle_and_iowait() {
        let text = "cpu  100 5 50 9000 40 3 2 1 7 0\ncpu0 50 2 25 4500 20 1 1 0 0 0\nintr 1\n";
        // user 100 + nice 5 + system 50 + irq 3 + softirq 2 + steal 1; guest (7) is inside user.
        assert_eq!(parse_proc_stat_busy_ticks(text).unwrap(), 161);
    }

    #[test]
    fn stat_without_a_cpu_line_is_an_error() {
        assert!(parse_proc_stat_busy_ticks("cpu0 1 2 3 4\n").is_err());
        assert!(parse_proc_stat_busy_ticks("cpu  1 2\n").is_err());
    }

    #[test]
    fn process_name_may_hold_spaces_and_parentheses() {
        let stat = "77 (postgres: x (y)) S 1 77 77 0 -1 0 1 2 3 4 1000 2000 5 6 20 0 1 0";
        let p = parse_process_cpu(77, stat).unwrap();
        assert_eq!(p.name, "postgres: x (y)");
        assert_eq!(p.ticks, 3000);
    }
}
