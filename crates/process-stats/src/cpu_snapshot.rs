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
    /// The part of `busy_ticks` spent in softirqs (`softirq`): mostly the
    /// kernel moving packets, loopback ones included, which no process's
    /// own time counts.
    pub softirq_ticks: u64,
    /// The part of `busy_ticks` the hypervisor gave to other machines
    /// while this one had work (`steal`): a busy host, not a busy guest.
    pub steal_ticks: u64,
    /// Every process that could be read.
    pub processes: Vec<ProcessCpu>,
    /// Clock ticks per second (USER_HZ), the unit of every tick count here.
    pub ticks_per_second: u64,
}

impl CpuSnapshot {
    /// Reads `/proc/stat` and every `/proc/<pid>/stat`. A process that exits
    /// while the directory is walked is skipped.
    pub fn take() -> io::Result<CpuSnapshot> {
        let machine = parse_proc_stat_ticks(&std::fs::read_to_string("/proc/stat")?)?;
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
            busy_ticks: machine.busy,
            softirq_ticks: machine.softirq,
            steal_ticks: machine.steal,
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

/// The machine's ticks, summed over all cores, from `/proc/stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineTicks {
    /// Everything but idle and iowait.
    pub busy: u64,
    /// Of `busy`, softirq time.
    pub softirq: u64,
    /// Of `busy`, steal time (0 where the kernel does not report it).
    pub steal: u64,
}

/// The ticks of all cores from the text of `/proc/stat`: the first line,
/// `cpu  user nice system idle iowait irq softirq steal guest guest_nice`,
/// busy being the sum without idle (4th) and iowait (5th). Guest time is
/// already counted inside user and nice, so it is not added again.
pub fn parse_proc_stat_ticks(text: &str) -> io::Result<MachineTicks> {
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
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    Ok(MachineTicks {
        busy: (0..8).filter(|i| *i != 3 && *i != 4).map(field).sum(),
        softirq: field(6),
        steal: field(7),
    })
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
        let ticks = parse_proc_stat_ticks(text).unwrap();
        assert_eq!(
            ticks,
            MachineTicks {
                busy: 161,
                softirq: 2,
                steal: 1
            }
        );
        // An old kernel's line without steal: none stolen.
        assert_eq!(
            parse_proc_stat_ticks("cpu  1 2 3 4 5 6 7\n").unwrap().steal,
            0
        );
    }

    #[test]
    fn stat_without_a_cpu_line_is_an_error() {
        assert!(parse_proc_stat_ticks("cpu0 1 2 3 4\n").is_err());
        assert!(parse_proc_stat_ticks("cpu  1 2\n").is_err());
    }

    #[test]
    fn process_name_may_hold_spaces_and_parentheses() {
        let stat = "77 (postgres: x (y)) S 1 77 77 0 -1 0 1 2 3 4 1000 2000 5 6 20 0 1 0";
        let p = parse_process_cpu(77, stat).unwrap();
        assert_eq!(p.name, "postgres: x (y)");
        assert_eq!(p.ticks, 3000);
    }
}
