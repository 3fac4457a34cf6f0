//! The async server's Redis client, three ways (`--redis-client`), so the
//! report can show what sharing and pooling a multiplexed connection cost:
//!
//! - `shared` (the default, what Spring's ReactiveRedisTemplate does with
//!   Lettuce): ONE multiplexed connection for every request. Each request
//!   clones a handle; commands from many requests are pipelined on the one
//!   socket, and the task waits for its answers while the worker serves
//!   others. It is a `redis::aio::ConnectionManager` (which reconnects by
//!   itself after a dropped socket), opened on first use so the server starts
//!   without Redis, and replaced by a new one after any failed command:
//!   behind a proxy that accepts and then closes, the manager's own
//!   reconnect can settle on a failed attempt and never try again.
//! - `deadpool-redis`: the deadpool-redis crate's own `Manager` and pool as it
//!   ships them: a request checks a connection out for itself, and every
//!   checkout first sends `UNWATCH` + `PING` (a round trip per request).
//! - `pool`: our own deadpool manager ([`RedisManager`]): exclusive checkout
//!   like deadpool-redis, but no round trip per checkout (unless
//!   `--pool-test-on-checkout`), and idle connections retired after
//!   `--pool-idle-timeout-s`, the policy both servers' other pools follow.
//!
//! With a pool, at most `--redis-pool-size` requests talk to Redis at once and
//! a connection never carries two requests' commands; the shared connection
//! has no such cap. The blocking server has none of this: each handler
//! thread blocks on its own pooled sync connection (server-support's
//! `sync_redis`, behind crates/blocking-server/src/driver.rs).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use deadpool::managed::{self, Metrics, Object, RecycleError, RecycleResult};
use redis::aio::{
    ConnectionLike, ConnectionManager, ConnectionManagerConfig, MultiplexedConnection,
};
use redis::{AsyncConnectionConfig, Cmd, Pipeline, RedisError, RedisFuture, Value};
use server_settings::CommonSettings;

use crate::error::AppError;

/// Which client `--redis-client` picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RedisClientKind {
    /// One multiplexed connection shared by every request (Lettuce's default).
    Shared,
    /// deadpool-redis's pool as the crate ships it (UNWATCH + PING per checkout).
    DeadpoolRedis,
    /// Our pool of multiplexed connections: exclusive checkout, no round trip per checkout.
    Pool,
}

impl RedisClientKind {
    pub fn name(self) -> &'static str {
        match self {
            RedisClientKind::Shared => "shared",
            RedisClientKind::DeadpoolRedis => "deadpool-redis",
            RedisClientKind::Pool => "pool",
        }
    }
}

// ---------------------------------------------------------------------------
// Our pool's manager
// ---------------------------------------------------------------------------

/// Opens multiplexed connections and decides, on each checkout, whether a
/// pooled one may be handed out as it is.
pub(crate) struct RedisManager {
    client: redis::Client,
    config: AsyncConnectionConfig,
    test_on_checkout: bool,
    idle_timeout: Option<Duration>,
}

impl managed::Manager for RedisManager {
    type Type = MultiplexedConnection;
    type Error = RedisError;

    async fn create(&self) -> Result<MultiplexedConnection, RedisError> {
        self.client
            .get_multiplexed_async_connection_with_config(&self.config)
            .await
    }

    async fn recycle(
        &self,
        conn: &mut MultiplexedConnection,
        metrics: &Metrics,
    ) -> RecycleResult<RedisError> {
        // deadpool records when a connection was last handed out; one unused
        // for longer than the idle timeout is dropped and a fresh one opened,
        // as r2d2 and sqlx do with their idle timeout.
        if let Some(limit) = self.idle_timeout {
            if metrics.last_used() > limit {
                return Err(RecycleError::message(
                    "idle for longer than the idle timeout",
                ));
            }
        }
        if self.test_on_checkout {
            let _: String = redis::cmd("PING").query_async(conn).await?;
        }
        Ok(())
    }
}

type OurPool = managed::Pool<RedisManager>;

// ---------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------

/// The async Redis client of the server, whichever `--redis-client` chose.
pub(crate) enum AsyncRedis {
    Shared(Box<SharedConnection>),
    DeadpoolRedis(deadpool_redis::Pool),
    Pool(OurPool),
}

