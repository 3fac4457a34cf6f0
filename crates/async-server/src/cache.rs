//! The cache routes' Redis commands, two ways: through the async client
//! (the ReactiveRedisTemplate column; which client, shared connection or
//! pool, is `--redis-client`, see [`crate::redis_clients`]) and through the
//! sync redis client behind r2d2 (a blocking RedisTemplate called from the
//! event loop).
//!
//! The twin on the blocking server is crates/blocking-server/src/cache.rs,
//! which uses only the sync client, from its handler threads.

use std::time::Duration;

use anyhow::Context as _;
use contract::cache::{email_key, name_key};
use contract::model::CachedUser;
use contract::settings::CommonSettings;
use redis::{AsyncCommands as _, ConnectionLike as _, RedisError};

use crate::blocking_calls::{self, BlockingCall};
use crate::error::AppError;
use crate::redis_clients::{AsyncRedis, Handle};

/// Whether a Redis error means "Redis is not there or not answering" (503)
/// rather than a bug of ours, such as a value of the wrong type (500).
fn redis_error(e: RedisError) -> AppError {
    if e.kind() == redis::ErrorKind::TypeError {
        AppError::internal(format_args!("redis: {e}"))
    } else {
        AppError::unavailable("cache", format_args!("redis: {e}"))
    }
}

/// Gets a handle from the client (`--redis-client`), runs `work` on it,
/// bounded by `timeout`.
///
/// A pooled connection whose command failed on the socket or timed out is
/// taken out of the pool rather than handed to the next request: with no
/// ping per checkout, this is how a broken connection is noticed.
async fn with_connection<T, F>(
    redis: &AsyncRedis,
    timeout: Duration,
    work: F,
) -> Result<T, AppError>
where
    F: AsyncFnOnce(&mut Handle) -> Result<T, RedisError>,
{
    let (mut conn, lease) = redis.checkout(timeout, redis_error).await?;
    match tokio::time::timeout(timeout, work(&mut conn)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            let broken = e.is_io_error()
                || e.is_unrecoverable_error()
                || e.is_timeout()
                || e.is_connection_dropped()
                || e.is_connection_refusal();
            if broken || (lease.is_shared() && e.kind() != redis::ErrorKind::TypeError) {
                lease.discard();
            }
            Err(redis_error(e))
        }
        Err(_) => {
            lease.discard();
            Err(AppError::unavailable(
                "cache",
                format_args!("redis: no answer within {timeout:?}"),
            ))
        }
    }
}

/// Both cached fields, or `None` if either is missing.
///
/// The two GETs go out at once on one multiplexed connection and the task
/// waits for both answers — `Mono.zip` of seed 001. The worker thread runs
/// other tasks meanwhile.
pub(crate) async fn get_cached_user(
    redis: &AsyncRedis,
    prefix: &str,
    id: i64,
    timeout: Duration,
) -> Result<Option<CachedUser>, AppError> {
    let (name_key, email_key) = (name_key(prefix, id), email_key(prefix, id));
    with_connection(redis, timeout, async |conn| {
        // A multiplexed connection is a cheap handle to one socket; a second
        // handle lets both commands be in flight together (on the shared
        // connection, pipelined with other requests' commands).
        let mut second = conn.clone();
        let (name, email): (Option<String>, Option<String>) =
            tokio::try_join!(conn.get(&name_key), second.get(&email_key))?;
        Ok(name
            .zip(email)
            .map(|(name, email)| CachedUser { name, email }))
    })
    .await
}

/// Sets both cached fields (the write half of cache-aside), in one pipeline.
pub(crate) async fn set_cached_user(
    redis: &AsyncRedis,
    prefix: &str,
    id: i64,
    user: &CachedUser,
    timeout: Duration,
) -> Result<(), AppError> {
    let mut pipe = redis::pipe();
    pipe.set(name_key(prefix, id), &user.name)
        .ignore()
        .set(email_key(prefix, id), &user.email)
        .ignore();
    with_connection(redis, timeout, async |conn| {
        pipe.query_async::<()>(conn).await
    })
    .await
}

