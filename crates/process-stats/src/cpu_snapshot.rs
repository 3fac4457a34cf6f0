//! A snapshot of where the whole machine's CPU time has gone so far: the
//! machine's ticks from `/proc/stat`, and the CPU time of every process
//! from `/proc/<pid>/stat`, each with its command name.
//!
//! Two snapshots taken around a measured window tell how many CPU ticks
//! each process, and everything else, used in between ([`MachineWindow`]).
//! On a machine where the load generator, the servers and their databases
//! share two cores, that is how a report knows whether the machine was
//! quiet.
//!
//! `/proc/stat` is read twice per snapshot, just before and just after the
//! processes are walked, so that the machine's window (from the first
//! reading of the earlier snapshot to the last of the later one) holds
//! every process's: a process's ticks cannot fall outside the busy time
//! they are compared with.

use std::io;
use std::time::Instant;

use crate::parse::{invalid, parse_number, parse_stat_fields};
use crate::sample::ticks_per_second;

/// The kernel's flag of a kernel thread in `/proc/<pid>/stat`'s `flags`.
const PF_KTHREAD: u64 = 0x0020_0000;

/// One process's CPU time at the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessCpu {
    pub pid: u32,
    /// The command name (`comm`, at most 15 bytes: `postgres`, `redis-server`).
    pub name: String,
    /// User plus system time, in clock ticks.
    pub ticks: u64,
    /// When the process started, in clock ticks after boot: with the pid,
    /// what tells a process from a later one that got its pid again.
    pub started: u64,
    /// A kernel thread (`ksoftirqd/0`, a `kworker`), not a program.
    pub kernel_thread: bool,
}

/// The machine's ticks at one instant, summed over all cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineTicks {
    /// Idle and iowait time: what the machine did not use.
    pub idle: u64,
    /// Time in softirqs (`softirq`): mostly the kernel moving packets,
    /// loopback ones included.
    pub softirq: u64,
    /// Time in hardware interrupts (`irq`); stays 0 on a kernel that does
    /// not account interrupt time apart.
    pub irq: u64,
    /// Time the hypervisor gave to other machines while this one had work
    /// (`steal`): a busy host, not a busy guest.
    pub steal: u64,
    /// The online cores (`cpuN` lines).
    pub cores: u32,
}

/// `/proc/stat` as read at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineReading {
    pub ticks: MachineTicks,
    pub at: Instant,
}

impl MachineReading {
    /// Reads `/proc/stat` now.
    pub fn take() -> io::Result<MachineReading> {
        let text = std::fs::read_to_string("/proc/stat")?;
        Ok(MachineReading {
            at: Instant::now(),
            ticks: parse_proc_stat_ticks(&text)?,
        })
    }
}

/// The machine's CPU time at one instant, in clock ticks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSnapshot {
    /// `/proc/stat` just before the processes were read.
    pub first: MachineReading,
    /// `/proc/stat` just after.
    pub last: MachineReading,
    /// Every process that could be read.
    pub processes: Vec<ProcessCpu>,
    /// Clock ticks per second (USER_HZ), the unit of every tick count here.
    pub ticks_per_second: u64,
}

/// The machine between two snapshots, in clock ticks over all cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineWindow {
    /// The time the cores were not idle: cores x wall time, less idle and
    /// iowait. The kernel measures idle time exactly on a tickless kernel,
    /// whereas its busy fields are sampled at ticks and miss short runs
    /// that start from idle; the process times they are compared with are
    /// exact.
    pub busy: u64,
    pub softirq: u64,
    pub irq: u64,
    pub steal: u64,
}

impl CpuSnapshot {
    /// Reads `/proc/stat`, every `/proc/<pid>/stat`, then `/proc/stat`
    /// again. A process that exits while the directory is walked is skipped.
    pub fn take() -> io::Result<CpuSnapshot> {
        let first = MachineReading::take()?;
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
        let last = MachineReading::take()?;
        Ok(CpuSnapshot {
            first,
            last,
            processes,
            ticks_per_second: ticks_per_second() as u64,
        })
    }

    /// The process `pid` as it was at the snapshot, if it was running.
    pub fn process(&self, pid: u32) -> Option<&ProcessCpu> {
        self.processes.iter().find(|p| p.pid == pid)
    }

    /// Ticks `p` (a process of this, the later snapshot) used since
    /// `earlier`: from zero when it started after it (a pid seen again
    /// with another start time is another process).
    pub fn ticks_since(&self, earlier: &CpuSnapshot, p: &ProcessCpu) -> u64 {
        let before = earlier
            .process(p.pid)
            .filter(|b| b.started == p.started)
            .map_or(0, |b| b.ticks);
        p.ticks.saturating_sub(before)
    }

