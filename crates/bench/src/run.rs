//! One bench run from start to end: services, servers, every column of every
//! selected group, then the results. Progress goes to stderr on a terminal.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cli::Cli;
use crate::load::{run_column, LoadOptions};
use crate::model::{
    ColumnResult, GroupResult, RunResults, RunSettings, ServerStats, SkippedGroup, SCHEMA_VERSION,
};
use crate::plan::{groups, Profile, Target};
use crate::servers::{http_get, parse_base_url, requests_total, OwnedServer, Server};

/// What must be cleaned up if the run is interrupted: the throwaway database
/// and key prefix, and the child servers' pids. Children also die with bench
/// (parent-death signal); the database would not.
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
                let guards = INTERRUPT_GUARDS
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take();
                drop(guards);
                local_services::stop_started_services();
                std::process::exit(130);
            }
        })?;
    Ok(())
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

/// Runs the selected groups and returns the results; `dir` receives server logs.
pub fn run(
    cli: &Cli,
    profile: &Profile,
    selected: &[&'static str],
    dir: &std::path::Path,
) -> anyhow::Result<RunResults> {
    let started = Instant::now();
    let machine = crate::machine::describe();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let progress = Progress {
        on: std::io::stderr().is_terminal(),
    };

    // Targets given by URL must answer before anything else happens.
    let external = |url: &Option<String>, which: &str| -> anyhow::Result<Option<SocketAddr>> {
        let Some(url) = url else { return Ok(None) };
        let addr = parse_base_url(url).map_err(|e| anyhow::anyhow!("--{which}-url: {e}"))?;
        match http_get(addr, "/health") {
            Ok((200, _)) => Ok(Some(addr)),
            Ok((status, _)) => {
                anyhow::bail!("the {which} server at {url} answered /health with {status}")
            }
            Err(e) => anyhow::bail!("cannot reach the {which} server at {url}: {e}"),
        }
    };
    let blocking_external = external(&cli.blocking_url, "blocking")?;
    let async_external = external(&cli.async_url, "async")?;

    let mut matrix: Vec<_> = groups()
        .into_iter()
        .filter(|g| selected.contains(&g.id))
        .collect();
    let need = |matrix: &[crate::plan::Group], t: Target| {
        matrix
            .iter()
            .any(|g| g.columns.iter().any(|c| c.target == t))
    };

    let mut server_args: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    let starts_any = (need(&matrix, Target::Blocking) && blocking_external.is_none())
        || (need(&matrix, Target::Async) && async_external.is_none());
    if starts_any {
        progress.say("bench: finding Postgres and Redis");
        match (local_services::postgres(), local_services::redis()) {
            (Ok(pg), Ok(redis)) => {
                let db = pg.fresh_database()?;
                let prefix = redis.fresh_prefix();
                server_args.extend([
                    "--database-url".into(),
                    db.url().to_owned(),
                    "--redis-url".into(),
                    redis.url().to_owned(),
                    "--redis-key-prefix".into(),
                    prefix.as_str().to_owned(),
                ]);
                *INTERRUPT_GUARDS.lock().unwrap_or_else(|p| p.into_inner()) = Some((db, prefix));
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
                            group: g.id.to_owned(),
                            reason: reason.clone(),
                        });
                    }
                    !needs_any
                });
                let names: Vec<&str> = skipped
                    .iter()
                    .map(|s: &SkippedGroup| s.group.as_str())
                    .collect();
                eprintln!(
                    "bench: skipping {} (they need Postgres and Redis): {reason}",
                    names.join(", ")
                );
                server_args.push("--skip-setup".into());
            }
        }
    }
    let start_blocking = need(&matrix, Target::Blocking) && blocking_external.is_none();
    let start_async = need(&matrix, Target::Async) && async_external.is_none();
    if let Some(n) = cli.pool_size {
        server_args.extend([
            "--db-pool-size".into(),
            n.to_string(),
            "--redis-pool-size".into(),
            n.to_string(),
        ]);
    }
    let mut blocking_args = server_args.clone();
    if let Some(n) = cli.handler_threads {
        blocking_args.extend(["--handler-threads".into(), n.to_string()]);
    }
    let mut async_args = server_args.clone();
    if let Some(n) = cli.worker_threads {
        async_args.extend(["--worker-threads".into(), n.to_string()]);
    }
    let settings = effective_settings(
        cli,
        profile,
        &blocking_args,
        &async_args,
        blocking_external,
        async_external,
    )?;

    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let start = |t: Target,
                 args: &[String],
                 on: bool,
                 ext: Option<SocketAddr>|
     -> anyhow::Result<Option<Server>> {
        if let Some(addr) = ext {
            return Ok(Some(Server::External { addr }));
        }
        if !on {
            return Ok(None);
        }
        progress.say(&format!("bench: starting the {} server", t.name()));
        let log: PathBuf = logs.join(format!("{}-server.log", t.name()));
        Ok(Some(Server::Owned(OwnedServer::start(
            t,
            args.to_vec(),
            &log,
        )?)))
    };
    let mut blocking = start(
        Target::Blocking,
        &blocking_args,
        start_blocking,
        blocking_external,
    )?;
    let mut asynchronous = start(Target::Async, &async_args, start_async, async_external)?;

    let options = LoadOptions {
        timeout: profile.timeout,
        threads: cli
            .loadgen_threads
            .unwrap_or_else(contract::settings::cores),
        cpu_n: profile.cpu_n,
    };
    let mut results_groups = Vec::new();
    for group in &matrix {
        let load = profile
            .load(group.id)
            .context("profile has no load for a group")?;
        progress.say(&format!("\n{} — {}", group.title, load.describe()));
        let mut columns = Vec::new();
        for column in &group.columns {
            let server = match column.target {
                Target::Blocking => blocking.as_mut(),
                Target::Async => asynchronous.as_mut(),
            }
            .context("server not started")?;
            if cli.cold {
                if let Server::Owned(s) = server {
                    s.restart()?;
                }
            }
            let label = column_label(column);
            progress.say(&format!("  {label} ..."));
            let addr = server.addr();
            let metrics_before = http_get(addr, "/metrics")
                .ok()
                .map(|(_, b)| requests_total(&b));
            let threads_before = server
                .pid()
                .and_then(|p| process_stats::sample(p).ok())
                .map(|s| s.threads)
                .unwrap_or(0);
            let sampler = server
                .pid()
                .map(|p| process_stats::PeakSampler::start(p, Duration::from_millis(10)));
            let (load_stats, background_load) = run_column(addr, column, load, &options)?;
            let peaks = sampler.map(|s| s.stop());
            let metrics_after = http_get(addr, "/metrics")
                .ok()
                .map(|(_, b)| requests_total(&b));
            // The /metrics read itself is counted by the server after `before` was taken.
            let counted = match (metrics_before, metrics_after) {
                (Some(b), Some(a)) => Some(a.saturating_sub(b).saturating_sub(1)),
                _ => None,
            };
            progress.say(&format!(
                "    {:.1} req/s, p99 {:.1} ms, {} errors, peak threads {}",
                load_stats.throughput_rps,
                load_stats.latency_ms.p99,
                load_stats.errors,
                peaks
                    .as_ref()
                    .map(|p| p.peak_threads.to_string())
                    .unwrap_or_else(|| "n/a".into())
            ));
            columns.push(ColumnResult {
                id: column.id.to_owned(),
                label,
                server: column.target.name().to_owned(),
                method: column.method.to_owned(),
                path: column.path.replace("{cpu_n}", &profile.cpu_n.to_string()),
                background_path: column
                    .background
                    .map(|b| b.replace("{cpu_n}", &profile.cpu_n.to_string())),
                load: load_stats,
                background_load,
                server_process: match peaks {
                    Some(p) => ServerStats {
                        threads_before,
                        peak_threads: p.peak_threads,
                        peak_rss_bytes: p.peak_rss_bytes,
                        cpu_seconds: p.cpu_seconds,
                        samples: p.samples,
                    },
                    None => ServerStats {
                        threads_before: 0,
                        peak_threads: 0,
                        peak_rss_bytes: 0,
                        cpu_seconds: 0.0,
                        samples: 0,
                    },
                },
                server_counted_requests: counted,
            });
        }
        results_groups.push(GroupResult {
            id: group.id.to_owned(),
            title: group.title.to_owned(),
            load: load.describe(),
            columns,
        });
    }

    for s in [&mut blocking, &mut asynchronous].into_iter().flatten() {
        if let Server::Owned(o) = s {
            o.stop();
        }
    }
    drop((blocking, asynchronous));
    drop(
        INTERRUPT_GUARDS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(),
    );

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

/// "async /cpu/rayon", or for the mixed group "async /health | /cpu".
fn column_label(c: &crate::plan::Column) -> String {
    let strip = |p: &str| p.split('?').next().unwrap_or(p).to_owned();
    match c.background {
        Some(bg) => format!("{} /health | {}", c.target.name(), strip(bg)),
        None => format!(
            "{} {} {}",
            c.target.name(),
            if c.method == "GET" { "" } else { c.method },
            strip(c.path)
        )
        .replace("  ", " "),
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
        targets,
    })
}
