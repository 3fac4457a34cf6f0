//! One bench run from start to end, in named steps: check the targets given
//! by URL, find Postgres and Redis ([`find_services`]), then for every group
//! and round measure each column on a server process started for it
//! ([`measure_group`], [`measure_column`]), and tear down. Progress goes to
//! stderr on a terminal.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use process_stats::CpuSnapshot;

use crate::cli::Cli;
use crate::cpu_account::{account, Parts};
use crate::detector;
use crate::load::{run_column, run_sweep_step, ColumnError, LoadOptions};
use crate::model::{
    ColdStartResult, ColdStartServer, ColumnResult, GroupResult, IdleResult, IdleRound, IdleServer,
    LittleCap, RoundResult, RunResults, RunSettings, ServerStats, SkippedGroup, SweepInfo,
    SCHEMA_VERSION,
};
use crate::plan::{
    groups, round_order, ColdStartProbe, Column, Group, GroupId, IdleLoad, Load, Profile, Sweep,
    Target,
};
use crate::remote_metrics;
use crate::servers::{http_get, http_get_within, parse_base_url, requests_total, OwnedServer};

/// What must be cleaned up if the run is interrupted: the throwaway database
/// and key prefix. Child servers die with bench (parent-death signal); the
/// database would not.
static INTERRUPT_GUARDS: Mutex<
    Option<(local_services::TestDatabase, local_services::RedisPrefix)>,
> = Mutex::new(None);

/// On SIGINT or SIGTERM: drop the database and prefix, stop services we
/// started, exit 130. Loads are bounded, but a seed-profile column can take
/// minutes, so waiting for it is not an option.
pub fn install_interrupt_cleanup() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("bench-interrupt".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                eprintln!("bench: interrupted, cleaning up");
                drop(take_guards());
                local_services::stop_started_services();
                std::process::exit(130);
            }
        })?;
    Ok(())
}

fn take_guards() -> Option<(local_services::TestDatabase, local_services::RedisPrefix)> {
    INTERRUPT_GUARDS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
}

struct Progress {
    on: bool,
}

impl Progress {
    fn say(&self, text: &str) {
        if self.on {
            eprintln!("{text}");
        }
    }
}

/// How each column's server comes to be: started fresh by bench with these
/// arguments, or a server someone else runs at a given address.
struct Launch {
    blocking_args: Vec<String>,
    async_args: Vec<String>,
    blocking_external: Option<SocketAddr>,
    async_external: Option<SocketAddr>,
    logs: PathBuf,
    /// Whether a server has applied migrations and seeded the cache: later
    /// starts skip that setup (the data is there), so a fresh process per
    /// column round costs only the process start.
    set_up: std::cell::Cell<bool>,
}

/// A column's server for one round.
enum RoundServer {
    Owned(OwnedServer),
    External(SocketAddr),
}

impl RoundServer {
    fn addr(&self) -> SocketAddr {
        match self {
            RoundServer::Owned(s) => s.addr(),
            RoundServer::External(a) => *a,
        }
    }

    fn pid(&self) -> Option<u32> {
        match self {
            RoundServer::Owned(s) => Some(s.pid()),
            RoundServer::External(_) => None,
        }
    }
}

impl Launch {
    /// The address of a server bench did not start for `target`, if one was given.
    fn external(&self, target: Target) -> Option<SocketAddr> {
        match target {
            Target::Blocking => self.blocking_external,
            Target::Async => self.async_external,
        }
    }

    /// A fresh server process for `target` (or the external one).
    fn start(&self, target: Target, column_args: &[&str]) -> anyhow::Result<RoundServer> {
        let args = match target {
            Target::Blocking => &self.blocking_args,
            Target::Async => &self.async_args,
        };
        if let Some(addr) = self.external(target) {
            return Ok(RoundServer::External(addr));
        }
        let log = self.logs.join(format!("{}-server.log", target.name()));
        let mut args = args.clone();
        args.extend(column_args.iter().map(|a| (*a).to_owned()));
        let skip = "--skip-setup".to_owned();
        if self.set_up.get() && !args.contains(&skip) {
            args.push(skip);
        }
        let server = OwnedServer::start(target, args, &log)?;
        self.set_up.set(true);
        Ok(RoundServer::Owned(server))
    }
}

