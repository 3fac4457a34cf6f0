//! What a run needs before its first group, checked against the machine
//! with the plan's values: the servers given by URL answer, the Java
//! servers build (or their groups are skipped, with what to install),
//! Postgres and Redis are found for the servers bench starts (or the
//! groups that need them are skipped); then how each column's server is
//! launched, and the settings results.json records.

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Context;

use super::launch::{external_target, Launch};
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
    let servers = &plan.servers;
    let blocking_external = external_target(&servers.blocking_url, "blocking")?;
    let async_external = external_target(&servers.async_url, "async")?;
    let mut groups = plan.groups.clone();
    let (java, java_skipped) = calibration::prepare_java(&plan.java, &mut groups);
    let needs_ours = groups
        .iter()
        .flat_map(|g| &g.group.columns)
        .any(|c| servers.url_of(c.target).is_none());
    let (services, mut skipped) = if needs_ours {
        services::find_services(&mut groups)?
    } else {
        (Vec::new(), Vec::new())
    };
    skipped.extend(plan.skipped.iter().cloned());
    skipped.extend(java_skipped);
    let mut settings = plan.settings.clone();
    record_targets(&mut settings, blocking_external, async_external);
    settings.jvm = java
        .as_ref()
        .map(|java| calibration::jvm_settings(java, &plan.load));
    let java_args = calibration::java_args(java.as_ref(), &settings, &services);
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let cpu_accounting = crate::measure::machine::cpu_accounting();
    let launch = Launch {
        services,
        servers: servers.clone(),
        java_args,
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

/// Which servers bench started and which answered at a URL given, into
/// `settings`: a server given by URL is recorded at the address it answered.
fn record_targets(
    settings: &mut RunSettings,
    blocking: Option<SocketAddr>,
    asynchronous: Option<SocketAddr>,
) {
    let url = |a: Option<SocketAddr>| a.map(|a| format!("http://{a}"));
    let (blocking, asynchronous) = (url(blocking), url(asynchronous));
    if blocking.is_none() && asynchronous.is_none() {
        return;
    }
    let ours = || "started by bench".to_owned();
    settings.targets = format!(
        "blocking {}, async {}",
        blocking.clone().unwrap_or_else(ours),
        asynchronous.clone().unwrap_or_else(ours)
    );
    settings.server_figures_from = Some("/metrics (servers bench did not start)".to_owned());
    settings.blocking_url = blocking;
    settings.async_url = asynchronous;
}
