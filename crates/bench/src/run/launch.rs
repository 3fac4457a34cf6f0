//! How each column's server comes to be: a fresh process bench starts with
//! the run's arguments and the column's own, or a server someone else runs
//! at an address given by URL; and the settings those servers really run
//! with.

use std::cell::Cell;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;

use anyhow::Context;

use crate::cli::Cli;
use crate::measure::load::ColumnError;
use crate::plan::{Group, Profile, Target};
use crate::servers::{http_get, parse_base_url, ExitedAtStart, OwnedServer};
use bench_model::{RunSettings, Skipped, SkippedGroup};

/// How each column's server comes to be: started fresh by bench with these
/// arguments, or a server someone else runs at a given address.
pub(super) struct Launch {
    pub(super) blocking_args: Vec<String>,
    pub(super) async_args: Vec<String>,
    /// The blocking server's arguments plus `--carriers`; each virtual
    /// column adds its target's `--threads virtual --driver ...`.
    pub(super) virtual_args: Vec<String>,
    /// `bench serve tomcat|netty`'s: the JVM, the class path and the
    /// servers' flags ([`crate::servers::java::serve_args`]); empty when
    /// the run has no Java column.
    pub(super) java_args: Vec<String>,
    pub(super) blocking_external: Option<SocketAddr>,
    pub(super) async_external: Option<SocketAddr>,
    pub(super) logs: PathBuf,
    /// Whether a server has applied migrations and seeded the cache: later
    /// starts skip that setup (the data is there), so a fresh process per
    /// column round costs only the process start. Shared with the launches
    /// made from this one ([`Launch::through`]): it is the same database.
    pub(super) set_up: Rc<Cell<bool>>,
    /// The proxies in front of Postgres and Redis, if this launch's servers
    /// reach them through any: their CPU is accounted on its own line.
    pub(super) proxy_pids: Vec<u32>,
    /// Where the proxy in front of Postgres serves what it measured, if
    /// this launch's servers reach Postgres through one.
    pub(super) postgres_proxy_stats: Option<SocketAddr>,
    /// Whether this kernel keeps softirq and irq time out of process times
    /// (the run's [`bench_model::CpuAccounting`]).
    pub(super) irq_apart: bool,
}

/// A column's server for one round.
pub(super) enum RoundServer {
    Owned(OwnedServer),
    External(SocketAddr),
}

impl RoundServer {
    pub(super) fn addr(&self) -> SocketAddr {
        match self {
            RoundServer::Owned(s) => s.addr(),
            RoundServer::External(a) => *a,
        }
    }

    pub(super) fn pid(&self) -> Option<u32> {
        match self {
            RoundServer::Owned(s) => Some(s.pid()),
            RoundServer::External(_) => None,
        }
    }
}

impl RoundServer {
    /// Stops a server bench started at once (SIGKILL), once everything of
    /// its round has been read: its graceful drain would only serve
    /// requests the load generator no longer waits for.
    pub(super) fn kill(self) {
        if let RoundServer::Owned(mut s) = self {
            s.kill();
        }
    }
}

impl Launch {
    /// The same launch, its servers reaching Postgres and Redis at
    /// `database_url` and `redis_url` (proxies, whose pids are
    /// `proxy_pids`, the Postgres one's measurements served at
    /// `postgres_proxy_stats`).
    pub(super) fn through(
        &self,
        database_url: &str,
        redis_url: &str,
        proxy_pids: Vec<u32>,
        postgres_proxy_stats: Option<SocketAddr>,
    ) -> Launch {
        let rewrite = |args: &[String]| -> Vec<String> {
            let mut out = args.to_vec();
            for (flag, url) in [("--database-url", database_url), ("--redis-url", redis_url)] {
                if let Some(i) = out.iter().position(|a| a == flag) {
                    if let Some(value) = out.get_mut(i + 1) {
                        *value = url.to_owned();
                    }
                }
            }
            out
        };
        Launch {
            blocking_args: rewrite(&self.blocking_args),
            async_args: rewrite(&self.async_args),
            virtual_args: rewrite(&self.virtual_args),
            java_args: rewrite(&self.java_args),
            blocking_external: self.blocking_external,
            async_external: self.async_external,
            logs: self.logs.clone(),
            set_up: Rc::clone(&self.set_up),
            proxy_pids,
            postgres_proxy_stats,
            irq_apart: self.irq_apart,
        }
    }