/// Runs the selected groups and returns the results; `dir` receives server logs.
pub fn run(
    cli: &Cli,
    profile: &Profile,
    selected: &[GroupId],
    dir: &Path,
) -> anyhow::Result<RunResults> {
    let started = Instant::now();
    let machine = crate::machine::describe();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let progress = Progress {
        on: std::io::stderr().is_terminal(),
    };

    let blocking_external = external_target(&cli.blocking_url, "blocking")?;
    let async_external = external_target(&cli.async_url, "async")?;
    let mut matrix: Vec<Group> = groups()
        .into_iter()
        .filter(|g| selected.contains(&g.id))
        .collect();

    let needs_ours = matrix
        .iter()
        .flat_map(|g| &g.columns)
        .any(|c| match c.target {
            Target::Blocking => blocking_external.is_none(),
            Target::Async => async_external.is_none(),
        });
    let variants_skipped =
        drop_variants_of_external(&mut matrix, blocking_external, async_external);
    let (server_args, mut skipped) = if needs_ours {
        find_services(&mut matrix, &progress)?
    } else {
        (Vec::new(), Vec::new())
    };
    skipped.extend(variants_skipped);
    let (blocking_args, async_args) = server_args_for(cli, &server_args);
    let mut settings = effective_settings(
        cli,
        profile,
        &blocking_args,
        &async_args,
        blocking_external,
        async_external,
    )?;
    settings.rounds = profile.rounds;

    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let launch = Launch {
        blocking_args,
        async_args,
        blocking_external,
        async_external,
        logs,
        set_up: std::cell::Cell::new(false),
    };
    let warm_up_length = cli.warm_up.unwrap_or(profile.warm_up);
    let options = LoadOptions {
        timeout: profile.timeout,
        threads: cli
            .loadgen_threads
            .unwrap_or_else(contract::settings::cores),
        cpu_n: profile.cpu_n,
        mixed_lead: if cli.cold {
            LoadOptions::MIN_MIXED_LEAD
        } else {
            warm_up_length.max(LoadOptions::MIN_MIXED_LEAD)
        },
    };
    let mut results_groups = Vec::new();
    for group in &matrix {
        let load = profile
            .load(group.id)
            .context("profile has no load for a group")?;
        let warm_up = if cli.cold {
            None
        } else {
            load.warm_up(warm_up_length)
        };
        if let Load::Sweep(sweep) = load {
            let mut sweep = sweep.clone();
            if cli.cold {
                sweep.warm_up = Duration::ZERO;
            }
            let rounds = sweep.rounds.unwrap_or(profile.rounds);
            progress.say(&format!(
                "\n{} — {}; {rounds} rounds",
                group.title,
                load.describe()
            ));
            let cap = crate::sweep::cap_for(group.id, &settings);
            results_groups.push(measure_sweep_group(
                group, &sweep, rounds, cap, profile, &launch, &options, &progress,
            )?);
            continue;
        }
        progress.say(&format!(
            "\n{} — {}; {} rounds",
            group.title,
            load.describe(),
            profile.rounds
        ));
        results_groups.push(match load {
            Load::Idle(idle) => {
                measure_idle_group(group, idle, load, profile, &launch, &options, &progress)?
            }
            _ => measure_group(
                group,
                load,
                warm_up.as_ref(),
                profile,
                &launch,
                &options,
                &progress,
            )?,
        });
    }
    drop(take_guards());

    Ok(RunResults {
        schema_version: SCHEMA_VERSION,
        started_at,
        wall_seconds: started.elapsed().as_secs_f64(),
        machine,
        settings,
        groups: results_groups,
        skipped,
    })
}

/// A server given by `--<which>-url` must answer /health before anything else happens.
/// A column that measures a variant of its server (`server_args`, e.g.
/// `--connector tiny-http`) cannot run on a server given by URL: bench did
/// not start it and cannot give it flags. Such columns are dropped and
/// returned as skipped, each with the flags it needs.
fn drop_variants_of_external(
    matrix: &mut [Group],
    blocking_external: Option<SocketAddr>,
    async_external: Option<SocketAddr>,
) -> Vec<SkippedGroup> {
    let mut skipped = Vec::new();
    for group in matrix.iter_mut() {
        group.columns.retain(|c| {
            let external = match c.target {
                Target::Blocking => blocking_external.is_some(),
                Target::Async => async_external.is_some(),
            };
            let keep = !external || c.server_args.is_empty();
            if !keep {
                skipped.push(SkippedGroup {
                    group: format!("{} / {}", group.id, c.id),
                    reason: format!(
                        "it measures the {} server started with `{}`; a server given by --{}-url is measured as it is",
                        c.target.name(),
                        c.server_args.join(" "),
                        c.target.name()
                    ),
                });
            }
            keep
        });
    }
    skipped
}