/// The one shared connection, opened on first use and replaced after a failure.
pub(crate) struct SharedConnection {
    client: redis::Client,
    config: ConnectionManagerConfig,
    /// Read on every request without a lock (a clone of an `Arc`).
    current: arc_swap::ArcSwapOption<ConnectionManager>,
    /// Held only while a connection is opened, so one request opens it and
    /// the others wait for that one (a tokio mutex: held across the connect).
    opening: tokio::sync::Mutex<()>,
}

impl SharedConnection {
    async fn get(
        &self,
        timeout: Duration,
        redis_error: fn(RedisError) -> AppError,
    ) -> Result<Arc<ConnectionManager>, AppError> {
        if let Some(conn) = self.current.load_full() {
            return Ok(conn);
        }
        let no_connection = || {
            AppError::unavailable(
                "cache",
                format_args!("redis: no connection within {timeout:?}"),
            )
        };
        let _opening = tokio::time::timeout(timeout, self.opening.lock())
            .await
            .map_err(|_| no_connection())?;
        if let Some(conn) = self.current.load_full() {
            return Ok(conn);
        }
        let open = ConnectionManager::new_with_config(self.client.clone(), self.config.clone());
        let conn = tokio::time::timeout(timeout, open)
            .await
            .map_err(|_| no_connection())?
            .map_err(redis_error)?;
        let conn = Arc::new(conn);
        self.current.store(Some(conn.clone()));
        Ok(conn)
    }

    /// Forgets `used` (if it is still the current one), so the next request opens a new one.
    fn reset(&self, used: &Arc<ConnectionManager>) {
        self.current.rcu(|now| match now {
            Some(c) if Arc::ptr_eq(c, used) => None,
            other => other.clone(),
        });
    }
}

/// A handle commands go through: a clone of the shared connection or of a
/// checked-out multiplexed one (cheap: both are handles to one socket).
#[derive(Clone)]
pub(crate) enum Handle {
    Shared(ConnectionManager),
    Multiplexed(MultiplexedConnection),
}

impl ConnectionLike for Handle {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Handle::Shared(c) => c.req_packed_command(cmd),
            Handle::Multiplexed(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Handle::Shared(c) => c.req_packed_commands(cmd, offset, count),
            Handle::Multiplexed(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Handle::Shared(c) => c.get_db(),
            Handle::Multiplexed(c) => c.get_db(),
        }
    }
}

/// What keeps a pooled connection checked out while a request uses it.
pub(crate) enum Lease<'a> {
    /// The shared connection is never checked out; kept to replace it on failure.
    Shared(&'a SharedConnection, Arc<ConnectionManager>),
    Ours(Object<RedisManager>),
    DeadpoolRedis(deadpool_redis::Connection),
}

impl Lease<'_> {
    /// Whether this is the shared connection, which is replaced after any
    /// error that is not about a value (a failed reconnect gives errors of
    /// several kinds).
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self, Lease::Shared(..))
    }

    /// Takes a connection whose command failed on the socket or timed out out
    /// of its pool, or replaces the shared one, so the next request does not
    /// get it.
    pub(crate) fn discard(self) {
        match self {
            Lease::Shared(shared, used) => shared.reset(&used),
            Lease::Ours(o) => drop(Object::take(o)),
            Lease::DeadpoolRedis(c) => drop(deadpool_redis::Connection::take(c)),
        }
    }
}

/// Pool figures for /metrics.
pub(crate) struct Gauges {
    pub(crate) max_size: u64,
    pub(crate) size: u64,
    pub(crate) idle: u64,
    pub(crate) waiters: Option<u64>,
}

fn pool_error<E: std::fmt::Display>(
    e: managed::PoolError<E>,
    backend: impl FnOnce(E) -> AppError,
) -> AppError {
    match e {
        managed::PoolError::Backend(e) => backend(e),
        managed::PoolError::Timeout(_) => {
            AppError::unavailable("cache", format_args!("redis pool: {e}"))
        }
        other => AppError::internal(format_args!("redis pool: {other}")),
    }
}

