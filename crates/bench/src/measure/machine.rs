//! The machine a run happened on, read from /proc, how its kernel accounts
//! CPU time, and the source it was built from, read from git, so two
//! reports can be compared.

use std::process::Command;

use bench_model::{CpuAccounting, IrqTime, Machine, Source};

/// How this kernel accounts interrupt time, as results.json records it.
pub fn cpu_accounting() -> CpuAccounting {
    let k = process_stats::kernel_accounting();
    CpuAccounting {
        irq_time: match k.irq_time {
            process_stats::IrqTime::InProcessTimes => IrqTime::InProcessTimes,
            process_stats::IrqTime::Apart => IrqTime::Apart,
        },
        known: k.known,
        basis: k.basis,
    }
}

/// The commit of the checkout bench was built from, and whether it had
/// uncommitted changes to tracked files; `None` without git or a checkout
/// (a binary copied elsewhere).
pub fn source() -> Option<Source> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "HEAD"]).filter(|c| !c.is_empty())?;
    let changes = git(&["status", "--porcelain", "--untracked-files=no"])?;
    Some(Source {
        commit,
        uncommitted_changes: !changes.is_empty(),
    })
}

pub fn describe() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_bytes = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0);
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let load_average_at_start = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    Machine {
        load_average_at_start,
        cores: server_settings::cores(),
        cpu_model,
        memory_bytes,
        os: format!("Linux {}", release.trim()),
    }
}