fn external_target(url: &Option<String>, which: &str) -> anyhow::Result<Option<SocketAddr>> {
    let Some(url) = url else { return Ok(None) };
    let addr = parse_base_url(url).map_err(|e| anyhow::anyhow!("--{which}-url: {e}"))?;
    match http_get(addr, "/health") {
        Ok((200, _)) => Ok(Some(addr)),
        Ok((status, _)) => {
            anyhow::bail!("the {which} server at {url} answered /health with {status}")
        }
        Err(e) => anyhow::bail!("cannot reach the {which} server at {url}: {e}"),
    }
}

/// Finds Postgres and Redis and makes a throwaway database and key prefix
/// for the servers bench starts; returns their arguments. Without them, the
/// groups that need them are dropped from `matrix` and returned as skipped.
fn find_services(
    matrix: &mut Vec<Group>,
    progress: &Progress,
) -> anyhow::Result<(Vec<String>, Vec<SkippedGroup>)> {
    progress.say("bench: finding Postgres and Redis");
    let mut skipped = Vec::new();
    match (local_services::postgres(), local_services::redis()) {
        (Ok(pg), Ok(redis)) => {
            let db = pg.fresh_database()?;
            let prefix = redis.fresh_prefix();
            let args = vec![
                "--database-url".into(),
                db.url().to_owned(),
                "--redis-url".into(),
                redis.url().to_owned(),
                "--redis-key-prefix".into(),
                prefix.as_str().to_owned(),
            ];
            *INTERRUPT_GUARDS.lock().unwrap_or_else(|p| p.into_inner()) = Some((db, prefix));
            Ok((args, skipped))
        }
        (pg, redis) => {
            // Run what needs neither; say what was skipped and what to install.
            let reason = [pg.err(), redis.err()]
                .into_iter()
                .flatten()
                .map(|e| format!("{e:#}"))
                .collect::<Vec<_>>()
                .join("; ");
            matrix.retain(|g| {
                let needs_any = g.needs.postgres || g.needs.redis;
                if needs_any {
                    skipped.push(SkippedGroup {
                        group: g.id.as_str().to_owned(),
                        reason: reason.clone(),
                    });
                }
                !needs_any
            });
            let names: Vec<&str> = skipped.iter().map(|s| s.group.as_str()).collect();
            eprintln!(
                "bench: skipping {} (they need Postgres and Redis): {reason}",
                names.join(", ")
            );
            Ok((vec!["--skip-setup".into()], skipped))
        }
    }
}

/// Each server's arguments: the services', then the sizes given on bench's command line.
fn server_args_for(cli: &Cli, common: &[String]) -> (Vec<String>, Vec<String>) {
    let mut common = common.to_vec();
    if let Some(n) = cli.pool_size {
        common.extend([
            "--db-pool-size".into(),
            n.to_string(),
            "--redis-pool-size".into(),
            n.to_string(),
        ]);
    }
    let mut blocking = common.clone();
    if let Some(n) = cli.handler_threads {
        blocking.extend(["--handler-threads".into(), n.to_string()]);
    }
    let mut asynchronous = common;
    if let Some(n) = cli.worker_threads {
        asynchronous.extend(["--worker-threads".into(), n.to_string()]);
    }
    (blocking, asynchronous)
}

/// Every column of `group` once per round, the order rotated between rounds.
/// A column whose load got no successful answer is marked failed with the
/// cause and skipped in later rounds; the run goes on.
fn measure_group(
    group: &Group,
    load: &Load,
    warm_up: Option<&Load>,
    profile: &Profile,
    launch: &Launch,
    options: &LoadOptions,
    progress: &Progress,
) -> anyhow::Result<GroupResult> {
    let mut columns: Vec<ColumnResult> = group
        .columns
        .iter()
        .map(|c| empty_column(c, profile.cpu_n))
        .collect();
    for round in 1..=profile.rounds {
        for (position, &i) in round_order(group.columns.len(), round).iter().enumerate() {
            if columns[i].failure.is_some() {
                continue;
            }
            let column = &group.columns[i];
            match measure_column(
                column,
                load,
                warm_up,
                launch,
                options,
                round,
                position as u32,
            ) {
                Ok(r) => {
                    progress.say(&round_line(&columns[i].label, round, profile.rounds, &r));
                    columns[i].rounds.push(r);
                }
                Err(ColumnError::NoSuccess(cause)) => {
                    progress.say(&format!("  {} FAILED: {cause}", columns[i].label));
                    columns[i].failure = Some(cause);
                }
                Err(ColumnError::Other(e)) => return Err(e),
            }
        }
    }
    let cold_start = measure_cold_starts(group, &profile.cold_start, launch, progress)?;
    Ok(GroupResult {
        id: group.id.as_str().to_owned(),
        title: group.title.to_owned(),
        load: load.describe(),
        warm_up: load.describe_warm_up(warm_up, options.mixed_lead),
        columns,
        cold_start,
        idle: None,
        sweep: None,
    })
}

