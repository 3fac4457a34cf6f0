//! `--postgres-driver sqlx` (the default, the design card's): sqlx's
//! non-blocking `PgPool`, the R2DBC column.
//!
//! Its price is two round trips per request: sqlx pings every connection
//! as it goes back to the pool (sqlx-core's `return_to_pool`: a `Sync` and
//! a wait for `ReadyForQuery`), and no option turns that off. The
//! connection is not free for the next request until the ping's answer has
//! come, so with Postgres a round trip away a pool of N serves at most
//! N / (2 x round trip) requests a second. docs/database.md has the count.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use contract::model::User;
use contract::sql::{SELECT_ALL_USER_CACHE_FIELDS, SELECT_USER_BY_ID};
use server_settings::CommonSettings;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::{no_answer, sqlstate_is_unavailability, DbWaits};
use crate::error::AppError;

/// A `users` row as sqlx decodes it, before it becomes the contract's [`User`].
type UserRow = (i64, String, String, DateTime<Utc>, DateTime<Utc>);

fn user_from_row((id, name, email, created_at, updated_at): UserRow) -> User {
    User {
        id,
        name,
        email,
        created_at,
        updated_at,
    }
}

/// The connection options of `DATABASE_URL`, as sqlx reads them (the
/// migrations' one connection uses them too).
pub(crate) fn connect_options(common: &CommonSettings) -> anyhow::Result<PgConnectOptions> {
    Ok(PgConnectOptions::from_str(&common.database_url)
        .context("parsing DATABASE_URL for sqlx")?
        .application_name(super::APPLICATION_NAME)
        // The migrations' `IF NOT EXISTS` notices are not news at every start.
        .options([("client_min_messages", "warning")]))
}

/// The sqlx pool, created lazily: no connection is opened until start-up asks.
///
/// sqlx keeps a per-connection cache of prepared statements (100 by default),
/// so `SELECT_USER_BY_ID` is parsed and planned once per connection, not per request.
pub(crate) fn connect_pool(common: &CommonSettings) -> anyhow::Result<PgPool> {
    Ok(PgPoolOptions::new()
        .max_connections(common.db_pool_size)
        .min_connections(0)
        .acquire_timeout(common.acquire_timeout())
        // Off by default: it would add a third round trip (`SELECT 1`) before
        // each checkout, to the query and the ping on release that sqlx
        // always sends. A broken connection shows up as an error on the
        // query, and sqlx drops it then.
        .test_before_acquire(common.pool_test_on_checkout)
        .idle_timeout(common.pool_idle_timeout())
        .connect_lazy_with(connect_options(common)?))
}

/// Whether a sqlx error means "Postgres is not there or not answering" (503)
/// rather than a bug of ours (500).
fn sqlx_error_is_unavailability(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => sqlstate_is_unavailability(db.code().as_deref()),
        _ => false,
    }
}

fn sqlx_error(e: sqlx::Error) -> AppError {
    if sqlx_error_is_unavailability(&e) {
        AppError::unavailable("database", format_args!("postgres (sqlx): {e}"))
    } else {
        AppError::internal(format_args!("postgres (sqlx): {e}"))
    }
}

/// `SELECT_USER_BY_ID` through sqlx. The calling task is parked while it
/// waits for a connection and for Postgres; its worker runs other tasks
/// meanwhile. The checkout is timed for `pool_acquire_wait_seconds_total`.
///
/// The whole checkout-plus-query is bounded by `timeout`, so a Postgres
/// that accepts connections but never answers gives a 503, not a hang.
pub(crate) async fn find_user(
    pool: &PgPool,
    waits: &DbWaits,
    id: i64,
    timeout: Duration,
) -> Result<Option<User>, AppError> {
    let query = async {
        let mut conn = {
            let _timer = waits.time();
            pool.acquire().await?
        };
        // Dropping `conn` afterwards hands it back to the pool, where sqlx
        // pings it before anyone else may have it.
        sqlx::query_as::<_, UserRow>(SELECT_USER_BY_ID)
            .bind(id)
            .fetch_optional(&mut *conn)
            .await
    };
    match tokio::time::timeout(timeout, query).await {
        Ok(Ok(row)) => Ok(row.map(user_from_row)),
        Ok(Err(e)) => Err(sqlx_error(e)),
        Err(_) => Err(no_answer("sqlx", timeout)),
    }
}

/// Every user's id, name and email (start-up cache seeding).
pub(crate) async fn all_user_cache_fields(
    pool: &PgPool,
    waits: &DbWaits,
    timeout: Duration,
) -> Result<Vec<(i64, String, String)>, AppError> {
    let query = async {
        let mut conn = {
            let _timer = waits.time();
            pool.acquire().await?
        };
        sqlx::query_as(SELECT_ALL_USER_CACHE_FIELDS)
            .fetch_all(&mut *conn)
            .await
    };
    match tokio::time::timeout(timeout, query).await {
        Ok(rows) => rows.map_err(sqlx_error),
        Err(_) => Err(no_answer("sqlx", timeout)),
    }
}

/// Runs `sql` on a pooled connection and waits for its answer (the tests'
/// slow query).
#[cfg(test)]
pub(crate) async fn execute(pool: &PgPool, sql: &str) -> Result<(), AppError> {
    sqlx::raw_sql(sql)
        .execute(pool)
        .await
        .map(drop)
        .map_err(sqlx_error)
}
