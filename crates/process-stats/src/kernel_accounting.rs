//! Whether this kernel counts interrupt time inside the processes' own CPU
//! times, which decides how a window's CPU can be split without counting a
//! tick twice.
//!
//! A kernel built without `CONFIG_IRQ_TIME_ACCOUNTING` (tick-based
//! accounting) charges a tick that lands in a softirq or an interrupt to the
//! process it interrupted, in that process's system time, and to the
//! machine's softirq (or irq) field alike: the kernel moving a process's
//! loopback packets is, mostly, inside that process's time already. With
//! interrupt time accounting on, the kernel keeps that time out of every
//! process's and counts it only in the machine's fields.
//!
//! The kernel's build configuration says which (`/proc/config.gz`, or
//! `/boot/config-<release>`); `/proc/stat`'s irq field says whether it is
//! on (it stays 0 without it, and grows with every interrupt with it).

use std::io::Read as _;

/// Where the kernel counts time spent in softirqs and interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IrqTime {
    /// Inside the interrupted processes' own times (tick-based accounting).
    InProcessTimes,
    /// Kept apart: in no process's time, only in the machine's fields.
    Apart,
}

/// How this kernel accounts interrupt time, and how that is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAccounting {
    pub irq_time: IrqTime,
    /// False when it could not be told and [`IrqTime::InProcessTimes`] was
    /// assumed: softirq then counts in "everything else", which may call a
    /// quiet window busy but never a busy one quiet.
    pub known: bool,
    /// How it was told, in a sentence's words.
    pub basis: String,
}

/// This kernel's accounting, from its configuration, its command line and
/// `/proc/stat`.
pub fn kernel_accounting() -> KernelAccounting {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let boot = format!("/boot/config-{}", release.trim());
    let config = read_config_gz("/proc/config.gz")
        .map(|text| (text, "/proc/config.gz".to_owned()))
        .or_else(|| std::fs::read_to_string(&boot).ok().map(|text| (text, boot)));
    let irq_ticks = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|text| crate::parse_proc_stat_ticks(&text).ok())
        .map(|t| t.irq);
    let cmdline = std::fs::read_to_string("/proc/cmdline").unwrap_or_default();
    accounting_from(
        config
            .as_ref()
            .map(|(text, from)| (text.as_str(), from.as_str())),
        irq_ticks,
        &cmdline,
    )
}

/// The text of a gzipped kernel configuration, `None` when it cannot be read.
fn read_config_gz(path: &str) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The value of `option` in a kernel configuration: `Some("y")`, or `None`
/// when it is not set.
fn config_value<'a>(config: &'a str, option: &str) -> Option<&'a str> {
    config.lines().find_map(|line| {
        line.strip_prefix(option)
            .and_then(|rest| rest.strip_prefix('='))
    })
}

/// The accounting given the kernel's configuration and where it was read
/// (`None`: unreadable), the irq ticks `/proc/stat` has counted since boot,
/// and the kernel's command line.
pub fn accounting_from(
    config: Option<(&str, &str)>,
    irq_ticks: Option<u64>,
    cmdline: &str,
) -> KernelAccounting {
    let known = |irq_time, basis: String| KernelAccounting {
        irq_time,
        known: true,
        basis,
    };
    let assumed = |basis: String| KernelAccounting {
        irq_time: IrqTime::InProcessTimes,
        known: false,
        basis: format!("{basis}; assumed inside the processes' times"),
    };
    let counted_irq = irq_ticks.is_some_and(|n| n > 0);
    let Some((config, from)) = config else {
        return if irq_ticks == Some(0) {
            known(
                IrqTime::InProcessTimes,
                "no kernel configuration readable, but /proc/stat has counted no interrupt time since boot, as a kernel without interrupt time accounting".to_owned(),
            )
        } else {
            assumed(
                "no kernel configuration readable, and /proc/stat counts interrupt time".to_owned(),
            )
        };
    };
    if config_value(config, "CONFIG_VIRT_CPU_ACCOUNTING_NATIVE") == Some("y")
        || (config_value(config, "CONFIG_VIRT_CPU_ACCOUNTING_GEN") == Some("y")
            && cmdline.contains("nohz_full="))
    {
        return assumed(format!(
            "the kernel accounts CPU time at every context switch ({from})"
        ));
    }
    if config_value(config, "CONFIG_IRQ_TIME_ACCOUNTING") != Some("y") {
        return known(
            IrqTime::InProcessTimes,
            format!("CONFIG_IRQ_TIME_ACCOUNTING is not set ({from})"),
        );
    }
    if cmdline.contains("tsc=noirqtime") || !counted_irq {
        return known(
            IrqTime::InProcessTimes,
            format!("CONFIG_IRQ_TIME_ACCOUNTING is set ({from}) but off: /proc/stat has counted no interrupt time since boot"),
        );
    }
    known(
        IrqTime::Apart,
        format!("CONFIG_IRQ_TIME_ACCOUNTING is set ({from}) and /proc/stat counts interrupt time"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: &str = "CONFIG_TICK_CPU_ACCOUNTING=y\n# CONFIG_VIRT_CPU_ACCOUNTING_GEN is not set\n# CONFIG_IRQ_TIME_ACCOUNTING is not set\n";
    const IRQ: &str = "CONFIG_TICK_CPU_ACCOUNTING=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n";

    #[test]
    fn the_configuration_says_whether_interrupt_time_is_apart() {
        let a = accounting_from(Some((TICK, "/proc/config.gz")), Some(0), "");
        assert_eq!(a.irq_time, IrqTime::InProcessTimes);
        assert!(a.known);
        assert_eq!(
            a.basis,
            "CONFIG_IRQ_TIME_ACCOUNTING is not set (/proc/config.gz)"
        );
        let a = accounting_from(Some((IRQ, "/boot/config-6.1")), Some(5_000), "");
        assert_eq!((a.irq_time, a.known), (IrqTime::Apart, true));
        // Built in but off at boot: /proc/stat counts no interrupt time.
        let a = accounting_from(Some((IRQ, "/boot/config-6.1")), Some(0), "");
        assert_eq!((a.irq_time, a.known), (IrqTime::InProcessTimes, true));
        let a = accounting_from(Some((IRQ, "x")), Some(9), "quiet tsc=noirqtime");
        assert_eq!(a.irq_time, IrqTime::InProcessTimes);
    }

    #[test]
    fn without_a_configuration_it_is_told_from_proc_stat_or_assumed() {
        let a = accounting_from(None, Some(0), "");
        assert_eq!((a.irq_time, a.known), (IrqTime::InProcessTimes, true));
        let a = accounting_from(None, Some(40), "");
        assert_eq!((a.irq_time, a.known), (IrqTime::InProcessTimes, false));
        assert!(
            a.basis.ends_with("assumed inside the processes' times"),
            "{}",
            a.basis
        );
        let a = accounting_from(None, None, "");
        assert!(!a.known);
    }

    #[test]
    fn this_kernel_is_read() {
        // Whatever it is, it says how it knows.
        let a = kernel_accounting();
        assert!(!a.basis.is_empty());
    }
}
