//! Live figures of a process, read from Linux's `/proc`: how many OS threads it
//! runs, how much memory is resident, and how much CPU time it has used. The
//! one `/proc` reader of the workspace: the servers' `/metrics`, the bench's
//! sampler and the load generator's own CPU time all come from here.
//!
//! Both servers report these on `/metrics` (with the open files, their
//! limit and the start time: [`standard_figures_self`]), and the bench samples the server
//! under load with [`PeakSampler`] to fill seed 000's "Peak Thread Count" row.
//! Thread count is the number that tells a thread-per-request server from an
//! event loop, so it is read from the kernel rather than estimated. A
//! window's CPU is split from two [`CpuSnapshot`]s, in the way this
//! kernel's accounting allows ([`kernel_accounting`]). The machine's listen
//! overflows ([`listen_overflows`]) say when a server's backlog dropped
//! new connections.

mod cpu_snapshot;
mod kernel_accounting;
mod listen_overflows;
mod open_files;
mod parse;
mod peak_sampler;
mod sample;
mod standard_figures;

pub use cpu_snapshot::{
    parse_proc_stat_ticks, parse_process_cpu, CpuSnapshot, MachineReading, MachineTicks,
    MachineWindow, ProcessCpu,
};
pub use kernel_accounting::{accounting_from, kernel_accounting, IrqTime, KernelAccounting};
pub use listen_overflows::{listen_overflows, parse_listen_overflows};
pub use open_files::{open_fds, open_files_limit, parse_open_files_limit};
pub use peak_sampler::{PeakSampler, Peaks};
pub use sample::{cpu_times_self, sample, sample_self, CpuTimes, ProcessSample};
pub use standard_figures::{standard_figures_self, StandardFigures};
