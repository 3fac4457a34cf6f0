//! The seam between the handlers and the Postgres and Redis clients they
//! call, named so that a reader can see it is the only one: `--driver`
//! picks what is behind it, and the handlers read the same either way
//! (Spring's switch to virtual threads changes the executor, not the
//! controllers).
//!
//! - `pinning`: the sync clients (server-support's `sync_postgres`, the
//!   sync driver, in an r2d2 pool; for Redis, `--redis-client`: the one
//!   connection every thread shares, `shared_redis`, Lettuce's shape, or
//!   the r2d2 pool of `sync_redis`, Jedis' shape). Each call blocks the
//!   thread that makes it until the answer comes: a platform handler
//!   thread, as in Spring MVC with JDBC and RedisTemplate; on virtual
//!   threads, the carrier, as a JDBC driver inside `synchronized` pinned
//!   its carrier before JDK 24. Each call is made through the request's
//!   `Waits::blocking` (crate::executor), which on a carrier marks and
//!   times it for the pinning detector.
//! - `yielding` (virtual threads only): coroutine-aware clients on may's
//!   sockets, in a pool whose waiting checkouts park too
//!   (crate::yielding). Each wait parks the coroutine through the
//!   request's `Waits` and frees the carrier, so these calls are not
//!   marked.
//!
//! Every call takes the request's `Waits`: whichever driver is behind it,
//! a call may wait, and the executor decides what waiting means.
//!
//! Every checkout is timed here, for `pool_acquires_total` and
//! `pool_acquire_wait_seconds_total`; the shared Redis connection's
//! "checkout" is taking a handle to it (and opening it, when it is not
//! open), so its figures say how long requests waited for a connection to
//! Redis, as a pool's do.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use contract::model::User;
use server_metrics::metrics::{PoolGauges, PoolWaitTotals};
use server_settings::CommonSettings;

use crate::executor::Waits;
use crate::settings::RedisClient;
use crate::yielding::pool::{Pool, PoolState, Pooled};
use crate::yielding::postgres::PgConn;
use crate::yielding::resp::RedisConn;
use server_support::shared_redis::{SharedConn, SharedRedis};
use server_support::sync_postgres::{self, DbError};
use server_support::sync_redis::{self, CacheError};

/// The clients behind `AppState`.
pub(crate) struct Driver {
    clients: Clients,
    db_waits: PoolWaits,
    cache_waits: PoolWaits,
}

enum Clients {
    Pinning {
        db: sync_postgres::PgPool,
        cache: SyncCache,
    },
    Yielding {
        db: Pool<PgConn>,
        cache: Pool<RedisConn>,
    },
}

/// The pinning driver's Redis client (`--redis-client`).
enum SyncCache {
    /// One multiplexed connection every handler thread shares (Lettuce's
    /// shape). Boxed: it is large (its runtime), and built once.
    Shared(Box<SharedRedis>),
    /// An r2d2 pool of exclusive connections (Jedis' shape).
    Pool(sync_redis::RedisPool),
}

/// A pooled Postgres connection, checked out for one request.
// It lives on the request's stack for one request; boxing the larger
// (pinning) variant would cost an allocation per checkout instead.
#[allow(clippy::large_enum_variant)]
pub(crate) enum DbConn {
    Pinning(r2d2::PooledConnection<sync_postgres::PgManager>),
    Yielding(Pooled<PgConn>),
}

/// A Redis connection for one request: a handle to the shared one, or a
/// pooled one checked out for it.
pub(crate) enum CacheConn<'d> {
    Shared(SharedConn<'d>),
    Pooled(r2d2::PooledConnection<sync_redis::RedisManager>),
    Yielding(Pooled<RedisConn>),
}

/// Why a Postgres checkout failed (the handler answers 503).
#[derive(Debug)]
pub(crate) struct Unavailable(String);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Driver {
    /// The pinning driver: the sync clients, `redis` the Redis one, built
    /// without connecting (connections open on first use).
    pub(crate) fn pinning(settings: &CommonSettings, redis: RedisClient) -> anyhow::Result<Driver> {
        let cache = match redis {
            RedisClient::Shared => SyncCache::Shared(Box::new(SharedRedis::new(settings)?)),
            RedisClient::Pool => SyncCache::Pool(sync_redis::pool(settings)?),
        };
        Ok(Driver {
            clients: Clients::Pinning {
                db: sync_postgres::pool(settings, crate::startup::APPLICATION_NAME)?,
                cache,
            },
            db_waits: PoolWaits::default(),
            cache_waits: PoolWaits::default(),
        })
    }

    /// The yielding driver: the coroutine-aware clients' pools, with the
    /// same sizes and timeouts, built without connecting.
    pub(crate) fn yielding(settings: &CommonSettings) -> anyhow::Result<Driver> {
        Ok(Driver {
            clients: Clients::Yielding {
                db: crate::yielding::postgres::pool(settings)?,
                cache: crate::yielding::resp::pool(settings)?,
            },
            db_waits: PoolWaits::default(),
            cache_waits: PoolWaits::default(),
        })
    }

    /// A Postgres connection within the acquire timeout. r2d2's checkout
    /// blocks the thread (a condvar) while it waits; the yielding pool's
    /// parks the coroutine.
    pub(crate) fn db(&self, waits: &Waits<'_>) -> Result<DbConn, Unavailable> {
        let started = Instant::now();
        let conn = match &self.clients {
            Clients::Pinning { db, .. } => db
                .get()
                .map(DbConn::Pinning)
                .map_err(|e| Unavailable(e.to_string())),
            Clients::Yielding { db, .. } => {
                db.get(waits).map(DbConn::Yielding).map_err(Unavailable)
            }
        };
        self.db_waits.record(started.elapsed());
        conn
    }

