//! The proxies of a group whose servers reach Postgres and Redis over a
//! simulated network ([`Network::RoundTrip`]): one `bench proxy` child
//! process in front of each, so their CPU is their own line in a window's
//! accounting, not bench's and not "everything else". Each says where it
//! serves what it measured; the Postgres proxy's address goes with the
//! launch, so that every window of the group reads its exchanges and
//! delivered round trips ([`crate::measure::proxy_stats`]).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::Duration;

use anyhow::{bail, Context};

use super::launch::Launch;
use crate::plan::Network;

/// A running proxy child; killed when dropped.
struct ProxyProcess {
    child: Child,
    /// Where it listens, as `host:port`.
    listen: String,
    /// Where it serves its measurements, if it said.
    stats: Option<SocketAddr>,
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proxies in front of one group's Postgres and Redis, and the launch
/// whose servers use them.
pub(super) struct GroupNetwork {
    _proxies: Vec<ProxyProcess>,
    pub(super) launch: Launch,
}

/// `launch` itself for a local group; otherwise proxies for its Postgres and
/// Redis with `network`'s round trip, and a launch through them.
pub(super) fn for_group(launch: &Launch, network: Network) -> anyhow::Result<Option<GroupNetwork>> {
    let Network::RoundTrip(round_trip) = network else {
        return Ok(None);
    };
    let url_of = |flag: &str| {
        let at = launch.services.iter().position(|a| a == flag)?;
        launch.services.get(at + 1).map(String::as_str)
    };
    let (Some(database_url), Some(redis_url)) = (url_of("--database-url"), url_of("--redis-url"))
    else {
        bail!("a group behind a proxy needs Postgres and Redis, which this run has not");
    };
    let db = start(database_url, round_trip).context("the proxy in front of Postgres")?;
    let redis = start(redis_url, round_trip).context("the proxy in front of Redis")?;
    let through = launch.through(
        &via(database_url, &db.listen)?,
        &via(redis_url, &redis.listen)?,
        vec![db.child.id(), redis.child.id()],
        db.stats,
    );
    Ok(Some(GroupNetwork {
        _proxies: vec![db, redis],
        launch: through,
    }))
}

/// `url` with its host and port replaced by `listen`.
fn via(url: &str, listen: &str) -> anyhow::Result<String> {
    let addr = listen
        .parse()
        .with_context(|| format!("the proxy said it listens on {listen:?}"))?;
    Ok(net_tools::proxy::url_with_addr(url, addr))
}

/// `bench proxy --to <url's host:port> --round-trip-us N`, once it says
/// where it listens and where it serves its measurements.
fn start(url: &str, round_trip: Duration) -> anyhow::Result<ProxyProcess> {
    let target = net_tools::proxy::url_addr(url).with_context(|| format!("no address in {url}"))?;
    let exe = std::env::current_exe().context("cannot find bench's own executable")?;
    let mut child = Command::new(exe)
        .args(["proxy", "--to", &target.to_string()])
        .args(["--round-trip-us", &round_trip.as_micros().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start bench proxy")?;
    let (mut line, mut stats_line) = (String::new(), String::new());
    if let Some(out) = child.stdout.take() {
        let mut out = BufReader::new(out);
        out.read_line(&mut line)?;
        out.read_line(&mut stats_line)?;
    }
    let listen = line.trim().strip_prefix("listening on ").map(str::to_owned);
    let stats = stats_line
        .trim()
        .strip_prefix("stats on ")
        .and_then(|a| a.parse().ok());
    match listen {
        Some(listen) => Ok(ProxyProcess {
            child,
            listen,
            stats,
        }),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            bail!("bench proxy did not say where it listens (it printed {line:?})")
        }
    }
}

impl Launch {
    /// The same launch, its servers reaching Postgres and Redis at
    /// `database_url` and `redis_url` (proxies, whose pids are
    /// `proxy_pids`, the Postgres one's measurements served at
    /// `postgres_proxy_stats`).
    fn through(
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
            java: self.java.clone(),
            blocking_external: self.blocking_external,
            async_external: self.async_external,
            logs: self.logs.clone(),
            set_up: Rc::clone(&self.set_up),
            proxy_pids,
            postgres_proxy_stats,
            irq_apart: self.irq_apart,
        }
    }
}