/// The idle-connection group ([`crate::idle_cost`]): every column's server
/// once per round, the order rotated between rounds, each on a fresh
/// process stopped before the next starts. A server whose round fails is
/// reported failed with the cause and skipped in later rounds.
fn measure_idle_group(
    group: &Group,
    idle: &IdleLoad,
    load: &Load,
    profile: &Profile,
    launch: &Launch,
    options: &LoadOptions,
    progress: &Progress,
) -> anyhow::Result<GroupResult> {
    // Raised before any server starts: the servers inherit bench's limit.
    let _ = loadgen::ensure_fd_capacity(0);
    let mut servers: Vec<IdleServer> = group
        .columns
        .iter()
        .map(|c| IdleServer {
            id: c.id.as_str().to_owned(),
            label: column_label(c),
            rounds: Vec::new(),
            failure: None,
        })
        .collect();
    for round in 1..=profile.rounds {
        for (position, &i) in round_order(group.columns.len(), round).iter().enumerate() {
            if servers[i].failure.is_some() {
                continue;
            }
            let column = &group.columns[i];
            let server = launch.start(column.target, column.server_args)?;
            let outcome = match server.pid() {
                Some(pid) => crate::idle_cost::measure_round(
                    server.addr(),
                    pid,
                    column,
                    idle,
                    options,
                    (round, position as u32),
                ),
                None => Err(anyhow::anyhow!(
                    "not measured: the server at http://{} was not started by bench, so its threads and memory cannot be read",
                    server.addr()
                )),
            };
            if let RoundServer::Owned(mut s) = server {
                s.stop();
            }
            match outcome {
                Ok(r) => {
                    for line in idle_round_lines(&servers[i].label, round, profile.rounds, &r) {
                        progress.say(&line);
                    }
                    servers[i].rounds.push(r);
                }
                Err(e) => {
                    progress.say(&format!("  {} FAILED: {e:#}", servers[i].label));
                    servers[i].failure = Some(format!("{e:#}"));
                }
            }
        }
    }
    Ok(GroupResult {
        id: group.id.as_str().to_owned(),
        title: group.title.to_owned(),
        load: load.describe(),
        warm_up: load.describe_warm_up(None, options.mixed_lead),
        columns: Vec::new(),
        cold_start: None,
        idle: Some(IdleResult {
            sizes: idle.sizes.clone(),
            servers,
        }),
        sweep: None,
    })
}

/// Progress lines of one idle round: one per size, then the close.
fn idle_round_lines(label: &str, round: u32, rounds: u32, r: &IdleRound) -> Vec<String> {
    const MIB: f64 = 1024.0 * 1024.0;
    let mut lines = vec![format!(
        "  [{round}/{rounds}] {label}: none open: {} threads, {:.1} MiB, /health p99 {:.2} ms",
        r.idle.threads,
        r.idle.rss_bytes as f64 / MIB,
        r.probe_none_open.p99_ms
    )];
    for s in &r.steps {
        lines.push(format!(
            "      {} open ({:.2} s to open): {:+} threads ({:.3}/conn), {:+.1} MiB ({:.1} KiB/conn), /health p99 {}{}",
            s.opened,
            s.open_seconds,
            s.threads_above(&r.idle),
            s.threads_per_connection(&r.idle).unwrap_or(f64::NAN),
            (s.server.rss_bytes as f64 - r.idle.rss_bytes as f64) / MIB,
            s.kib_per_connection(&r.idle).unwrap_or(f64::NAN),
            s.probe.map_or("failed".to_owned(), |p| format!("{:.2} ms", p.p99_ms)),
            s.failure.as_ref().map_or(String::new(), |f| format!("; FAILED: {f}"))
        ));
    }
    if let Some(why) = &r.stopped {
        lines.push(format!("      {why}"));
    }
    lines.push(match r.closed_within_ms {
        Some(ms) => format!("      all closed; the server closed its side within {ms:.0} ms"),
        None => "      all closed; the server still held them after 5 s".to_owned(),
    });
    lines
}

