//! The CPU split on real work, not on fixed /proc texts: a real server
//! (`bench serve async`) under a network-heavy load (a closed loop on
//! `/health` over loopback, the baseline group's) from the load generator
//! in this process, its windows split as bench splits them.
//!
//! - In every window the named parts but steal (which can fall in idle
//!   time) sum to at most the machine's busy time plus two ticks per part:
//!   no tick is counted twice. (Counting the
//!   kernel's softirq time as a part of its own, on a kernel whose process
//!   times already hold it, failed this.)
//! - A hog of about a third of a core (a child spinning 10 ms in every 30)
//!   beside that load shows in "everything else" within 0.1 of a core of
//!   the CPU its own /proc says it used, and the quiet check flags every
//!   window not quiet. Other helpers' builds may run on this machine too:
//!   their live processes are measured and taken out of "everything else"
//!   before it is compared with the hog, and the processes that exit
//!   within a window (a build's compilers) only add to it, so the lower
//!   bound holds whatever runs beside; the upper bound is checked in the
//!   windows where no process started or exited.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bench::measure::cpu_account::{cpu_use, window_ticks, Parts};
use bench_model::{IrqTime, WindowTicks, THRESHOLDS};
use process_stats::CpuSnapshot;

const WINDOW: Duration = Duration::from_secs(3);
const WINDOWS: usize = 3;
/// The hog helper runs while this variable is set.
const HOG: &str = "BENCH_TEST_CPU_HOG";

/// A closed loop on `/health` of the server at `addr`, for `length`, on
/// this process's threads.
fn network_load(addr: std::net::SocketAddr, length: Duration) -> std::thread::JoinHandle<()> {
    let plan = loadgen::Plan::builder(format!("http://{addr}/health"))
        .load(loadgen::LoadModel::Closed {
            connections: 32,
            stop: loadgen::StopAt::Duration(length),
        })
        .threads(2)
        .build()
        .unwrap();
    std::thread::spawn(move || {
        loadgen::run_blocking(&plan).unwrap();
    })
}

/// Whether this kernel keeps softirq time out of process times, as bench
/// takes it.
fn irq_apart() -> bool {
    bench::measure::machine::cpu_accounting().irq_time == IrqTime::Apart
}

/// One measured window: the snapshots around it and bench's split of it.
struct Window {
    before: CpuSnapshot,
    after: CpuSnapshot,
    ticks: WindowTicks,
    /// Forks since boot (/proc/stat's `processes`) at its start and end.
    forks: (u64, u64),
}