impl AsyncRedis {
    /// Builds the client `kind` without connecting.
    pub(crate) fn new(
        kind: RedisClientKind,
        common: &CommonSettings,
    ) -> anyhow::Result<AsyncRedis> {
        let timeout = common.acquire_timeout();
        let client = redis::Client::open(common.redis_url.as_str()).context("parsing REDIS_URL")?;
        let size = common.redis_pool_size as usize;
        Ok(match kind {
            RedisClientKind::Shared => AsyncRedis::Shared(Box::new(SharedConnection {
                client,
                config: ConnectionManagerConfig::new()
                    .set_connection_timeout(timeout)
                    .set_response_timeout(timeout)
                    // Reconnect quickly after an outage: 2 tries, 10 ms then 100 ms apart.
                    .set_number_of_retries(2)
                    .set_exponent_base(10)
                    .set_factor(10),
                current: arc_swap::ArcSwapOption::empty(),
                opening: tokio::sync::Mutex::new(()),
            })),
            RedisClientKind::DeadpoolRedis => AsyncRedis::DeadpoolRedis(
                bounded(
                    deadpool_redis::Pool::builder(
                        deadpool_redis::Manager::new(common.redis_url.as_str())
                            .context("parsing REDIS_URL")?,
                    ),
                    size,
                    timeout,
                )
                .context("building the deadpool-redis pool")?,
            ),
            RedisClientKind::Pool => AsyncRedis::Pool(
                bounded(
                    managed::Pool::builder(RedisManager {
                        client,
                        config: AsyncConnectionConfig::new()
                            .set_connection_timeout(timeout)
                            .set_response_timeout(timeout),
                        test_on_checkout: common.pool_test_on_checkout,
                        idle_timeout: common.pool_idle_timeout(),
                    }),
                    size,
                    timeout,
                )
                .context("building the redis pool")?,
            ),
        })
    }

    /// A handle for one request's commands, and the lease that keeps a
    /// pooled connection its own until dropped. The task awaits; the worker
    /// serves other tasks while a pool checkout or a first connect waits.
    pub(crate) async fn checkout(
        &self,
        timeout: Duration,
        redis_error: fn(RedisError) -> AppError,
    ) -> Result<(Handle, Lease<'_>), AppError> {
        match self {
            AsyncRedis::Shared(shared) => {
                let conn = shared.get(timeout, redis_error).await?;
                Ok((Handle::Shared((*conn).clone()), Lease::Shared(shared, conn)))
            }
            AsyncRedis::DeadpoolRedis(pool) => {
                let conn = pool.get().await.map_err(|e| pool_error(e, redis_error))?;
                Ok((
                    Handle::Multiplexed((*conn).clone()),
                    Lease::DeadpoolRedis(conn),
                ))
            }
            AsyncRedis::Pool(pool) => {
                let conn = pool.get().await.map_err(|e| pool_error(e, redis_error))?;
                Ok((Handle::Multiplexed((*conn).clone()), Lease::Ours(conn)))
            }
        }
    }

    /// Connections, idle ones and waiters, for /metrics. The shared
    /// connection counts as one connection, always idle (nobody checks it
    /// out), once it is open.
    pub(crate) fn gauges(&self) -> Gauges {
        let pooled = |s: deadpool::Status| Gauges {
            max_size: s.max_size as u64,
            size: s.size as u64,
            idle: s.available as u64,
            waiters: Some(s.waiting as u64),
        };
        match self {
            AsyncRedis::Shared(shared) => {
                let open = u64::from(shared.current.load().is_some());
                Gauges {
                    max_size: 1,
                    size: open,
                    idle: open,
                    waiters: None,
                }
            }
            AsyncRedis::DeadpoolRedis(pool) => pooled(pool.status()),
            AsyncRedis::Pool(pool) => pooled(pool.status()),
        }
    }
}

/// Both pools alike: `size` connections, and every wait (for a free
/// connection, to open one, to recycle one) bounded by the acquire timeout.
fn bounded<M: managed::Manager, W: From<managed::Object<M>>>(
    builder: managed::PoolBuilder<M, W>,
    size: usize,
    timeout: std::time::Duration,
) -> Result<managed::Pool<M, W>, managed::BuildError> {
    builder
        .max_size(size)
        .runtime(deadpool::Runtime::Tokio1)
        .wait_timeout(Some(timeout))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .build()
}