/// A concurrency sweep ([`Sweep`]): every column once per round, the order
/// rotated between rounds as in [`measure_group`]; each column round is one
/// server process taking the steps in ascending order
/// ([`measure_sweep_column`]). Every step of every round is kept.
#[allow(clippy::too_many_arguments)]
fn measure_sweep_group(
    group: &Group,
    sweep: &Sweep,
    rounds: u32,
    (cap, cap_note): (Option<LittleCap>, String),
    profile: &Profile,
    launch: &Launch,
    options: &LoadOptions,
    progress: &Progress,
) -> anyhow::Result<GroupResult> {
    let mut columns: Vec<ColumnResult> = group
        .columns
        .iter()
        .map(|c| empty_column(c, profile.cpu_n))
        .collect();
    for round in 1..=rounds {
        for (position, &i) in round_order(group.columns.len(), round).iter().enumerate() {
            if columns[i].failure.is_some() {
                continue;
            }
            let label = columns[i].label.clone();
            let on_step = |r: &RoundResult| {
                progress.say(&format!(
                    "{}{}",
                    round_line(&label, round, rounds, r),
                    r.step.map_or(String::new(), |s| format!(
                        " [{} connections{}; {} unfinished at the end]",
                        s.connections,
                        if s.fresh_server { ", fresh server" } else { "" },
                        s.unfinished
                    ))
                ))
            };
            match measure_sweep_column(
                &group.columns[i],
                sweep,
                launch,
                options,
                round,
                position as u32,
                on_step,
            ) {
                Ok(steps) => columns[i].rounds.extend(steps),
                Err(ColumnError::NoSuccess(cause)) => {
                    progress.say(&format!("  {label} FAILED: {cause}"));
                    columns[i].failure = Some(cause);
                }
                Err(ColumnError::Other(e)) => return Err(e),
            }
        }
    }
    Ok(GroupResult {
        id: group.id.as_str().to_owned(),
        title: group.title.to_owned(),
        load: Load::Sweep(sweep.clone()).describe(),
        warm_up: Load::Sweep(sweep.clone()).describe_warm_up(None, options.mixed_lead),
        columns,
        cold_start: None,
        idle: None,
        sweep: Some(SweepInfo {
            steps: sweep.steps.clone(),
            rounds,
            window_seconds: sweep.window.as_secs_f64(),
            warm_up_seconds: sweep.warm_up.as_secs_f64(),
            cap,
            cap_note,
        }),
    })
}

/// One column round of a sweep: a fresh server, then every step in
/// ascending order, each measured like a column window (idle figures just
/// before it, peaks within it, the machine's CPU split over it). Between
/// steps the server must be idle within `sweep.settle`, or the next step
/// gets a fresh process ([`Sweep`] says why). A sweep's server is killed,
/// not drained: its drain would only serve abandoned requests. A server bench did not start
/// cannot be replaced or sampled: its steps run on it as it is, the process
/// rows "n/a".
fn measure_sweep_column(
    column: &Column,
    sweep: &Sweep,
    launch: &Launch,
    options: &LoadOptions,
    round: u32,
    position: u32,
    on_step: impl Fn(&RoundResult),
) -> Result<Vec<RoundResult>, ColumnError> {
    let mut server = launch.start(column.target, column.server_args)?;
    let mut out = Vec::new();
    for (k, &connections) in sweep.steps.iter().enumerate() {
        let mut fresh_server = false;
        if k > 0 && !settled(server.addr(), sweep.settle) {
            if let RoundServer::Owned(mut s) = server {
                s.kill();
                server = launch.start(column.target, column.server_args)?;
                fresh_server = true;
            } else {
                server = RoundServer::External(server.addr());
            }
        }
        let (addr, pid) = (server.addr(), server.pid());
        let idle = pid.and_then(|p| process_stats::sample(p).ok());
        let mut at_start = None;
        let measured = run_sweep_step(
            addr,
            column,
            connections,
            sweep.warm_up,
            sweep.window,
            options,
            || {
                at_start = Some((
                    CpuSnapshot::take(),
                    pid.map(|p| process_stats::PeakSampler::start(p, Duration::from_millis(10))),
                    Instant::now(),
                ));
            },
        );
        let Some((cpu_before, sampler, window)) = at_start else {
            return Err(anyhow::anyhow!("the sweep step's window never started").into());
        };
        let window_seconds = window.elapsed().as_secs_f64();
        let peaks = sampler.map(|s| s.stop());
        let cpu_after = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
        let cpu_before = cpu_before.context("cannot read /proc for CPU accounting")?;
        let (load, mut step) = measured?;
        step.fresh_server = fresh_server;
        let r = RoundResult {
            round,
            position,
            load,
            background_load: None,
            server_process: match (idle, peaks) {
                (Some(i), Some(p)) => ServerStats {
                    idle_threads: i.threads,
                    peak_threads: p.peak_threads,
                    idle_rss_bytes: i.rss_bytes,
                    peak_rss_bytes: p.peak_rss_bytes,
                    cpu_seconds: p.cpu_seconds,
                    samples: p.samples,
                },
                _ => ServerStats::default(),
            },
            cpu: account(
                &cpu_before,
                &cpu_after,
                Parts {
                    server_pid: pid,
                    bench_pid: std::process::id(),
                },
                window_seconds,
            ),
            // Reading /metrics around the window would queue behind the
            // step's own requests on a saturated server: not read.
            server_counted_requests: None,
            machine_cpu_measured: pid.is_some(),
            not_measured: Vec::new(),
            // Not read: see server_counted_requests above.
            detector: None,
            step: Some(step),
        };
        on_step(&r);
        out.push(r);
    }
    if let RoundServer::Owned(mut s) = server {
        s.kill();
    }
    Ok(out)
}

