//! Where the machine's CPU went during one measured window: the server,
//! bench (which runs the load generator), Postgres, Redis, the proxies in
//! front of them when a group has any, time the hypervisor stole, and
//! everything else, from two [`CpuSnapshot`]s taken around the window.
//! Each tick is counted once, in the way this kernel accounts it
//! ([`process_stats::kernel_accounting`]).
//!
//! "Everything else" is the machine's busy time less the named parts:
//! other programs, kernel threads, a build someone started. It is what
//! tells a quiet machine from a busy one; the load average cannot, because
//! the blocking server's 200 threads under load raise it past 50 on their
//! own.
//!
//! Softirq is the kernel moving packets, the load's loopback ones mostly.
//! On a kernel without interrupt time accounting (tick-based) a tick in a
//! softirq is charged to the process it interrupted as well as to the
//! machine's softirq field, so most of it is inside the named parts
//! already: it is shown as "of which", never subtracted again (doing so
//! made the parts add up to more than the machine had). On a kernel that
//! keeps interrupt time apart, softirq and irq are parts of their own.
//! Steal is in no process's time on either: the hypervisor took it, and
//! the report says so apart. It is not always inside the busy time either
//! (a woken core waiting for the host is idle in the guest's clock), so
//! the parts held to the busy time are all but steal
//! ([`bench_model::WindowTicks::in_busy`]).

use process_stats::{CpuSnapshot, ProcessCpu};

use bench_model::{CpuUse, WindowTicks};

/// The processes a window's CPU is split among, and how.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    /// The measured server, when bench started it.
    pub server_pid: Option<u32>,
    /// bench itself.
    pub bench_pid: u32,
    /// The proxies in front of Postgres and Redis (`bench proxy` children).
    pub proxy_pids: &'a [u32],
    /// Whether the kernel keeps softirq and irq time out of process times,
    /// making them parts of their own.
    pub irq_apart: bool,
}

/// Command names (as /proc/<pid>/stat spells them) of the databases.
const POSTGRES: &str = "postgres";
const REDIS: &str = "redis-server";

/// Ticks the processes of `after` that `pick` picks used since `before`. A
/// process that exited within the window is not in `after`, so its last
/// ticks land in "everything else"; pooled database connections live
/// across windows.
fn delta_of(before: &CpuSnapshot, after: &CpuSnapshot, pick: impl Fn(&ProcessCpu) -> bool) -> u64 {
    after
        .processes
        .iter()
        .filter(|p| pick(p))
        .map(|p| after.ticks_since(before, p))
        .sum()
}

/// The window between `before` and `after` in clock ticks, split among `parts`.
pub fn window_ticks(before: &CpuSnapshot, after: &CpuSnapshot, parts: Parts<'_>) -> WindowTicks {
    let pid = |pid: Option<u32>| delta_of(before, after, |p| Some(p.pid) == pid);
    let machine = after.machine_since(before);
    WindowTicks {
        per_second: after.ticks_per_second.max(1),
        busy: machine.busy,
        server: pid(parts.server_pid),
        load_generator: pid(Some(parts.bench_pid)),
        postgres: delta_of(before, after, |p| p.name == POSTGRES),
        redis: delta_of(before, after, |p| p.name == REDIS),
        proxies: delta_of(before, after, |p| parts.proxy_pids.contains(&p.pid)),
        stolen: machine.steal,
        softirq: machine.softirq,
        irq: machine.irq,
        irq_apart: parts.irq_apart,
        kernel_threads: delta_of(before, after, |p| p.kernel_thread),
    }
}

/// Splits the CPU time between `before` and `after` among `parts`.
pub fn account(
    before: &CpuSnapshot,
    after: &CpuSnapshot,
    parts: Parts<'_>,
    window_seconds: f64,
) -> CpuUse {
    cpu_use(window_ticks(before, after, parts), window_seconds)
}

