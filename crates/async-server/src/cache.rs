//! The cache routes' Redis commands, two ways: through the async client
//! (the ReactiveRedisTemplate column; which client, shared connection or
//! pool, is `--redis-client`, see [`crate::redis_clients`]) and through the
//! sync redis client behind r2d2, the blocking server's own (server-support's
//! `sync_redis`: a blocking RedisTemplate called from the event loop).
//!
//! The twin on the blocking server is its pinning driver
//! (crates/blocking-server/src/driver.rs), which uses only the sync client,
//! from its handler threads.

use std::time::Duration;

use contract::cache::{email_key, name_key};
use contract::model::CachedUser;
use contract::ApiError;
use r2d2::PooledConnection;
use redis::{AsyncCommands as _, RedisError};
use server_settings::CommonSettings;
use server_support::sync_redis::{self, RedisManager, RedisPool};

use crate::error::AppError;
use crate::redis_clients::{AsyncRedis, Handle};

/// A Redis error as the client sees it: a value our code cannot read is the
/// contract's `unreadable_answer` (500, the rule is the contract's: see
/// `contract::ApiError::unreadable_answer`); anything else means Redis is
/// not there or not answering (503). Twin: `cache_error` in
/// crates/blocking-server/src/handlers.rs.
fn redis_error(e: RedisError) -> AppError {
    if sync_redis::is_unreadable_value(&e) {
        AppError::with_cause(ApiError::unreadable_answer(), format_args!("redis: {e}"))
    } else {
        AppError::unavailable("cache", format_args!("redis: {e}"))
    }
}

/// Gets a handle from the client (`--redis-client`), runs `work` on it,
/// bounded by `timeout`.
///
/// A pooled connection whose command failed on the socket or timed out is
/// taken out of the pool rather than handed to the next request (with no
/// ping per checkout, this is how a broken connection is noticed), and the
/// shared connection is replaced.
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
            // An unreadable value is an answer: the connection is fine.
            if broken || (lease.is_shared() && !sync_redis::is_unreadable_value(&e)) {
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

/// The sync Redis pool (server-support's, the blocking server's own), built
/// without connecting (`min_idle` 0: no connection until used).
pub(crate) fn connect_sync_pool(common: &CommonSettings) -> anyhow::Result<RedisPool> {
    sync_redis::pool(common)
}

/// A checkout from the sync pool. BLOCKS THE CALLING THREAD while it waits
/// for a free connection (up to the acquire timeout).
fn sync_connection(pool: &RedisPool) -> Result<PooledConnection<RedisManager>, AppError> {
    pool.get()
        .map_err(|e| AppError::unavailable("cache", format_args!("redis (sync) pool: {e}")))
}

/// Both cached fields with the sync client, one GET after the other: the
/// blocking server's own calls (server-support's `sync_redis`). BLOCKS THE
/// CALLING THREAD on checkout and on each reply. Each GET is marked as a
/// blocking call, counted for the handler's route when the calling thread
/// is an event-loop worker (crate::blocking_calls); the checkout, blocking
/// too, is not counted apart.
pub(crate) fn get_cached_user_sync(
    pool: &RedisPool,
    prefix: &str,
    id: i64,
) -> Result<Option<CachedUser>, AppError> {
    let mut conn = sync_connection(pool)?;
    let (name, email) = sync_redis::get_user_fields(&mut conn, prefix, id).map_err(redis_error)?;
    Ok(name
        .zip(email)
        .map(|(name, email)| CachedUser { name, email }))
}

/// Sets both cached fields with the sync client, one pipeline (one blocking
/// call, marked as such). BLOCKS THE CALLING THREAD.
pub(crate) fn set_cached_user_sync(
    pool: &RedisPool,
    prefix: &str,
    id: i64,
    user: &CachedUser,
) -> Result<(), AppError> {
    let mut conn = sync_connection(pool)?;
    sync_redis::set_user_fields(&mut conn, prefix, id, (&user.name, &user.email))
        .map_err(redis_error)
}