/// How long a server must look idle to count as settled: longer than the
/// 300 ms a `/posts/1/blocking` call holds a worker, so a backlog the
/// in-flight gauge does not see (connections an async server has accepted
/// but not yet read) still shows as requests completing in between.
const QUIET_FOR: Duration = Duration::from_millis(350);

/// Whether the server at `addr` is idle within `within`: two /metrics reads
/// `QUIET_FOR` apart (each answered behind whatever is queued before it)
/// show nothing in flight but the read itself, and no request completed in
/// between but the first read.
fn settled(addr: SocketAddr, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let read = || -> Option<(f64, u64)> {
        let left = deadline.saturating_duration_since(Instant::now());
        match http_get_within(addr, "/metrics", left, left) {
            Ok((200, body)) => Some((
                remote_metrics::value(&body, "http_requests_in_flight", &[])?,
                requests_total(&body),
            )),
            _ => None,
        }
    };
    let mut last: Option<u64> = None;
    while Instant::now() < deadline {
        match read() {
            Some((in_flight, total)) if in_flight <= 1.0 => {
                if last.is_some_and(|before| total <= before + 1) {
                    return true;
                }
                last = Some(total);
            }
            _ => last = None,
        }
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(QUIET_FOR.min(left));
    }
    false
}

/// The cold-start fairness probe of `group`'s probed columns, if it has
/// any: `probe.cold_starts` rounds, each starting a fresh server per column
/// (the columns interleaved, so drift hits them alike), probing it at once
/// and stopping it. A column whose server bench did not start cannot be
/// cold-started: it is reported as not probed.
fn measure_cold_starts(
    group: &Group,
    probe: &ColdStartProbe,
    launch: &Launch,
    progress: &Progress,
) -> anyhow::Result<Option<ColdStartResult>> {
    let columns: Vec<&Column> = group
        .cold_start_probe
        .iter()
        .filter_map(|id| group.columns.iter().find(|c| c.id == *id))
        .collect();
    if columns.is_empty() || probe.cold_starts == 0 {
        return Ok(None);
    }
    let mut servers: Vec<ColdStartServer> = columns
        .iter()
        .map(|c| ColdStartServer {
            id: c.id.as_str().to_owned(),
            label: column_label(c),
            starts: Vec::new(),
            failure: launch.external(c.target).map(|addr| {
                format!("not probed: the server at http://{addr} was not started by bench, so it cannot be cold-started")
            }),
        })
        .collect();
    progress.say(&format!(
        "  cold-start probe: {} connections at once on {} fresh servers per column",
        probe.connections, probe.cold_starts
    ));
    for start in 1..=probe.cold_starts {
        for (column, server) in columns.iter().zip(&mut servers) {
            if server.failure.is_some() {
                continue;
            }
            let fresh = launch.start(column.target, column.server_args)?;
            let report = crate::cold_start::probe(fresh.addr(), probe.connections, probe.run_for)
                .with_context(|| format!("cold-start probe of {}", server.label))?;
            if let RoundServer::Owned(mut s) = fresh {
                s.stop();
            }
            let firsts: Vec<Option<f64>> = report
                .first_answer
                .iter()
                .map(|f| f.map(|d| d.as_secs_f64() * 1000.0))
                .collect();
            let within = crate::findings::THRESHOLDS.cold_start_answer_within_ms;
            progress.say(&format!(
                "  [{start}/{}] {}: {} of {} connections without an answer within {within:.0} ms",
                probe.cold_starts,
                server.label,
                report.late(Duration::from_secs_f64(within / 1000.0)),
                probe.connections
            ));
            server.starts.push(firsts);
        }
    }
    Ok(Some(ColdStartResult {
        connections: probe.connections,
        run_for_ms: probe.run_for.as_secs_f64() * 1000.0,
        servers,
    }))
}

