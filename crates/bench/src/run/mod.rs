//! One bench run from start to end, in named steps: check the targets given
//! by URL and find Postgres and Redis ([`prepare`]), then measure every
//! group ([`measure_group`]): each column once per round on a server
//! process started for it ([`rounds`], [`window`]), a sweep step by step
//! ([`sweep`]), the idle group ([`idle`]) and the cold-start probe
//! ([`cold_starts`]); then tear down. Progress goes to stderr on a terminal.

mod calibration;
mod cold_starts;
mod idle;
mod interrupt;
mod launch;
mod progress;
mod proxies;
mod rounds;
mod services;
mod snapshot;
mod sweep;
mod window;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cli::Cli;
use crate::measure::load::LoadOptions;
use crate::plan::{groups, Group, GroupId, Load, Network, Profile, Target};
use bench_model::{CpuAccounting, IrqTime};
use bench_model::{GroupResult, RunResults, RunSettings, Skipped, SkippedGroup, SCHEMA_VERSION};
use launch::Launch;
use progress::{PlannedGroup, Progress};
use snapshot::Snapshot;

pub use interrupt::install_interrupt_cleanup;

/// Runs the selected groups and returns the results; `dir` receives server logs.
pub fn run(
    cli: &Cli,
    profile: &Profile,
    selected: &[GroupId],
    dir: &Path,
) -> anyhow::Result<RunResults> {
    let started = Instant::now();
    let machine = crate::measure::machine::describe();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let options = load_options(cli, profile);
    let prepared = prepare(cli, (profile, &options), selected, dir)?;
    let heartbeat = cli.heartbeat.unwrap_or(progress::HEARTBEAT);
    let progress = Progress::new(plan(&prepared.matrix, cli, profile), heartbeat);
    let snapshot = Snapshot::new(
        dir,
        started,
        RunResults {
            schema_version: SCHEMA_VERSION,
            started_at,
            wall_seconds: 0.0,
            machine,
            settings: prepared.settings.clone(),
            groups: Vec::new(),
            skipped: prepared.skipped.clone(),
            source: crate::measure::machine::source(),
            interrupted: false,
            cpu_accounting: Some(prepared.cpu_accounting.clone()),
        },
    );
    let cx = Ctx {
        launch: &prepared.launch,
        options: &options,
        progress: &progress,
        snapshot: &snapshot,
    };
    for (k, group) in prepared.matrix.iter().enumerate() {
        progress.group_started(k);
        let result = measure_group(group, cli, profile, &prepared, &cx)?;
        snapshot.finished(result);
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

impl<'a> Ctx<'a> {
    /// The same, its servers launched by `launch`.
    fn with_launch(&self, launch: &'a Launch) -> Ctx<'a> {
        Ctx {
            launch,
            options: self.options,
            progress: self.progress,
            snapshot: self.snapshot,
        }
    }
}

/// The run's groups as the progress estimate sees them.
fn plan(matrix: &[Group], cli: &Cli, profile: &Profile) -> Vec<PlannedGroup> {
    // A server started and stopped per column round, and its readings.
    let overhead = Duration::from_millis(400);
    matrix
        .iter()
        .filter_map(|g| {
            let load = profile.load(g.id)?;
            let warm_up = if cli.cold {
                Duration::ZERO
            } else {
                cli.warm_up.unwrap_or(profile.warm_up_of(g.id))
            };
            let rounds = match load {
                Load::Sweep(sweep) => sweep.rounds.unwrap_or(profile.rounds),
                _ => profile.rounds,
            };
            // A JVM starts in about a second, then gets a warm-up of its own.
            let java = g
                .columns
                .iter()
                .filter(|c| c.target.java().is_some())
                .count();
            let jvm = (Duration::from_secs(1) + profile.jvm_warm_up)
                .mul_f64(java as f64 / g.columns.len().max(1) as f64);
            Some(PlannedGroup {
                title: g.title.to_owned(),
                column_rounds: rounds * g.columns.len() as u32,
                per_round: load.planned_round(warm_up) + overhead + jvm,
            })
        })
        .collect()
}

/// What a run needs before its first group: the groups it can run, how
/// their servers are launched, the settings they run with, what it skips.
struct Prepared {
    matrix: Vec<Group>,
    launch: Launch,
    settings: RunSettings,
    skipped: Vec<SkippedGroup>,
    /// How this kernel's CPU time is split without counting a tick twice.
    cpu_accounting: CpuAccounting,
}

/// Checks the servers given by URL, drops the columns they cannot run,
/// finds Postgres and Redis when a server bench starts needs them.
fn prepare(
    cli: &Cli,
    (profile, options): (&Profile, &LoadOptions),
    selected: &[GroupId],
    dir: &Path,
) -> anyhow::Result<Prepared> {
    let blocking_external = launch::external_target(&cli.blocking_url, "blocking")?;
    let async_external = launch::external_target(&cli.async_url, "async")?;
    let (mut matrix, not_in_profile): (Vec<Group>, Vec<Group>) = groups()
        .into_iter()
        .filter(|g| selected.contains(&g.id))
        .partition(|g| profile.load(g.id).is_some());
    let (java, java_skipped) = calibration::prepare_java(cli, &mut matrix);
    let db_round_trip = remote_db_round_trip(cli, &mut matrix);
    let needs_ours = matrix
        .iter()
        .flat_map(|g| &g.columns)
        .any(|c| match c.target {
            Target::Blocking => blocking_external.is_none(),
            Target::Async => async_external.is_none(),
            Target::Virtual(_) => blocking_external.is_none(),
            Target::Java(_) => true,
        });
    let variants_skipped =
        launch::drop_variants_of_external(&mut matrix, blocking_external, async_external);
    let (service_args, mut skipped) = if needs_ours {
        services::find_services(&mut matrix)?
    } else {
        (Vec::new(), Vec::new())
    };
    skipped.extend(variants_skipped);
    skipped.extend(not_in_profile.iter().map(|g| SkippedGroup {
        group: Skipped::Group(g.id),
        reason: format!(
            "the {} profile does not run it (its {} columns take minutes; --profile seed does)",
            profile.name,
            g.columns.len()
        ),
    }));
    skipped.extend(java_skipped);
    let args = launch::server_args_for(cli, &service_args);
    let mut settings =
        launch::effective_settings(cli, profile, &args, blocking_external, async_external)?;
    settings.remote_db_round_trip_ms = db_round_trip.map(|d| d.as_secs_f64() * 1000.0);
    settings.jvm = java
        .as_ref()
        .map(|servers| calibration::jvm_settings(servers, options));
    let java_args = calibration::java_args(java.as_ref(), &settings, &service_args);
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let cpu_accounting = crate::measure::machine::cpu_accounting();
    let launch = Launch {
        blocking_args: args.blocking,
        async_args: args.asynchronous,
        virtual_args: args.virtual_threads,
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
        matrix,
        launch,
        settings,
        skipped,
        cpu_accounting,
    })
}

/// The remote-database groups' round trip (`--db-latency`, else the
/// matrix's), set on those groups of `matrix` (and the pool sweep, in
/// their setting); `None` when none is run.
fn remote_db_round_trip(cli: &Cli, matrix: &mut [Group]) -> Option<Duration> {
    let mut used = None;
    for g in matrix.iter_mut().filter(|g| {
        matches!(
            g.id,
            GroupId::RemoteDb | GroupId::RemoteMixed | GroupId::PoolSweep
        )
    }) {
        if let (Some(d), Network::RoundTrip(_)) = (cli.db_latency, g.network) {
            g.network = Network::RoundTrip(d);
        }
        if let Network::RoundTrip(d) = g.network {
            used = Some(d);
        }
    }
    used
}

/// The load generator's options for every column of the run.
fn load_options(cli: &Cli, profile: &Profile) -> LoadOptions {
    let warm_up_length = cli.warm_up.unwrap_or(profile.warm_up);
    LoadOptions {
        timeout: profile.timeout,
        threads: cli.loadgen_threads.unwrap_or_else(server_settings::cores),
        paths: profile.path_values(),
        mixed_lead: if cli.cold {
            LoadOptions::MIN_MIXED_LEAD
        } else {
            warm_up_length.max(LoadOptions::MIN_MIXED_LEAD)
        },
        jvm_warm_up: if cli.cold {
            Duration::ZERO
        } else {
            profile.jvm_warm_up
        },
    }
}

/// One group: a sweep, the idle group, or a load group with its cold-start
/// probe, each column once per round.
fn measure_group(
    group: &Group,
    cli: &Cli,
    profile: &Profile,
    prepared: &Prepared,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let load = profile
        .load(group.id)
        .context("profile has no load for a group")?;
    let network = proxies::for_group(&prepared.launch, group.network)?;
    let cx = &cx.with_launch(network.as_ref().map_or(&prepared.launch, |n| &n.launch));
    let rounds = match load {
        Load::Sweep(sweep) => sweep.rounds.unwrap_or(profile.rounds),
        _ => profile.rounds,
    };
    cx.progress.say(&format!(
        "\n{} — {}; {rounds} rounds",
        group.title,
        load.describe()
    ));
    match load {
        Load::Sweep(sweep) => {
            let mut sweep = sweep.clone();
            if cli.cold {
                sweep.warm_up = Duration::ZERO;
            }
            let cap = bench_analysis::sweep::cap_for(group.id, &prepared.settings);
            sweep::measure_sweep_group(group, (&sweep, rounds), cap, cx)
        }
        Load::Idle(idle) => idle::measure_idle_group(group, (idle, rounds), cx),
        _ => {
            let warm_up = if cli.cold {
                None
            } else {
                load.warm_up(cli.warm_up.unwrap_or(profile.warm_up_of(group.id)))
            };
            measure_load_group(group, (load, warm_up.as_ref(), rounds), profile, cx)
        }
    }
}

/// A load group: every column once per round, then the group's cold-start
/// probe if it has one.
fn measure_load_group(
    group: &Group,
    (load, warm_up, rounds): (&Load, Option<&Load>, u32),
    profile: &Profile,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let result = |columns: Vec<bench_model::ColumnResult>| GroupResult {
        id: group.id,
        title: group.title.to_owned(),
        load: load.describe(),
        warm_up: load.describe_warm_up(warm_up, cx.options.mixed_lead),
        columns,
        cold_start: None,
        idle: None,
        sweep: None,
    };
    let mut columns: Vec<_> = group
        .columns
        .iter()
        .map(|c| c.empty_result(cx.options.paths))
        .collect();
    let labels: Vec<String> = columns.iter().map(|c| c.label.clone()).collect();
    let kept = |so_far: &[bench_model::ColumnResult]| cx.snapshot.keep(result(so_far.to_vec()));
    rounds::every_column_round(
        &mut columns,
        rounds,
        (cx.progress, kept),
        |i, round, position| {
            let column = &group.columns[i];
            let r = window::measure_column(
                cx.launch,
                cx.options,
                (column, load, warm_up),
                (round, position),
            )?;
            Ok(rounds::Measured {
                lines: vec![rounds::round_line(&labels[i], round, rounds, &r)],
                rounds: vec![r],
            })
        },
    )?;
    let cold_start =
        cold_starts::measure_cold_starts(group, &profile.cold_start, cx.launch, cx.progress)?;
    Ok(GroupResult {
        cold_start,
        ..result(columns)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    /// The planned length of a run of every group `profile` loads, in
    /// minutes: what the progress line counts down at the start.
    fn planned_minutes(profile: &Profile) -> f64 {
        let cli = Cli::try_parse_from(["bench"]).unwrap();
        let matrix: Vec<Group> = groups()
            .into_iter()
            .filter(|g| profile.load(g.id).is_some())
            .filter(|g| profile.calibration_by_default || !g.id.is_calibration())
            .collect();
        let seconds: f64 = plan(&matrix, &cli, profile)
            .iter()
            .map(|g| f64::from(g.column_rounds) * g.per_round.as_secs_f64())
            .sum();
        seconds / 60.0
    }

    /// The seed profile's budget is 75 minutes on 2 cores; a run has taken
    /// about a fifth longer than its plan (bursts, the idle group's opening
    /// and the servers' starts outlast their guesses), so the plan stays
    /// under 60, Tomcat's virtual-thread columns (a JDK 21's) included.
    #[test]
    fn the_seed_profile_is_planned_within_its_budget() {
        let seed = planned_minutes(&crate::plan::seed());
        assert!(seed < 60.0, "the seed profile is planned at {seed:.1} min");
        let quick = planned_minutes(&crate::plan::quick());
        assert!(
            quick < 4.5,
            "the quick profile is planned at {quick:.2} min"
        );
    }

    /// The seed profile's estimate (the progress estimate's own figures),
    /// in minutes, of `groups`.
    fn seed_minutes(groups: &[Group]) -> f64 {
        let cli = Cli::try_parse_from(["bench", "--profile", "seed"]).unwrap();
        let (profile, _) = cli.resolve().unwrap();
        plan(groups, &cli, &profile)
            .iter()
            .map(|g| g.per_round.as_secs_f64() * f64::from(g.column_rounds))
            .sum::<f64>()
            / 60.0
    }

    #[test]
    fn the_calibration_groups_add_minutes_not_tens_to_the_seed_profile() {
        let all = groups();
        // On a JDK 17 Tomcat's virtual-thread columns are skipped.
        let calibration: Vec<Group> = all
            .iter()
            .filter(|g| g.id.is_calibration())
            .cloned()
            .map(|mut g| {
                g.columns
                    .retain(|c| c.target != Target::Java(crate::plan::JavaServer::TomcatVirtual));
                g
            })
            .collect();
        let ours: Vec<Group> = all
            .iter()
            .filter(|g| !g.id.is_calibration())
            .cloned()
            .collect();
        let (before, added) = (seed_minutes(&ours), seed_minutes(&calibration));
        eprintln!(
            "seed estimate: {before:.1} min without the calibration groups, {added:.1} min added"
        );
        assert!(
            added < 7.0,
            "the calibration groups add {added:.1} min to the seed profile"
        );
    }
}
