//! Where the machine's CPU went during one measured window: the server, bench
//! (which runs the load generator), Postgres, Redis, the proxies in front of
//! them when a group has any, the kernel's softirqs, time the hypervisor
//! stole, and everything else, from two [`CpuSnapshot`]s taken around the
//! window.
//!
//! "Everything else" is the machine's busy time minus the named parts:
//! other programs, kernel threads, a build someone started. It is what tells
//! a quiet machine from a busy one; the load average cannot, because the
//! blocking server's 200 threads under load raise it past 50 on their own.
//! Softirqs are not in it: they are mostly the kernel moving the load's own
//! loopback packets, which no process's time counts (a quarter of a core
//! and more under a /health load on a 2-core VM). Nor is steal: on a
//! virtual machine whose host is busy the hypervisor takes time from every
//! process alike; the report says so apart.

use process_stats::CpuSnapshot;

use bench_model::CpuUse;

/// The processes a window's CPU is split among.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    /// The measured server, when bench started it.
    pub server_pid: Option<u32>,
    /// bench itself.
    pub bench_pid: u32,
    /// The proxies in front of Postgres and Redis (`bench proxy` children).
    pub proxy_pids: &'a [u32],
}

/// Command names (as /proc/<pid>/stat spells them) of the databases.
const POSTGRES: &str = "postgres";
const REDIS: &str = "redis-server";

/// Ticks `pid` used between the snapshots; a process that started within
/// the window counts from zero.
fn delta(before: &CpuSnapshot, after: &CpuSnapshot, pid: u32) -> u64 {
    let end = after.ticks_of(pid).unwrap_or(0);
    end.saturating_sub(before.ticks_of(pid).unwrap_or(0))
}

/// Ticks used between the snapshots by every process called `name`. A process
/// that exited within the window is not in `after`, so its last ticks land in
/// "everything else"; pooled database connections live across windows.
fn delta_named(before: &CpuSnapshot, after: &CpuSnapshot, name: &str) -> u64 {
    after
        .processes
        .iter()
        .filter(|p| p.name == name)
        .map(|p| delta(before, after, p.pid))
        .sum()
}

/// Splits the CPU time between `before` and `after` among `parts`.
pub fn account(
    before: &CpuSnapshot,
    after: &CpuSnapshot,
    parts: Parts<'_>,
    window_seconds: f64,
) -> CpuUse {
    let hz = after.ticks_per_second.max(1) as f64;
    let server = parts.server_pid.map_or(0, |pid| delta(before, after, pid));
    let bench = delta(before, after, parts.bench_pid);
    let postgres = delta_named(before, after, POSTGRES);
    let redis = delta_named(before, after, REDIS);
    let proxies: u64 = parts
        .proxy_pids
        .iter()
        .map(|&pid| delta(before, after, pid))
        .sum();
    let busy = after.busy_ticks.saturating_sub(before.busy_ticks);
    let softirq = after.softirq_ticks.saturating_sub(before.softirq_ticks);
    let steal = after.steal_ticks.saturating_sub(before.steal_ticks);
    // Per-process and machine ticks are read at slightly different instants,
    // so the remainder can dip below zero by a tick or two: clamp it.
    let other = busy.saturating_sub(server + bench + postgres + redis + proxies + softirq + steal);
    CpuUse {
        window_seconds,
        server_seconds: server as f64 / hz,
        load_generator_seconds: bench as f64 / hz,
        postgres_seconds: postgres as f64 / hz,
        redis_seconds: redis as f64 / hz,
        proxy_seconds: proxies as f64 / hz,
        softirq_seconds: softirq as f64 / hz,
        stolen_seconds: steal as f64 / hz,
        other_seconds: other as f64 / hz,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use process_stats::{parse_proc_stat_ticks, parse_process_cpu};

    /// A snapshot from fixed /proc texts: the /proc/stat text and (pid, stat line) pairs.
    fn snapshot(stat: &str, procs: &[(u32, &str)]) -> CpuSnapshot {
        let machine = parse_proc_stat_ticks(stat).unwrap();
        CpuSnapshot {
            busy_ticks: machine.busy,
            softirq_ticks: machine.softirq,
            steal_ticks: machine.steal,
            processes: procs
                .iter()
                .map(|(pid, text)| parse_process_cpu(*pid, text).unwrap())
                .collect(),
            ticks_per_second: 100,
        }
    }

    fn stat_line(pid: u32, name: &str, utime: u64, stime: u64) -> String {
        format!("{pid} ({name}) S 1 1 1 0 -1 0 0 0 0 0 {utime} {stime} 0 0 20 0 1 0")
    }

    #[test]
    fn window_cpu_is_split_among_server_bench_databases_and_the_rest() {
        let before_lines = [
            stat_line(10, "bench", 100, 0),
            stat_line(11, "bench", 5, 0),
            stat_line(20, "postgres", 50, 10),
            stat_line(21, "postgres", 7, 0),
            stat_line(30, "redis-server", 3, 3),
            stat_line(40, "cc1plus", 1000, 0),
            stat_line(50, "bench", 0, 0),
        ];
        let after_lines = [
            stat_line(10, "bench", 160, 20),     // bench: +80
            stat_line(11, "bench", 105, 45),     // the server: +145
            stat_line(20, "postgres", 60, 10),   // +10
            stat_line(22, "postgres", 4, 1),     // a new backend: +5 from zero
            stat_line(30, "redis-server", 4, 3), // +1
            stat_line(40, "cc1plus", 1090, 0),   // a compiler: lands in "else"
            stat_line(50, "bench", 12, 8),       // the proxy: +20
        ];
        let pairs = |lines: &[String]| -> Vec<(u32, String)> {
            lines
                .iter()
                .map(|l| (l.split(' ').next().unwrap().parse().unwrap(), l.clone()))
                .collect()
        };
        let (b, a) = (pairs(&before_lines), pairs(&after_lines));
        fn refs(v: &[(u32, String)]) -> Vec<(u32, &str)> {
            v.iter().map(|(p, s)| (*p, s.as_str())).collect()
        }
        let before = snapshot("cpu  1000 0 500 90000 10 0 0 0 0 0\n", &refs(&b));
        // Busy +380 ticks: user +320, system +30, softirq +10, steal +20;
        // idle and iowait do not count.
        let after = snapshot("cpu  1320 0 530 90400 99 0 10 20 0 0\n", &refs(&a));
        let use_ = account(
            &before,
            &after,
            Parts {
                server_pid: Some(11),
                bench_pid: 10,
                proxy_pids: &[50],
            },
            2.0,
        );
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
                // The compiler's share: neither the softirqs nor the steal.
                other_seconds: 0.89,
            }
        );
        assert!((use_.other_cores() - 0.445).abs() < 1e-9);
        assert!((use_.stolen_cores() - 0.10).abs() < 1e-9);
    }

    #[test]
    fn other_never_goes_below_zero_and_an_unowned_server_counts_nothing() {
        let p = |t: u64| stat_line(10, "bench", t, 0);
        let (l1, l2) = (p(0), p(50));
        let before = snapshot("cpu  0 0 0 0 0 0 0 0\n", &[(10, &l1)]);
        let after = snapshot("cpu  48 0 0 0 0 0 0 0\n", &[(10, &l2)]);
        let use_ = account(
            &before,
            &after,
            Parts {
                server_pid: None,
                bench_pid: 10,
                proxy_pids: &[],
            },
            1.0,
        );
        assert_eq!(use_.other_seconds, 0.0);
        assert_eq!(use_.server_seconds, 0.0);
        assert_eq!(use_.load_generator_seconds, 0.5);
    }
}