fn round_line(label: &str, round: u32, rounds: u32, r: &RoundResult) -> String {
    format!(
        "  [{round}/{rounds}] {label}: {:.1} req/s, p99 {:.1} ms, {} errors, threads {} -> {}, other CPU {:.0}% of a core",
        r.load.throughput_rps,
        r.load.latency_ms.p99,
        r.load.errors,
        r.server_process.idle_threads,
        r.server_process.peak_threads,
        r.cpu.other_cores() * 100.0
    )
}

/// A column with no rounds yet.
pub(crate) fn empty_column(column: &Column, cpu_n: u64) -> ColumnResult {
    let with_n = |p: &str| p.replace("{cpu_n}", &cpu_n.to_string());
    ColumnResult {
        id: column.id.as_str().to_owned(),
        label: column_label(column),
        server: column.target.name().to_owned(),
        method: column.method.to_owned(),
        path: with_n(column.path),
        background_path: column.background.map(with_n),
        rounds: Vec::new(),
        failure: None,
    }
}

/// One round of one column: a fresh server, its idle figures, the warm-up,
/// then the measured window with the server sampled and the machine's CPU
/// accounted; the server is stopped before the next column starts.
fn measure_column(
    column: &Column,
    load: &Load,
    warm_up: Option<&Load>,
    launch: &Launch,
    options: &LoadOptions,
    round: u32,
    position: u32,
) -> Result<RoundResult, ColumnError> {
    let server = launch.start(column.target, column.server_args)?;
    let (addr, pid) = (server.addr(), server.pid());
    let idle = pid.and_then(|p| process_stats::sample(p).ok());
    // A server bench did not start is not ours to read in /proc (it may be on
    // another host): its figures come from its own /metrics instead. A server
    // without a readable /metrics is still measured, its process rows "n/a".
    let remote_idle = match pid {
        None => remote_metrics::read(addr).ok(),
        Some(_) => None,
    };
    if let Some(w) = warm_up {
        run_column(addr, column, w, options, &mut || {}).map_err(|e| match e {
            ColumnError::NoSuccess(cause) => ColumnError::NoSuccess(format!("warm-up: {cause}")),
            other => other,
        })?;
    }

    let metrics_before = metrics_text(addr);
    let counted_before = metrics_before.as_deref().map(requests_total);
    let cpu_before = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
    let sampler = pid.map(|p| process_stats::PeakSampler::start(p, Duration::from_millis(10)));
    let remote_sampler = match remote_idle {
        Some(_) => remote_metrics::RemoteSampler::start(addr, remote_metrics::SAMPLE_EVERY).ok(),
        None => None,
    };
    // The stall detector's reading before the window: the one above, or for
    // the mixed group one taken when the probe starts (after the lead), on a
    // thread so that a blocked event loop cannot delay the probe.
    let mut detector_reader = None;
    let window = Instant::now();
    let measured = run_column(addr, column, load, options, &mut || {
        if column.background.is_some() {
            detector_reader = std::thread::Builder::new()
                .name("bench-detector-reading".into())
                .spawn(move || metrics_text(addr))
                .ok();
        }
    });
    let window_seconds = window.elapsed().as_secs_f64();
    let peaks = sampler.map(|s| s.stop());
    let remote_readings = remote_sampler.and_then(|s| s.stop().ok());
    let cpu_after = CpuSnapshot::take().context("cannot read /proc for CPU accounting")?;
    let (load_stats, background_load) = measured?;
    // A reading inside the window is a request the server counted too.
    let (detector_before, reads_inside) = match detector_reader {
        Some(reader) => {
            let text = reader.join().ok().flatten();
            let counted = u64::from(text.is_some());
            (text, counted)
        }
        None => (metrics_before, 0),
    };
    let metrics_after = metrics_text(addr);
    let counted_after = metrics_after.as_deref().map(requests_total);
    if let RoundServer::Owned(mut s) = server {
        s.stop();
    }
    let detector = match (&detector_before, &metrics_after) {
        (Some(before), Some(after)) => detector::window(before, after, &detector_routes(column)),
        _ => None,
    };

    let cpu = account(
        &cpu_before,
        &cpu_after,
        Parts {
            server_pid: pid,
            bench_pid: std::process::id(),
        },
        window_seconds,
    );
    if let (Some(idle), Some(readings)) = (remote_idle, remote_readings) {
        return Ok(RoundResult {
            round,
            position,
            load: load_stats,
            background_load,
            server_process: remote_metrics::server_stats(&idle, &readings),
            cpu,
            server_counted_requests: remote_metrics::requests_in(&readings),
            machine_cpu_measured: false,
            not_measured: Vec::new(),
            detector,
            step: None,
        });
    }
    Ok(RoundResult {
        round,
        position,
        load: load_stats,
        background_load,
        server_process: match (idle, peaks) {
            (Some(i), Some(p)) => ServerStats {
                idle_threads: i.threads,
                peak_threads: p.peak_threads,
                idle_rss_bytes: i.rss_bytes,
                peak_rss_bytes: p.peak_rss_bytes,
                cpu_seconds: p.cpu_seconds,
                samples: p.samples,
            },
            _ => ServerStats::default(),
        },
        cpu,
        // The first /metrics read is counted by the server after `before` was taken.
        server_counted_requests: match (counted_before, counted_after) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b).saturating_sub(1 + reads_inside)),
            _ => None,
        },
        machine_cpu_measured: true,
        not_measured: Vec::new(),
        detector,
        step: None,
    })
}

