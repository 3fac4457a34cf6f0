//! What a run needs before its first group, checked against the machine
//! with the plan's values: the servers given by URL answer, the Java
//! servers build (or their groups are skipped, with what to install),
//! Postgres and Redis are found for the servers bench starts (or the
//! groups that need them are skipped); then how each column's server is
//! launched, and the settings results.json records.

use std::path::Path;

use anyhow::Context;

use super::launch::{check_given_servers, Launch};
use super::{calibration, services};
use crate::plan::{GroupPlan, RunPlan};
use bench_model::{CpuAccounting, IrqTime, RunSettings, SkippedGroup};

/// The plan's groups as this machine can run them, how their servers are
/// launched, the settings they run with, and everything skipped.
pub(super) struct Prepared {
    pub(super) groups: Vec<GroupPlan>,
    pub(super) launch: Launch,
    pub(super) settings: RunSettings,
    pub(super) skipped: Vec<SkippedGroup>,
    /// How this kernel's CPU time is split without counting a tick twice.
    pub(super) cpu_accounting: CpuAccounting,
}

/// Checks the servers given by URL before anything starts, builds the Java
/// servers, finds Postgres and Redis when a server bench starts needs
/// them, and makes `dir/logs` for the servers' logs.
pub(super) fn prepare(plan: &RunPlan, dir: &Path) -> anyhow::Result<Prepared> {
    let mut settings = plan.settings.clone();
    let (blocking_external, async_external) = check_given_servers(&plan.servers, &mut settings)?;
    let mut groups = plan.groups.clone();
    let (java, java_skipped) = calibration::prepare_java(plan, &mut groups, &mut settings);
    let needs_ours = groups
        .iter()
        .flat_map(|g| &g.group.columns)
        .any(|c| plan.servers.url_of(c.target).is_none());
    let (services, mut skipped) = if needs_ours {
        services::find_services(&mut groups)?
    } else {
        (Vec::new(), Vec::new())
    };
    skipped.extend(plan.skipped.iter().cloned());
    skipped.extend(java_skipped);
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let cpu_accounting = crate::measure::machine::cpu_accounting();
    let launch = Launch {
        services,
        servers: plan.servers.clone(),
        java,
        blocking_external,
        async_external,
        logs,
        set_up: Default::default(),
        proxy_pids: Vec::new(),
        postgres_proxy_stats: None,
        irq_apart: cpu_accounting.irq_time == IrqTime::Apart,
    };
    Ok(Prepared {
        groups,
        launch,
        settings,
        skipped,
        cpu_accounting,
    })
}
