//! `--postgres-driver deadpool`: tokio-postgres connections in a
//! deadpool-postgres pool, a request checking one out for itself (what
//! r2dbc-pool does for R2DBC).
//!
//! One round trip per request: a checkout costs none
//! (`RecyclingMethod::Fast` only asks the client whether its connection
//! has closed; `--pool-test-on-checkout` makes it `Verified`, an empty
//! query first), the user query is prepared once per connection (the
//! pool's statement cache) and then each request is one Bind/Execute/Sync
//! and its answer. With the pool of N, at most N queries are in flight.

use std::time::Duration;

use contract::model::User;
use contract::sql::{SELECT_ALL_USER_CACHE_FIELDS, SELECT_USER_BY_ID};
use deadpool::managed::{Hook, HookError};
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use server_settings::CommonSettings;
use tokio::time::{timeout_at, Instant};
use tokio_postgres::NoTls;

use super::{no_answer, pg_error, DbWaits};
use crate::error::AppError;

/// The pool, built without connecting (connections open on first use).
pub(crate) fn pool(common: &CommonSettings) -> anyhow::Result<Pool> {
    let config = server_support::sync_postgres::config(common, super::APPLICATION_NAME)?;
    let recycling_method = if common.pool_test_on_checkout {
        RecyclingMethod::Verified
    } else {
        RecyclingMethod::Fast
    };
    let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method });
    let idle_timeout = common.pool_idle_timeout();
    let timeout = Some(common.acquire_timeout());
    Pool::builder(manager)
        .max_size(common.db_pool_size as usize)
        .runtime(deadpool::Runtime::Tokio1)
        .wait_timeout(timeout)
        .create_timeout(timeout)
        .recycle_timeout(timeout)
        // deadpool records when a connection was last handed out; one idle
        // for longer than the idle timeout is closed and a fresh one
        // opened, as r2d2 and sqlx do.
        .pre_recycle(Hook::sync_fn(move |_, metrics| match idle_timeout {
            Some(limit) if metrics.last_used() > limit => {
                Err(HookError::message("idle for longer than the idle timeout"))
            }
            _ => Ok(()),
        }))
        .build()
        .map_err(|e| anyhow::anyhow!("building the deadpool-postgres pool: {e}"))
}

/// A checked-out connection before `deadline` (`timeout` from the start),
/// timed for `pool_acquire_wait_seconds_total`.
async fn checkout(
    pool: &Pool,
    waits: &DbWaits,
    deadline: Instant,
    timeout: Duration,
) -> Result<Object, AppError> {
    let _timer = waits.time();
    match timeout_at(deadline, pool.get()).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(deadpool_postgres::PoolError::Backend(e))) => Err(pg_error("deadpool", e)),
        Ok(Err(e)) => Err(AppError::unavailable(
            "database",
            format_args!("postgres (deadpool) pool: {e}"),
        )),
        Err(_) => Err(no_answer("deadpool", timeout)),
    }
}

/// `SELECT_USER_BY_ID` on a connection of the pool's own. The task is
/// parked while it waits for a connection and for Postgres.
pub(crate) async fn find_user(
    pool: &Pool,
    waits: &DbWaits,
    id: i64,
    timeout: Duration,
) -> Result<Option<User>, AppError> {
    let deadline = Instant::now() + timeout;
    let conn = checkout(pool, waits, deadline, timeout).await?;
    let query = async {
        let statement = conn.prepare_cached(SELECT_USER_BY_ID).await?;
        conn.query_opt(&statement, &[&id]).await
    };
    match timeout_at(deadline, query).await {
        Ok(Ok(row)) => row
            .map(|row| server_support::sync_postgres::user_from_row(&row))
            .transpose()
            .map_err(|e| AppError::internal(format_args!("postgres (deadpool): {e}"))),
        Ok(Err(e)) => Err(pg_error("deadpool", e)),
        Err(_) => {
            // Its answer may still come: never hand this connection out again.
            drop(Object::take(conn));
            Err(no_answer("deadpool", timeout))
        }
    }
}

/// Every user's id, name and email (start-up cache seeding).
pub(crate) async fn all_user_cache_fields(
    pool: &Pool,
    waits: &DbWaits,
    timeout: Duration,
) -> Result<Vec<(i64, String, String)>, AppError> {
    let deadline = Instant::now() + timeout;
    let conn = checkout(pool, waits, deadline, timeout).await?;
    match timeout_at(deadline, conn.query(SELECT_ALL_USER_CACHE_FIELDS, &[])).await {
        Ok(Ok(rows)) => super::cache_fields(&rows, "deadpool"),
        Ok(Err(e)) => Err(pg_error("deadpool", e)),
        Err(_) => Err(no_answer("deadpool", timeout)),
    }
}

/// Runs `sql` on a connection of its own and waits for its answer (the
/// tests' slow query).
#[cfg(test)]
pub(crate) async fn execute(pool: &Pool, sql: &str) -> Result<(), AppError> {
    let conn = pool
        .get()
        .await
        .map_err(|e| AppError::unavailable("database", e))?;
    conn.batch_execute(sql)
        .await
        .map_err(|e| pg_error("deadpool", e))
}
