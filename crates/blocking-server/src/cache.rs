//! Redis for the blocking server: the redis crate's sync connections in an
//! r2d2 pool. A command blocks the calling thread until Redis answers.
//!
//! Every wait is bounded by the acquire timeout: getting a pooled connection
//! (r2d2's `connection_timeout`), connecting (`get_connection_with_timeout`),
//! and each command (socket read and write timeouts), so a Redis that is down
//! or stalled gives a 503, never a hang.
//!
//! The twin is crates/async-server/src/cache.rs (one shared multiplexed
//! connection by default, or a pool), where the
//! two GETs of `/users/{id}/cache` go out at once; here they go one after the
//! other, each holding the thread for a round trip.

use std::time::Duration;

use contract::blocking_calls::{mark, BlockingCall};
use contract::cache::{email_key, name_key};
use contract::settings::CommonSettings;
use redis::{Commands, ConnectionLike, RedisResult};

pub(crate) type CachePool = r2d2::Pool<RedisManager>;

/// r2d2's view of a Redis connection, with timeouts on every socket wait.
pub(crate) struct RedisManager {
    client: redis::Client,
    timeout: Duration,
}

impl RedisManager {
    pub(crate) fn new(settings: &CommonSettings) -> anyhow::Result<Self> {
        let client = redis::Client::open(settings.redis_url.as_str())
            .map_err(|e| anyhow::anyhow!("parsing REDIS_URL: {e}"))?;
        Ok(RedisManager {
            client,
            timeout: settings.acquire_timeout(),
        })
    }

    /// A connection whose reads and writes give up after the timeout.
    pub(crate) fn open(&self) -> RedisResult<redis::Connection> {
        let conn = self.client.get_connection_with_timeout(self.timeout)?;
        conn.set_read_timeout(Some(self.timeout))?;
        conn.set_write_timeout(Some(self.timeout))?;
        Ok(conn)
    }
}

impl r2d2::ManageConnection for RedisManager {
    type Connection = redis::Connection;
    type Error = redis::RedisError;

    fn connect(&self) -> RedisResult<redis::Connection> {
        self.open()
    }

    fn is_valid(&self, conn: &mut redis::Connection) -> RedisResult<()> {
        redis::cmd("PING").query::<String>(conn).map(drop)
    }

    fn has_broken(&self, conn: &mut redis::Connection) -> bool {
        !conn.is_open()
    }
}

/// The pool, built without connecting (connections open on first use).
pub(crate) fn pool(settings: &CommonSettings) -> anyhow::Result<CachePool> {
    Ok(
        contract::pool::r2d2_builder(settings, settings.redis_pool_size)
            .error_handler(Box::new(crate::db::LogPoolErrors("redis")))
            .build_unchecked(RedisManager::new(settings)?),
    )
}

/// The two cached fields of a user: two GETs, one after the other.
pub(crate) fn get_user_fields(
    conn: &mut redis::Connection,
    prefix: &str,
    id: i64,
) -> RedisResult<(Option<String>, Option<String>)> {
    // Each counted only on a carrier (crate::virtual_threads::pinning).
    mark(BlockingCall::SyncRedisGet);
    let name: Option<String> = conn.get(name_key(prefix, id))?;
    mark(BlockingCall::SyncRedisGet);
    let email: Option<String> = conn.get(email_key(prefix, id))?;
    Ok((name, email))
}

/// Sets both cached fields of a user in one pipelined round trip.
pub(crate) fn set_user_fields(
    conn: &mut redis::Connection,
    prefix: &str,
    id: i64,
    name: &str,
    email: &str,
) -> RedisResult<()> {
    mark(BlockingCall::SyncRedisSet);
    redis::pipe()
        .set(name_key(prefix, id), name)
        .ignore()
        .set(email_key(prefix, id), email)
        .ignore()
        .query(conn)
}