    /// A Redis connection within the acquire timeout (waiting as
    /// [`Driver::db`] does). The shared connection is handed out at once
    /// when it is open; when it is not, the thread blocks while it opens.
    pub(crate) fn cache(&self, waits: &Waits<'_>) -> Result<CacheConn<'_>, CacheError> {
        let started = Instant::now();
        let conn = match &self.clients {
            Clients::Pinning {
                cache: SyncCache::Shared(shared),
                ..
            } => shared.connection().map(CacheConn::Shared),
            Clients::Pinning {
                cache: SyncCache::Pool(cache),
                ..
            } => cache
                .get()
                .map(CacheConn::Pooled)
                .map_err(|e| CacheError::Unavailable(e.to_string())),
            Clients::Yielding { cache, .. } => cache
                .get(waits)
                .map(CacheConn::Yielding)
                .map_err(CacheError::Unavailable),
        };
        self.cache_waits.record(started.elapsed());
        conn
    }

    /// Both pools' gauges and checkout totals, for `/metrics`.
    pub(crate) fn pool_gauges(&self) -> Vec<PoolGauges> {
        match &self.clients {
            Clients::Pinning { db, cache } => {
                let d = db.state();
                vec![
                    PoolGauges {
                        pool: "postgres",
                        max_size: u64::from(db.max_size()),
                        size: u64::from(d.connections),
                        idle: u64::from(d.idle_connections),
                        // r2d2 does not say how many threads wait for a connection.
                        waiters: None,
                        waits: Some(self.db_waits.totals()),
                    },
                    cache_gauges(cache, &self.cache_waits),
                ]
            }
            Clients::Yielding { db, cache } => vec![
                yielding_gauges("postgres", db.state(), &self.db_waits),
                yielding_gauges("redis", cache.state(), &self.cache_waits),
            ],
        }
    }
}

/// The pinning driver's Redis gauges. The shared connection counts as a
/// pool of one, always idle once open (nobody checks it out), as on the
/// async server.
fn cache_gauges(cache: &SyncCache, waits: &PoolWaits) -> PoolGauges {
    let (max_size, size, idle) = match cache {
        SyncCache::Shared(shared) => {
            let open = u64::from(shared.is_open());
            (1, open, open)
        }
        SyncCache::Pool(pool) => {
            let state = pool.state();
            (
                u64::from(pool.max_size()),
                u64::from(state.connections),
                u64::from(state.idle_connections),
            )
        }
    };
    PoolGauges {
        pool: "redis",
        max_size,
        size,
        idle,
        // Neither r2d2 nor the shared connection says how many threads wait.
        waiters: None,
        waits: Some(waits.totals()),
    }
}

/// A yielding pool's gauges; it counts its parked checkouts, so `waiters`
/// is known.
fn yielding_gauges(pool: &'static str, state: PoolState, waits: &PoolWaits) -> PoolGauges {
    PoolGauges {
        pool,
        max_size: state.max_size as u64,
        size: state.open as u64,
        idle: state.idle as u64,
        waiters: Some(state.waiters as u64),
        waits: Some(waits.totals()),
    }
}

impl DbConn {
    /// `GET /users/{id}`'s query.
    pub(crate) fn user_by_id(
        &mut self,
        waits: &Waits<'_>,
        id: i64,
    ) -> Result<Option<User>, DbError> {
        match self {
            DbConn::Pinning(conn) => waits.blocking(|| conn.user_by_id(id)),
            // Parks the coroutine while Postgres answers: not a pinning call.
            DbConn::Yielding(conn) => conn.user_by_id(waits, id),
        }
    }
}

impl CacheConn<'_> {
    /// The two cached fields of a user: two GETs, one after the other.
    pub(crate) fn get_user_fields(
        &mut self,
        waits: &Waits<'_>,
        prefix: &str,
        id: i64,
    ) -> Result<(Option<String>, Option<String>), CacheError> {
        match self {
            CacheConn::Shared(conn) => waits.blocking(|| conn.get_user_fields(prefix, id)),
            CacheConn::Pooled(conn) => waits
                .blocking(|| sync_redis::get_user_fields(conn, prefix, id))
                .map_err(CacheError::from),
            CacheConn::Yielding(conn) => conn.get_user_fields(waits, prefix, id),
        }
    }

    /// Sets both cached fields of a user in one pipelined round trip.
    pub(crate) fn set_user_fields(
        &mut self,
        waits: &Waits<'_>,
        prefix: &str,
        id: i64,
        (name, email): (&str, &str),
    ) -> Result<(), CacheError> {
        match self {
            CacheConn::Shared(conn) => {
                waits.blocking(|| conn.set_user_fields(prefix, id, (name, email)))
            }
            CacheConn::Pooled(conn) => waits
                .blocking(|| sync_redis::set_user_fields(conn, prefix, id, (name, email)))
                .map_err(CacheError::from),
            CacheConn::Yielding(conn) => conn.set_user_fields(waits, prefix, id, name, email),
        }
    }
}

/// A pool's checkouts and the time they waited.
#[derive(Debug, Default)]
struct PoolWaits {
    acquires: AtomicU64,
    waited_ns: AtomicU64,
}

impl PoolWaits {
    fn record(&self, waited: Duration) {
        self.acquires.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        self.waited_ns.fetch_add(ns, Ordering::Relaxed);
    }

    fn totals(&self) -> PoolWaitTotals {
        PoolWaitTotals {
            acquires: self.acquires.load(Ordering::Relaxed),
            waited: Duration::from_nanos(self.waited_ns.load(Ordering::Relaxed)),
        }
    }
}