    /// The URL a flag of this launch's servers gives, e.g. `--database-url`.
    pub(super) fn url_of(&self, flag: &str) -> Option<&str> {
        let i = self.async_args.iter().position(|a| a == flag)?;
        self.async_args.get(i + 1).map(String::as_str)
    }

    /// The address of a server bench did not start for `target`, if one
    /// was given. Virtual threads are always bench's own: there is no URL
    /// flag for them.
    pub(super) fn external(&self, target: Target) -> Option<SocketAddr> {
        match target {
            Target::Blocking => self.blocking_external,
            Target::Async => self.async_external,
            Target::Virtual(_) | Target::Java(_) => None,
        }
    }

    /// A fresh server process for `target` (or the external one).
    pub(super) fn start(
        &self,
        target: Target,
        column_args: &[&str],
    ) -> anyhow::Result<RoundServer> {
        let args = match target {
            Target::Blocking => &self.blocking_args,
            Target::Async => &self.async_args,
            Target::Virtual(_) => &self.virtual_args,
            Target::Java(_) => &self.java_args,
        };
        if let Some(addr) = self.external(target) {
            return Ok(RoundServer::External(addr));
        }
        let log = self.logs.join(format!("{}-server.log", target.name()));
        if target.java().is_some() && !self.set_up.get() && self.url_of("--database-url").is_some()
        {
            // A Java server applies no migrations: ours does, once.
            let log = self.logs.join("blocking-server.log");
            OwnedServer::start(Target::Blocking, self.blocking_args.clone(), &log)?.stop();
            self.set_up.set(true);
        }
        let mut args = args.clone();
        args.extend(
            crate::servers::mode_args(target)
                .iter()
                .map(|a| (*a).to_owned()),
        );
        args.extend(column_args.iter().map(|a| (*a).to_owned()));
        let skip = "--skip-setup".to_owned();
        if self.set_up.get() && !args.contains(&skip) && target.java().is_none() {
            args.push(skip);
        }
        let server = OwnedServer::start(target, args, &log)?;
        // Our servers apply the migrations and seed at start-up; a Java one does not.
        if target.java().is_none() {
            self.set_up.set(true);
        }
        Ok(RoundServer::Owned(server))
    }
}

impl Launch {
    /// [`Launch::start`] for a column round: a server that exits during
    /// start-up fails the column (it refuses the column's flags), anything
    /// else ends the run.
    pub(super) fn start_column(
        &self,
        target: Target,
        column_args: &[&str],
    ) -> Result<RoundServer, ColumnError> {
        self.start(target, column_args).map_err(|e| {
            if e.downcast_ref::<ExitedAtStart>().is_some() {
                ColumnError::Failed(format!("{e:#}"))
            } else {
                ColumnError::Other(e)
            }
        })
    }
}

/// A column that measures a variant of its server (`server_args`, e.g.
/// `--connector tiny-http`) cannot run on a server given by URL: bench did
/// not start it and cannot give it flags. Such columns are dropped and
/// returned as skipped, each with the flags it needs.
pub(super) fn drop_variants_of_external(
    matrix: &mut [Group],
    blocking_external: Option<SocketAddr>,
    async_external: Option<SocketAddr>,
) -> Vec<SkippedGroup> {
    let mut skipped = Vec::new();
    for group in matrix.iter_mut() {
        group.columns.retain(|c| {
            // Virtual threads are the blocking server in another mode: a
            // blocking server given by URL is not in it.
            let external = match c.target {
                Target::Blocking | Target::Virtual(_) => blocking_external.is_some(),
                Target::Async => async_external.is_some(),
                Target::Java(_) => false,
            };
            let flags: Vec<&str> = crate::servers::mode_args(c.target)
                .iter()
                .chain(c.server_args)
                .copied()
                .collect();
            let local = group.network == crate::plan::Network::Local;
            let keep = !external || (flags.is_empty() && local);
            if external && !local {
                skipped.push(SkippedGroup {
                    group: Skipped::Column(group.id, c.id),
                    reason: format!(
                        "its server reaches Postgres and Redis through a proxy bench starts; a server given by --{}-url is measured as it is",
                        crate::servers::binary(c.target)
                    ),
                });
            } else if !keep {
                skipped.push(SkippedGroup {
                    group: Skipped::Column(group.id, c.id),
                    reason: format!(
                        "it measures the {} server started with `{}`; a server given by --{}-url is measured as it is",
                        crate::servers::binary(c.target),
                        flags.join(" "),
                        crate::servers::binary(c.target)
                    ),
                });
            }
            keep
        });
    }
    skipped
}

