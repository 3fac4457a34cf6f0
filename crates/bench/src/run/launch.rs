//! How each column's server comes to be: a fresh process bench starts with
//! the services' URLs and the arguments the plan gives the column, or a
//! server someone else runs at an address given by URL, which must answer
//! before anything else happens.

use std::cell::Cell;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;

use crate::measure::load::ColumnError;
use crate::plan::{Column, ServerPlan, Target};
use crate::servers::java::{self, JavaRelease, JavaRuntime, JavaServers};
use crate::servers::{http_get, parse_base_url, ExitedAtStart, OwnedServer};
use anyhow::Context;
use bench_model::RunSettings;

/// How each column's server comes to be: started fresh by bench with these
/// arguments, or a server someone else runs at a given address.
pub(super) struct Launch {
    /// What every server of ours gets first: where Postgres and Redis are
    /// (or `--skip-setup` without them).
    pub(super) services: Vec<String>,
    /// The rest of each column's arguments ([`ServerPlan::args_of`]).
    pub(super) servers: ServerPlan,
    /// The Java servers, when the run has a Java column.
    pub(super) java: Option<JavaLaunch>,
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

/// The calibration servers as built for the run, the pinned runtimes its
/// columns name, and the sizes of their Rust twins they start with:
/// (handler threads, pool size).
#[derive(Clone)]
pub(super) struct JavaLaunch {
    pub(super) servers: JavaServers,
    pub(super) runtimes: Vec<(JavaRelease, JavaRuntime)>,
    pub(super) sizes: (u32, u32),
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

    /// A fresh server process for `column` (or the external one).
    pub(super) fn start(&self, column: &Column) -> anyhow::Result<RoundServer> {
        let target = column.target;
        if let Some(addr) = self.external(target) {
            return Ok(RoundServer::External(addr));
        }
        let log = self.logs.join(format!("{}-server.log", target.name()));
        let java = target.java().is_some();
        let has_database = self.services.iter().any(|a| a == "--database-url");
        if java && !self.set_up.get() && has_database {
            // A Java server applies no migrations: ours does, once.
            let log = self.logs.join("blocking-server.log");
            let args = [&self.services[..], &self.servers.blocking].concat();
            OwnedServer::start(Target::Blocking, args, &log)?.stop();
            self.set_up.set(true);
        }
        let first = if java {
            self.java_args(column)?
        } else {
            self.services.clone()
        };
        let mut args = [first, self.servers.args_of(column)].concat();
        let skip = "--skip-setup".to_owned();
        if self.set_up.get() && !args.contains(&skip) && !java {
            args.push(skip);
        }
        let server = OwnedServer::start(target, args, &log)?;
        // Our servers apply the migrations and seed at start-up; a Java one does not.
        if !java {
            self.set_up.set(true);
        }
        Ok(RoundServer::Owned(server))
    }
}

impl Launch {
    /// `bench serve tomcat|netty`'s first arguments: the JVM (the pinned
    /// runtime `column` names, else the JDK's), the class path, the twin's
    /// sizes and the run's database.
    fn java_args(&self, column: &Column) -> anyhow::Result<Vec<String>> {
        let java = self.java.as_ref().context("no Java servers were built")?;
        let servers = match column.java {
            Some(release) => {
                let (_, runtime) = java
                    .runtimes
                    .iter()
                    .find(|(r, _)| *r == release)
                    .with_context(|| format!("no Java {} runtime was found", release.feature()))?;
                java.servers.on(runtime.clone())
            }
            None => java.servers.clone(),
        };
        let database_url = self
            .services
            .iter()
            .position(|a| a == "--database-url")
            .and_then(|i| self.services.get(i + 1));
        Ok(java::serve_args(
            &servers,
            java.sizes,
            database_url.map(String::as_str),
        ))
    }

    /// [`Launch::start`] for a column round: a server that exits during
    /// start-up fails the column (it refuses the column's flags), anything
    /// else ends the run.
    pub(super) fn start_column(&self, column: &Column) -> Result<RoundServer, ColumnError> {
        self.start(column).map_err(|e| {
            if e.downcast_ref::<ExitedAtStart>().is_some() {
                ColumnError::Failed(format!("{e:#}"))
            } else {
                ColumnError::Other(e)
            }
        })
    }
}

/// The servers given by URL, each of which must answer /health before
/// anything else happens, recorded in `settings` at the address each
/// answered: (blocking, async).
pub(super) fn check_given_servers(
    servers: &ServerPlan,
    settings: &mut RunSettings,
) -> anyhow::Result<(Option<SocketAddr>, Option<SocketAddr>)> {
    let mut answered = [None, None];
    for (i, (url, which)) in [
        (&servers.blocking_url, "blocking"),
        (&servers.async_url, "async"),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(url) = url else { continue };
        let addr = parse_base_url(url).map_err(|e| anyhow::anyhow!("--{which}-url: {e}"))?;
        match http_get(addr, "/health") {
            Ok((200, _)) => answered[i] = Some(addr),
            Ok((status, _)) => {
                anyhow::bail!("the {which} server at {url} answered /health with {status}")
            }
            Err(e) => anyhow::bail!("cannot reach the {which} server at {url}: {e}"),
        }
    }
    let [blocking, asynchronous] = answered;
    if blocking.is_some() || asynchronous.is_some() {
        let url = |a: Option<SocketAddr>| a.map(|a| format!("http://{a}"));
        let (b, a) = (url(blocking), url(asynchronous));
        let ours = || "started by bench".to_owned();
        let both = (
            b.clone().unwrap_or_else(ours),
            a.clone().unwrap_or_else(ours),
        );
        settings.targets = format!("blocking {}, async {}", both.0, both.1);
        settings.server_figures_from = Some("/metrics (servers bench did not start)".to_owned());
        (settings.blocking_url, settings.async_url) = (b, a);
    }
    Ok((blocking, asynchronous))
}