    /// The machine from `earlier`'s first reading of `/proc/stat` to this
    /// snapshot's last, a window that holds every process's.
    pub fn machine_since(&self, earlier: &CpuSnapshot) -> MachineWindow {
        let (a, b) = (earlier.first.ticks, self.last.ticks);
        let wall = self.last.at.saturating_duration_since(earlier.first.at);
        let capacity = wall.as_secs_f64() * self.ticks_per_second as f64 * f64::from(b.cores);
        let idle = b.idle.saturating_sub(a.idle) as f64;
        MachineWindow {
            busy: (capacity - idle).max(0.0).round() as u64,
            softirq: b.softirq.saturating_sub(a.softirq),
            irq: b.irq.saturating_sub(a.irq),
            steal: b.steal.saturating_sub(a.steal),
        }
    }
}

/// The ticks of all cores from the text of `/proc/stat`: the first line,
/// `cpu  user nice system idle iowait irq softirq steal guest guest_nice`,
/// and the number of `cpuN` lines.
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
    if fields.len() < 5 {
        return Err(invalid(format!(
            "/proc/stat's cpu line has {} fields, expected at least 5",
            fields.len()
        )));
    }
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let cores = text
        .lines()
        .filter(|l| {
            l.strip_prefix("cpu")
                .and_then(|rest| rest.split(' ').next())
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .count();
    Ok(MachineTicks {
        idle: field(3) + field(4),
        irq: field(5),
        softirq: field(6),
        steal: field(7),
        cores: u32::try_from(cores.max(1)).unwrap_or(u32::MAX),
    })
}

/// A process's name, CPU ticks, start and kind from the text of its
/// `/proc/<pid>/stat`.
pub fn parse_process_cpu(pid: u32, text: &str) -> io::Result<ProcessCpu> {
    let open = text
        .find('(')
        .ok_or_else(|| invalid("stat has no '(' opening the command name".to_owned()))?;
    let close = text
        .rfind(')')
        .ok_or_else(|| invalid("stat has no ')' closing the command name".to_owned()))?;
    let name = text.get(open + 1..close).unwrap_or_default().to_owned();
    let f = parse_stat_fields(text)?;
    Ok(ProcessCpu {
        pid,
        name,
        ticks: f.utime + f.stime,
        started: f.start,
        kernel_thread: f.flags & PF_KTHREAD != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn proc_stat_gives_idle_interrupts_steal_and_the_cores() {
        let text = "cpu  100 5 50 9000 40 3 2 1 7 0\ncpu0 50 2 25 4500 20 1 1 0 0 0\ncpu1 50 3 25 4500 20 2 1 1 7 0\nintr 1\n";
        let ticks = parse_proc_stat_ticks(text).unwrap();
        assert_eq!(
            ticks,
            MachineTicks {
                idle: 9040,
                irq: 3,
                softirq: 2,
                steal: 1,
                cores: 2
            }
        );
        // An old kernel's line without steal: none stolen.
        assert_eq!(
            parse_proc_stat_ticks("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n")
                .unwrap()
                .steal,
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
        let stat = "77 (postgres: x (y)) S 1 77 77 0 -1 4194560 1 2 3 4 1000 2000 5 6 20 0 1 0 555";
        let p = parse_process_cpu(77, stat).unwrap();
        assert_eq!(p.name, "postgres: x (y)");
        assert_eq!(p.ticks, 3000);
        assert_eq!(p.started, 555);
        assert!(!p.kernel_thread);
        let kthread = "9 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 0 14 0 0 20 0 1 0 3";
        assert!(parse_process_cpu(9, kthread).unwrap().kernel_thread);
    }

    #[test]
    fn the_busy_time_is_the_cores_wall_time_less_idle() {
        let at = Instant::now();
        let reading = |idle: u64, softirq: u64, at: Instant| MachineReading {
            ticks: MachineTicks {
                idle,
                softirq,
                irq: 0,
                steal: 4,
                cores: 2,
            },
            at,
        };
        let snapshot = |first: MachineReading, last: MachineReading| CpuSnapshot {
            first,
            last,
            processes: vec![],
            ticks_per_second: 100,
        };
        let before = snapshot(reading(1000, 10, at), reading(1000, 10, at));
        let later = at + Duration::from_millis(1500);
        let after = snapshot(reading(1100, 30, later), reading(1120, 35, later));
        // 2 cores x 1.5 s x 100 ticks = 300, less 120 idle.
        assert_eq!(
            after.machine_since(&before),
            MachineWindow {
                busy: 180,
                softirq: 25,
                irq: 0,
                steal: 0
            }
        );
    }

    #[test]
    fn a_pid_seen_again_with_another_start_counts_from_zero() {
        let p = |ticks: u64, started: u64| ProcessCpu {
            pid: 5,
            name: "x".into(),
            ticks,
            started,
            kernel_thread: false,
        };
        let reading = MachineReading::take().unwrap();
        let snapshot = |p: ProcessCpu| CpuSnapshot {
            first: reading,
            last: reading,
            processes: vec![p],
            ticks_per_second: 100,
        };
        let before = snapshot(p(500, 1));
        let same = snapshot(p(530, 1));
        let other = snapshot(p(20, 9));
        assert_eq!(same.ticks_since(&before, &same.processes[0]), 30);
        assert_eq!(other.ticks_since(&before, &other.processes[0]), 20);
    }
}
