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
use crate::servers::{http_get, parse_base_url, ExitedAtStart, OwnedServer};

/// How each column's server comes to be: started fresh by bench with these
/// arguments, or a server someone else runs at a given address.
pub(super) struct Launch {
    /// What every server of ours gets first: where Postgres and Redis are
    /// (or `--skip-setup` without them).
    pub(super) services: Vec<String>,
    /// The rest of each column's arguments ([`ServerPlan::args_of`]).
    pub(super) servers: ServerPlan,
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
            services: rewrite(&self.services),
            servers: self.servers.clone(),
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
        let i = self.services.iter().position(|a| a == flag)?;
        self.services.get(i + 1).map(String::as_str)
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

    /// A fresh server process for `column` (or the external one).
    pub(super) fn start(&self, column: &Column) -> anyhow::Result<RoundServer> {
        let target = column.target;
        if let Some(addr) = self.external(target) {
            return Ok(RoundServer::External(addr));
        }
        let log = self.logs.join(format!("{}-server.log", target.name()));
        let java = target.java().is_some();
        if java && !self.set_up.get() && self.url_of("--database-url").is_some() {
            // A Java server applies no migrations: ours does, once.
            let log = self.logs.join("blocking-server.log");
            let args = [&self.services[..], &self.servers.blocking].concat();
            OwnedServer::start(Target::Blocking, args, &log)?.stop();
            self.set_up.set(true);
        }
        let first = if java {
            &self.java_args
        } else {
            &self.services
        };
        let mut args = [&first[..], &self.servers.args_of(column)].concat();
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