/// The server given by `--<which>-url`, which must answer /health before
/// anything else happens.
pub(super) fn external_target(
    url: &Option<String>,
    which: &str,
) -> anyhow::Result<Option<SocketAddr>> {
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

/// The arguments of each server bench starts: blocking, async and virtual
/// threads (the blocking server's plus `--carriers`, one per core).
pub(super) struct ServerArgs {
    pub(super) blocking: Vec<String>,
    pub(super) asynchronous: Vec<String>,
    pub(super) virtual_threads: Vec<String>,
}

/// Each server's arguments: the services', then the sizes given on bench's command line.
pub(super) fn server_args_for(cli: &Cli, common: &[String]) -> ServerArgs {
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
    let mut virtual_threads = blocking.clone();
    virtual_threads.extend(["--carriers".into(), contract::settings::cores().to_string()]);
    ServerArgs {
        blocking,
        asynchronous,
        virtual_threads,
    }
}

/// The sizes the servers really run with: their own settings parsed from the
/// very arguments bench passes, so defaults are never restated here.
pub(super) fn effective_settings(
    cli: &Cli,
    profile: &Profile,
    args: &ServerArgs,
    blocking_external: Option<SocketAddr>,
    async_external: Option<SocketAddr>,
) -> anyhow::Result<RunSettings> {
    use clap::Parser as _;
    let b = blocking_server::Settings::try_parse_from(
        std::iter::once("blocking-server".to_owned()).chain(args.blocking.iter().cloned()),
    )
    .context("blocking server settings")?;
    let a = async_server::Settings::try_parse_from(
        std::iter::once("async-server".to_owned()).chain(args.asynchronous.iter().cloned()),
    )
    .context("async server settings")?;
    let v = blocking_server::Settings::try_parse_from(
        std::iter::once("blocking-server".to_owned()).chain(args.virtual_threads.iter().cloned()),
    )
    .context("virtual-thread server settings")?;
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
        cold_start: Some(cli.cold),
        rounds: profile.rounds,
        blocking_handler_threads: b.handler_threads,
        async_worker_threads: a.worker_threads() as u32,
        async_blocking_threads: a.blocking_threads() as u32,
        async_rayon_threads: a.rayon_threads() as u32,
        db_pool_size: b.common.db_pool_size,
        redis_pool_size: b.common.redis_pool_size,
        blocking_redis_client: Some(b.redis_client().name().to_owned()),
        virtual_carriers: Some(v.carrier_count() as u32),
        remote_db_round_trip_ms: None,
        loadgen_threads: cli
            .loadgen_threads
            .unwrap_or_else(contract::settings::cores) as u32,
        cpu_n: profile.cpu_n,
        server_figures_from: (blocking_external.is_some() || async_external.is_some())
            .then(|| "/metrics (servers bench did not start)".to_owned()),
        targets,
        blocking_url: blocking_external.map(|a| format!("http://{a}")),
        async_url: async_external.map(|a| format!("http://{a}")),
        measured_by: None,
        jvm: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    /// The blocking server's Redis client is read from its own settings,
    /// parsed from the arguments bench passes: its default unless told.
    #[test]
    fn the_settings_name_the_redis_client_the_blocking_server_runs() {
        let cli = Cli::try_parse_from(["bench"]).unwrap();
        let (profile, _) = cli.resolve().unwrap();
        let client = |common: &[&str]| {
            let common: Vec<String> = common.iter().map(|a| (*a).to_owned()).collect();
            let args = server_args_for(&cli, &common);
            effective_settings(&cli, &profile, &args, None, None)
                .unwrap()
                .blocking_redis_client
        };
        assert_eq!(client(&[]).as_deref(), Some("shared"));
        assert_eq!(client(&["--redis-client", "pool"]).as_deref(), Some("pool"));
    }
}