/// A window's ticks in seconds, the ticks kept.
pub fn cpu_use(t: WindowTicks, window_seconds: f64) -> CpuUse {
    let s = |ticks: u64| ticks as f64 / t.per_second as f64;
    CpuUse {
        window_seconds,
        server_seconds: s(t.server),
        load_generator_seconds: s(t.load_generator),
        postgres_seconds: s(t.postgres),
        redis_seconds: s(t.redis),
        proxy_seconds: s(t.proxies),
        softirq_seconds: s(t.softirq),
        stolen_seconds: s(t.stolen),
        other_seconds: s(t.other()),
        ticks: Some(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use process_stats::{parse_proc_stat_ticks, parse_process_cpu, MachineReading};
    use std::time::{Duration, Instant};

    /// A snapshot from fixed /proc texts, `/proc/stat` read `at`: the
    /// /proc/stat text and the processes' stat lines.
    fn snapshot(stat: &str, lines: &[String], at: Instant) -> CpuSnapshot {
        let reading = MachineReading {
            ticks: parse_proc_stat_ticks(stat).unwrap(),
            at,
        };
        CpuSnapshot {
            first: reading,
            last: reading,
            processes: lines
                .iter()
                .map(|l| {
                    parse_process_cpu(l.split(' ').next().unwrap().parse().unwrap(), l).unwrap()
                })
                .collect(),
            ticks_per_second: 100,
        }
    }

    fn stat_line(pid: u32, name: &str, utime: u64, stime: u64) -> String {
        format!("{pid} ({name}) S 1 1 1 0 -1 0 0 0 0 0 {utime} {stime} 0 0 20 0 1 0 7")
    }

    const PARTS: Parts<'static> = Parts {
        server_pid: Some(11),
        bench_pid: 10,
        proxy_pids: &[50],
        irq_apart: false,
    };

    /// A 2-s window on 2 cores (400 ticks): idle +20, so 380 busy, of which
    /// softirq +10, irq +4 and steal +20.
    fn window(irq_apart: bool) -> CpuUse {
        let at = Instant::now();
        let before = [
            stat_line(10, "bench", 100, 0),
            stat_line(11, "bench", 5, 0),
            stat_line(20, "postgres", 50, 10),
            stat_line(21, "postgres", 7, 0),
            stat_line(30, "redis-server", 3, 3),
            stat_line(40, "cc1plus", 1000, 0),
            stat_line(50, "bench", 0, 0),
        ];
        let after = [
            stat_line(10, "bench", 160, 20),     // bench: +80
            stat_line(11, "bench", 105, 45),     // the server: +145
            stat_line(20, "postgres", 60, 10),   // +10
            stat_line(22, "postgres", 4, 1),     // a new backend: +5 from zero
            stat_line(30, "redis-server", 4, 3), // +1
            stat_line(40, "cc1plus", 1090, 0),   // a compiler: lands in "else"
            stat_line(50, "bench", 12, 8),       // the proxy: +20
        ];
        let before = snapshot(
            "cpu  1000 0 500 90000 10 0 0 0 0 0\ncpu0 0\ncpu1 0\n",
            &before,
            at,
        );
        let after = snapshot(
            "cpu  1320 0 530 90015 15 4 10 20 0 0\ncpu0 0\ncpu1 0\n",
            &after,
            at + Duration::from_secs(2),
        );
        account(&before, &after, Parts { irq_apart, ..PARTS }, 2.0)
    }

    #[test]
    fn window_cpu_is_split_among_server_bench_databases_and_the_rest() {
        let use_ = window(false);
        let ticks = use_.ticks.unwrap();
        assert_eq!(
            use_,
            CpuUse {
                window_seconds: 2.0,
                server_seconds: 1.45,
                load_generator_seconds: 0.80,
                postgres_seconds: 0.15,
                redis_seconds: 0.01,
                proxy_seconds: 0.20,
                softirq_seconds: 0.10,
                stolen_seconds: 0.20,
                // 380 busy less 281 named (steal included): the compiler's
                // share and the rest. The softirq is inside the processes'
                // times on this kernel: not subtracted again.
                other_seconds: 0.99,
                ticks: Some(ticks),
            }
        );
        assert_eq!(
            (
                ticks.busy,
                ticks.named(),
                ticks.in_busy(),
                ticks.allowance()
            ),
            (380, 281, 261, 10)
        );
        assert_eq!(ticks.excess(), None);
        assert!((use_.other_cores() - 0.495).abs() < 1e-9);
        assert!((use_.stolen_cores() - 0.10).abs() < 1e-9);
    }

    #[test]
    fn where_the_kernel_keeps_interrupt_time_apart_softirq_and_irq_are_parts() {
        let use_ = window(true);
        // 380 - 281 - 10 softirq - 4 irq.
        assert!((use_.other_seconds - 0.85).abs() < 1e-9, "{use_:?}");
        assert!(!use_.ticks.unwrap().parts().is_empty());
        assert_eq!(use_.ticks.unwrap().allowance(), 14);
    }

    #[test]
    fn steal_that_fell_in_idle_time_is_not_a_double_count_but_a_process_is() {
        // A window of a bench test on a busy host: the host took 28 ticks
        // while the guest counted 32 busy; the processes ran 19.
        let window = WindowTicks {
            per_second: 100,
            busy: 32,
            server: 12,
            load_generator: 5,
            postgres: 2,
            stolen: 28,
            softirq: 1,
            ..WindowTicks::default()
        };
        assert_eq!((window.named(), window.in_busy()), (47, 19));
        assert_eq!(window.excess(), None);
        assert_eq!(window.other(), 0);
        // Processes that ran more than the busy time still show: 43 ticks
        // against 32 and 10 allowed.
        let twice = WindowTicks {
            server: 36,
            ..window
        };
        assert_eq!(twice.excess(), Some(1));
    }

    #[test]
    fn other_never_goes_below_zero_and_an_unowned_server_counts_nothing() {
        let at = Instant::now();
        let before = snapshot(
            "cpu  0 0 0 0 0 0 0 0\ncpu0 0\n",
            &[stat_line(10, "bench", 0, 0)],
            at,
        );
        // 1 core, 0.48 s, no idle: 48 busy; bench read 50, two ticks over.
        let after = snapshot(
            "cpu  48 0 0 0 0 0 0 0\ncpu0 0\n",
            &[stat_line(10, "bench", 50, 0)],
            at + Duration::from_millis(480),
        );
        let parts = Parts {
            server_pid: None,
            bench_pid: 10,
            proxy_pids: &[],
            irq_apart: false,
        };
        let use_ = account(&before, &after, parts, 1.0);
        assert_eq!(use_.other_seconds, 0.0);
        assert_eq!(use_.server_seconds, 0.0);
        assert_eq!(use_.load_generator_seconds, 0.5);
        // Within two ticks per part of the busy time: it adds up.
        assert_eq!(use_.ticks.unwrap().excess(), None);
    }
}
