//! Redis through the redis crate's sync connections in an r2d2 pool: a
//! command blocks the calling thread until Redis answers.
//!
//! Who calls it: the blocking server's handlers (its pinning driver), and
//! the async server's `/users/{id}/cache/blocking`, which makes the same
//! calls on an event-loop worker on purpose (a blocking RedisTemplate
//! called from WebFlux).
//!
//! Every wait is bounded by the acquire timeout: getting a pooled connection
//! (r2d2's `connection_timeout`), connecting (`get_connection_with_timeout`),
//! and each command (socket read and write timeouts), so a Redis that is down
//! or stalled gives a 503, never a hang.

use std::time::Duration;

use contract::cache::{email_key, name_key};
use redis::{Commands, ConnectionLike, RedisResult};
use server_metrics::blocking_calls::{mark, BlockingCall};
use server_settings::CommonSettings;

use crate::LogPoolErrors;

/// The pool of sync connections.
pub type RedisPool = r2d2::Pool<RedisManager>;

/// r2d2's view of a Redis connection, with timeouts on every socket wait.
pub struct RedisManager {
    client: redis::Client,
    timeout: Duration,
}

impl RedisManager {
    /// From `REDIS_URL`; each wait bounded by the acquire timeout.
    pub fn new(settings: &CommonSettings) -> anyhow::Result<Self> {
        let client = redis::Client::open(settings.redis_url.as_str())
            .map_err(|e| anyhow::anyhow!("parsing REDIS_URL: {e}"))?;
        Ok(RedisManager {
            client,
            timeout: settings.acquire_timeout(),
        })
    }

    /// A connection whose reads and writes give up after the timeout.
    /// Blocks the calling thread while it connects.
    pub fn open(&self) -> RedisResult<redis::Connection> {
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

    /// A `PING` round trip; r2d2 calls it only with test-on-checkout on.
    fn is_valid(&self, conn: &mut redis::Connection) -> RedisResult<()> {
        redis::cmd("PING").query::<String>(conn).map(drop)
    }

    fn has_broken(&self, conn: &mut redis::Connection) -> bool {
        !conn.is_open()
    }
}

/// The pool (`--redis-pool-size` connections), built without connecting
/// (connections open on first use). Starts r2d2's helper threads.
pub fn pool(settings: &CommonSettings) -> anyhow::Result<RedisPool> {
    Ok(
        crate::pool::r2d2_builder(settings, settings.redis_pool_size)
            .error_handler(Box::new(LogPoolErrors("redis")))
            .build_unchecked(RedisManager::new(settings)?),
    )
}

/// Why a Redis call failed, which decides the answer: the twin of
/// [`crate::sync_postgres::DbError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// No connection or no answer in time, or the connection broke: 503.
    #[error("cache unavailable: {0}")]
    Unavailable(String),
    /// Redis answered with a value our code cannot read
    /// ([`is_unreadable_value`]): the contract's
    /// `ApiError::unreadable_answer`, a 500.
    #[error("unreadable cached value: {0}")]
    Unreadable(String),
}

impl From<redis::RedisError> for CacheError {
    fn from(e: redis::RedisError) -> Self {
        if is_unreadable_value(&e) {
            CacheError::Unreadable(e.to_string())
        } else {
            CacheError::Unavailable(e.to_string())
        }
    }
}

/// Whether a redis crate error says that Redis answered with a value our
/// code cannot read, rather than that it is down, stalled or broken: a
/// value that does not convert (`TypeError`: not UTF-8 text), or a key that
/// holds another type than a string (Redis' `WRONGTYPE` reply). Both
/// servers answer it with the contract's `ApiError::unreadable_answer`
/// (500), whichever redis crate client read it; the connection is fine and
/// stays in use.
pub fn is_unreadable_value(e: &redis::RedisError) -> bool {
    e.kind() == redis::ErrorKind::TypeError || e.code() == Some("WRONGTYPE")
}

/// The two cached fields of a user: two GETs, one after the other, each
/// blocking the calling thread for a round trip.
pub fn get_user_fields(
    conn: &mut redis::Connection,
    prefix: &str,
    id: i64,
) -> RedisResult<(Option<String>, Option<String>)> {
    // Each counted only where blocking harms others (server_metrics::blocking_calls).
    mark(BlockingCall::SyncRedisGet);
    let name: Option<String> = conn.get(name_key(prefix, id))?;
    mark(BlockingCall::SyncRedisGet);
    let email: Option<String> = conn.get(email_key(prefix, id))?;
    Ok((name, email))
}

/// Sets both cached fields of a user in one pipelined round trip, blocking
/// the calling thread for it.
pub fn set_user_fields(
    conn: &mut redis::Connection,
    prefix: &str,
    id: i64,
    (name, email): (&str, &str),
) -> RedisResult<()> {
    mark(BlockingCall::SyncRedisSet);
    redis::pipe()
        .set(name_key(prefix, id), name)
        .ignore()
        .set(email_key(prefix, id), email)
        .ignore()
        .query(conn)
}