/// A server's `/metrics` text, `None` when it cannot be read.
fn metrics_text(addr: SocketAddr) -> Option<String> {
    match http_get(addr, "/metrics") {
        Ok((200, body)) => Some(body),
        _ => None,
    }
}

/// The routes whose detector figures a column keeps: its own, then in the
/// mixed group the background's (the route under load, which the detector
/// should flag, not the /health probe).
fn detector_routes(column: &Column) -> Vec<&'static str> {
    std::iter::once(column.path)
        .chain(column.background)
        .filter_map(detector::route_pattern)
        .collect()
}

/// "async /cpu/rayon", or for the mixed group "async /health | /cpu".
fn column_label(c: &Column) -> String {
    let strip = |p: &str| p.split('?').next().unwrap_or(p).to_owned();
    let label = match c.background {
        Some(bg) => format!("{} /health | {}", c.target.name(), strip(bg)),
        None => format!(
            "{} {} {}",
            c.target.name(),
            if c.method == "GET" { "" } else { c.method },
            strip(c.path)
        )
        .replace("  ", " "),
    };
    match c.variant {
        Some(v) => format!("{label} ({v})"),
        None => label,
    }
}

/// The sizes the servers really run with: their own settings parsed from the
/// very arguments bench passes, so defaults are never restated here.
fn effective_settings(
    cli: &Cli,
    profile: &Profile,
    blocking_args: &[String],
    async_args: &[String],
    blocking_external: Option<SocketAddr>,
    async_external: Option<SocketAddr>,
) -> anyhow::Result<RunSettings> {
    use clap::Parser as _;
    let b = blocking_server::Settings::try_parse_from(
        std::iter::once("blocking-server".to_owned()).chain(blocking_args.iter().cloned()),
    )
    .context("blocking server settings")?;
    let a = async_server::Settings::try_parse_from(
        std::iter::once("async-server".to_owned()).chain(async_args.iter().cloned()),
    )
    .context("async server settings")?;
    let targets = match (blocking_external, async_external) {
        (None, None) => "started by bench".to_owned(),
        (b, a) => format!(
            "blocking {}, async {}",
            b.map(|x| format!("http://{x}"))
                .unwrap_or_else(|| "started by bench".into()),
            a.map(|x| format!("http://{x}"))
                .unwrap_or_else(|| "started by bench".into())
        ),
    };
    Ok(RunSettings {
        profile: profile.name.to_owned(),
        cold_start: cli.cold,
        rounds: profile.rounds,
        blocking_handler_threads: b.handler_threads,
        async_worker_threads: a.worker_threads() as u32,
        async_blocking_threads: a.blocking_threads() as u32,
        async_rayon_threads: a.rayon_threads() as u32,
        db_pool_size: b.common.db_pool_size,
        redis_pool_size: b.common.redis_pool_size,
        loadgen_threads: cli
            .loadgen_threads
            .unwrap_or_else(contract::settings::cores) as u32,
        cpu_n: profile.cpu_n,
        server_figures_from: (blocking_external.is_some() || async_external.is_some())
            .then(|| "/metrics (servers bench did not start)".to_owned()),
        targets,
        measured_by: None,
    })
}