fn forks() -> u64 {
    std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("processes "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// `WINDOWS` windows of `WINDOW` each, split among the server and this
/// process (the load generator), after a lead for the load to settle.
fn windows(server_pid: u32) -> Vec<Window> {
    std::thread::sleep(Duration::from_millis(300));
    let parts = Parts {
        server_pid: Some(server_pid),
        bench_pid: std::process::id(),
        proxy_pids: &[],
        irq_apart: irq_apart(),
    };
    (0..WINDOWS)
        .map(|_| {
            let forks_before = forks();
            let before = CpuSnapshot::take().unwrap();
            std::thread::sleep(WINDOW);
            let after = CpuSnapshot::take().unwrap();
            let forks_after = forks();
            let ticks = window_ticks(&before, &after, parts);
            Window {
                before,
                after,
                ticks,
                forks: (forks_before, forks_after),
            }
        })
        .collect()
}

#[test]
fn named_parts_add_up_to_at_most_the_busy_time_under_a_real_load() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let server = crate::common::start_server("async", &["--skip-setup".to_owned()]);
    let load = network_load(server.addr(), WINDOW * (WINDOWS as u32 + 1));
    let measured = windows(server.pid());
    load.join().unwrap();
    let mut softirq = 0;
    for w in &measured {
        let t = &w.ticks;
        eprintln!(
            "busy {} ticks; named {} ({:?}); softirq {}, of which a part: {}; kernel threads {}",
            t.busy,
            t.named(),
            t.parts(),
            t.softirq,
            t.irq_apart,
            t.kernel_threads
        );
        assert!(t.server > 0 && t.load_generator > 0, "{t:?}");
        assert_eq!(
            t.excess(),
            None,
            "the named parts but steal sum to more than the busy time plus {} ticks: {t:?}",
            t.allowance()
        );
        softirq += t.softirq;
    }
    // The load was one that makes softirq time: what the sum is about.
    assert!(softirq > 0, "no softirq time under a loopback load");
}

/// The hog's child process, killed on drop.
struct Hog(Child);

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// This test binary again, running only [`hog_helper`]: a process apart,
/// which no part of the split names.
fn start_hog() -> Hog {
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "cpu_accounting::hog_helper",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .env(HOG, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Hog(child)
}

/// The hog: spins 10 ms in every 30, about a third of a core, for at most
/// a minute; does nothing unless the hog test started it.
#[test]
#[ignore = "a helper process of the hog test, which starts it"]
fn hog_helper() {
    if std::env::var_os(HOG).is_none() {
        return;
    }
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        let spin = Instant::now();
        while spin.elapsed() < Duration::from_millis(10) {
            std::hint::spin_loop();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ticks the live processes of `w` that no part names and that are not
/// the hog used in the window: other helpers' builds, kernel threads.
fn others_live(w: &Window, named: &[u32], hog: u32) -> u64 {
    w.after
        .processes
        .iter()
        .filter(|p| p.pid != hog && !named.contains(&p.pid))
        .filter(|p| p.name != "postgres" && p.name != "redis-server")
        .map(|p| w.after.ticks_since(&w.before, p))
        .sum()
}

#[test]
fn a_hog_beside_a_network_load_shows_in_everything_else_and_the_window_is_not_quiet() {
    // It loads the machine: no other such test, and none that times, beside it.
    let _machine = harness::exclusive();
    let server = crate::common::start_server("async", &["--skip-setup".to_owned()]);
    let hog = start_hog();
    let load = network_load(server.addr(), WINDOW * (WINDOWS as u32 + 1));
    let measured = windows(server.pid());
    load.join().unwrap();
    let hog_pid = hog.0.id();
    let named = [server.pid(), std::process::id()];
    let tenth_of_a_core = (0.1 * WINDOW.as_secs_f64() * 100.0).round() as i64;
    let mut rounds = Vec::new();
    for (i, w) in measured.iter().enumerate() {
        let t = &w.ticks;
        let hog_process = w.after.process(hog_pid).expect("the hog is running");
        let hog_ticks = w.after.ticks_since(&w.before, hog_process) as i64;
        let others = others_live(w, &named, hog_pid) as i64;
        let other = t.other() as i64;
        eprintln!("window {i}: everything else {other} ticks, of which live others {others}; the hog used {hog_ticks}; forks {:?}", w.forks);
        assert!(hog_ticks > 0);
        assert_eq!(t.excess(), None, "{t:?}");
        // The hog's CPU is in everything else, within 0.1 of a core.
        assert!(
            other - others >= hog_ticks - tenth_of_a_core,
            "window {i}: everything else less other live processes, {} ticks, is under the hog's {hog_ticks} by more than 0.1 core: {t:?}",
            other - others
        );
        // Where nothing started or exited, nothing else is in it either.
        let gone = w.before.processes.iter().any(|p| {
            w.after
                .process(p.pid)
                .is_none_or(|q| q.started != p.started)
        });
        if w.forks.0 == w.forks.1 && !gone {
            assert!(
                other - others <= hog_ticks + tenth_of_a_core,
                "window {i}: {t:?}"
            );
        }
        let mut round = bench_model::fixtures::round(i as u32 + 1, 1000.0, 1.0, 10);
        round.cpu = cpu_use(*t, WINDOW.as_secs_f64());
        rounds.push(round);
    }
    // bench's quiet check flags every window, the hog's among the columns.
    let mut column = bench_model::fixtures::steady("async-health", "async", 1000.0, 1.0, 10);
    column.rounds = rounds;
    let results = bench_model::fixtures::results(vec![bench_model::fixtures::group(
        "baseline",
        vec![column],
    )]);
    let busy = bench_analysis::findings::busy_windows(&results, &THRESHOLDS);
    assert_eq!(busy.len(), WINDOWS, "windows not flagged: {busy:?}");
    let quiet = bench_report::lines::quiet_line(&results, &THRESHOLDS);
    assert!(
        quiet.starts_with("WARNING: the machine was not quiet"),
        "{quiet}"
    );
    drop(hog);
}
