//! The process-wide Redis: found (running) or started (throwaway), and key
//! prefixes on it that tests own and that are cleaned on drop.

use std::time::Duration;

use anyhow::{bail, Context};
use uuid::Uuid;

use crate::service_lookup::{find_running_or_start, ServiceSpec};
use crate::service_slot::ServiceSlot;
use crate::throwaway_redis;
use contract::settings::redact_url;

/// Used when `REDIS_URL` is not set.
const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// What the lookup (`service_lookup`) needs to know about Redis.
const SERVICE: ServiceSpec = ServiceSpec {
    name: "Redis",
    url_var: "REDIS_URL",
    default_url: DEFAULT_URL,
    binaries_missing: "no redis-server binary was found on PATH",
    package: "redis-server",
};

/// Connect and read timeout for the clean-up of a prefix.
const CLEANUP_TIMEOUT: Duration = Duration::from_secs(5);

static REDIS: ServiceSlot<Redis> = ServiceSlot::new();

/// A Redis server that answers.
#[derive(Debug)]
pub struct Redis {
    url: String,
    started_here: bool,
}

/// The process-wide Redis: the one at `REDIS_URL` (default
/// `redis://127.0.0.1:6379`) if it answers within about a second; else a
/// throwaway `redis-server`; else an error saying what to install.
pub fn redis() -> anyhow::Result<&'static Redis> {
    REDIS.get_or_find(find_or_start)
}

impl Redis {
    /// The server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// True when this process started the server.
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// A new key prefix `t_<uuid>:` for one test. Every key under it is
    /// deleted when the returned value is dropped.
    pub fn fresh_prefix(&self) -> RedisPrefix {
        RedisPrefix {
            url: self.url.clone(),
            prefix: format!("t_{}:", Uuid::new_v4().simple()),
        }
    }
}

/// A key prefix owned by one test; see [`Redis::fresh_prefix`].
#[derive(Debug)]
pub struct RedisPrefix {
    url: String,
    prefix: String,
}

impl RedisPrefix {
    /// The prefix, ending in `:`.
    pub fn as_str(&self) -> &str {
        &self.prefix
    }
}

impl Drop for RedisPrefix {
    fn drop(&mut self) {
        // Errors are ignored: the keys of a vanished server are gone anyway,
        // and a failed clean-up must not panic during unwinding.
        let _ = delete_keys_under(&self.url, &self.prefix);
    }
}

/// Empties the process-wide slot if it holds a server started here.
pub(crate) fn forget_started() {
    REDIS.forget_if(Redis::started_here);
}

/// Succeeds when the server at `url` answers PING within about `timeout`.
fn probe(url: &str, timeout: Duration) -> anyhow::Result<()> {
    let mut connection = connect(url, timeout)?;
    let pong: String = redis::cmd("PING")
        .query(&mut connection)
        .context("send PING")?;
    if pong != "PONG" {
        bail!("PING answered {pong:?}");
    }
    Ok(())
}

fn find_or_start() -> anyhow::Result<Redis> {
    let found = find_running_or_start(&SERVICE, probe, throwaway_redis::start)?;
    Ok(Redis {
        url: found.url,
        started_here: found.started_here,
    })
}

fn connect(url: &str, timeout: Duration) -> anyhow::Result<redis::Connection> {
    let client = redis::Client::open(url)
        .with_context(|| format!("parse the Redis URL {}", redact_url(url)))?;
    let connection = client
        .get_connection_with_timeout(timeout)
        .with_context(|| format!("connect to {}", redact_url(url)))?;
    connection
        .set_read_timeout(Some(timeout))
        .context("set the Redis read timeout")?;
    Ok(connection)
}

fn delete_keys_under(url: &str, prefix: &str) -> anyhow::Result<()> {
    let mut connection = connect(url, CLEANUP_TIMEOUT)?;
    let pattern = format!("{prefix}*");
    let mut cursor: u64 = 0;
    loop {
        // SCAN rather than KEYS: it does not block a shared server.
        let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query(&mut connection)
            .context("scan keys")?;
        if !keys.is_empty() {
            redis::cmd("DEL")
                .arg(&keys)
                .query::<()>(&mut connection)
                .context("delete keys")?;
        }
        cursor = next;
        if cursor == 0 {
            return Ok(());
        }
    }
}
