//! One bench run from start to end, carrying out its plan
//! ([`crate::plan::RunPlan`]) in named steps: check against the machine
//! what the plan cannot know ([`prepare`]: the servers given by URL, the
//! JDK, Postgres and Redis), then measure every group ([`group`]):
//! each column once per round on a server process started for it
//! ([`rounds`], [`window`]), a load group ([`load_group`]) with its
//! equal-load windows ([`equal_load`]) and its cold-start probe
//! ([`cold_starts`]), a sweep step by step ([`sweep`]),
//! the idle group ([`idle`]); then tear down. Progress goes to stderr.

mod calibration;
mod cold_starts;
mod equal_load;
mod group;
mod idle;
mod interrupt;
mod launch;
mod load_group;
mod prepare;
mod progress;
mod proxies;
mod rounds;
mod services;
mod snapshot;
mod sweep;
mod window;

use std::path::Path;
use std::time::Instant;

use crate::plan::{LoadOptions, RunPlan};
use bench_model::{RunResults, SCHEMA_VERSION};
use launch::Launch;
use progress::Progress;
use snapshot::Snapshot;

pub use interrupt::install_interrupt_cleanup;

/// Carries out `plan` and returns the results; `dir` receives server logs.
pub fn run(plan: &RunPlan, dir: &Path) -> anyhow::Result<RunResults> {
    let started = Instant::now();
    let machine = crate::measure::machine::describe();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let prepared = prepare::prepare(plan, dir)?;
    let progress = Progress::new(&prepared.groups, &plan.load, plan.heartbeat);
    let snapshot = Snapshot::new(
        dir,
        started,
        RunResults {
            schema_version: SCHEMA_VERSION,
            started_at,
            wall_seconds: 0.0,
            machine,
            settings: prepared.settings,
            groups: Vec::new(),
            skipped: prepared.skipped,
            source: crate::measure::machine::source(),
            interrupted: false,
            cpu_accounting: Some(prepared.cpu_accounting),
        },
    );
    let cx = Ctx {
        launch: &prepared.launch,
        options: &plan.load,
        progress: &progress,
        snapshot: &snapshot,
    };
    for (k, group) in prepared.groups.iter().enumerate() {
        progress.group_started(k);
        for result in group::measure_group(group, &cx)? {
            snapshot.finished(result);
        }
    }
    drop(progress);
    drop(interrupt::take_guards());
    Ok(snapshot.into_results())
}

/// What every group's measurement needs from the run: how servers start,
/// the load generator's options, the progress printer, the results so far.
struct Ctx<'a> {
    launch: &'a Launch,
    options: &'a LoadOptions,
    progress: &'a Progress,
    snapshot: &'a Snapshot,
}