/// Writes `(id, name, email)` rows into the cache in pipelined batches of
/// [`contract::cache::SEED_BATCH`] keys. Used at start-up.
pub(crate) async fn seed(
    redis: &AsyncRedis,
    prefix: &str,
    users: &[(i64, String, String)],
    timeout: Duration,
) -> Result<(), AppError> {
    let users_per_batch = (contract::cache::SEED_BATCH / 2).max(1);
    for batch in users.chunks(users_per_batch) {
        let mut pipe = redis::pipe();
        for (id, name, email) in batch {
            pipe.set(name_key(prefix, *id), name)
                .ignore()
                .set(email_key(prefix, *id), email)
                .ignore();
        }
        with_connection(redis, timeout, async |conn| {
            pipe.query_async::<()>(conn).await
        })
        .await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The sync client, for /users/{id}/cache/blocking
// ---------------------------------------------------------------------------

/// Opens sync connections with read and write timeouts, so a stalled Redis
/// fails a command after the acquire timeout instead of holding a thread forever.
pub(crate) struct SyncRedisManager {
    client: redis::Client,
    timeout: Duration,
}

impl r2d2::ManageConnection for SyncRedisManager {
    type Connection = redis::Connection;
    type Error = RedisError;

    fn connect(&self) -> Result<redis::Connection, RedisError> {
        let conn = self.client.get_connection_with_timeout(self.timeout)?;
        conn.set_read_timeout(Some(self.timeout))?;
        conn.set_write_timeout(Some(self.timeout))?;
        Ok(conn)
    }

    /// A `PING` round trip; r2d2 calls it only with test-on-checkout on.
    fn is_valid(&self, conn: &mut redis::Connection) -> Result<(), RedisError> {
        redis::cmd("PING").query::<String>(conn).map(drop)
    }

    fn has_broken(&self, conn: &mut redis::Connection) -> bool {
        !conn.is_open()
    }
}

pub(crate) type SyncRedisPool = r2d2::Pool<SyncRedisManager>;

/// Builds the sync pool without connecting (`min_idle` 0: no connection until used).
pub(crate) fn connect_sync_pool(common: &CommonSettings) -> anyhow::Result<SyncRedisPool> {
    let client = redis::Client::open(common.redis_url.as_str()).context("parsing REDIS_URL")?;
    Ok(
        contract::pool::r2d2_builder(common, common.redis_pool_size).build_unchecked(
            SyncRedisManager {
                client,
                timeout: common.acquire_timeout(),
            },
        ),
    )
}

/// Both cached fields with the sync client, one GET after the other.
/// BLOCKS THE CALLING THREAD on checkout and on each reply. Each GET is
/// marked as a blocking call, counted for the handler's route when the
/// calling thread is an event-loop worker (crate::blocking_calls); the
/// checkout, blocking too, is not counted apart.
pub(crate) fn get_cached_user_sync(
    pool: &SyncRedisPool,
    prefix: &str,
    id: i64,
) -> Result<Option<CachedUser>, AppError> {
    let mut conn = pool
        .get()
        .map_err(|e| AppError::unavailable("cache", format_args!("redis (sync) pool: {e}")))?;
    blocking_calls::mark(BlockingCall::SyncRedisGet);
    let name: Option<String> = redis::cmd("GET")
        .arg(name_key(prefix, id))
        .query(&mut *conn)
        .map_err(redis_error)?;
    blocking_calls::mark(BlockingCall::SyncRedisGet);
    let email: Option<String> = redis::cmd("GET")
        .arg(email_key(prefix, id))
        .query(&mut *conn)
        .map_err(redis_error)?;
    Ok(name
        .zip(email)
        .map(|(name, email)| CachedUser { name, email }))
}

/// Sets both cached fields with the sync client, one pipeline (one blocking
/// call, marked as such). BLOCKS THE CALLING THREAD.
pub(crate) fn set_cached_user_sync(
    pool: &SyncRedisPool,
    prefix: &str,
    id: i64,
    user: &CachedUser,
) -> Result<(), AppError> {
    let mut conn = pool
        .get()
        .map_err(|e| AppError::unavailable("cache", format_args!("redis (sync) pool: {e}")))?;
    blocking_calls::mark(BlockingCall::SyncRedisSet);
    redis::pipe()
        .set(name_key(prefix, id), &user.name)
        .ignore()
        .set(email_key(prefix, id), &user.email)
        .ignore()
        .query::<()>(&mut *conn)
        .map_err(redis_error)
}
