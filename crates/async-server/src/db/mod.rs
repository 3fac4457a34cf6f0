//! Postgres for the async server: the non-blocking driver that
//! `--postgres-driver` picks for every route that reads Postgres
//! (`/users/{id}`, the cache route's miss, the start-up seeding), and the
//! sync driver of the JDBC-like variants ([`sync_driver`]).
//!
//! The model (an event loop) is not the driver. Three drivers, as
//! `--redis-client` offers three Redis clients, and what each costs a
//! request (docs/database.md):
//!
//! - `sqlx` (the default, the design card's; [`sqlx_pool`]): a pool, and
//!   two round trips per request, the query and the ping sqlx sends on
//!   every connection it takes back;
//! - `deadpool` ([`deadpool_pool`]): tokio-postgres in a deadpool-postgres
//!   pool, checkout without a round trip, the query prepared once per
//!   connection: one round trip per request;
//! - `pipelined` ([`pipelined`]): a few tokio-postgres clients shared by
//!   every request, many queries in flight on each connection, no pool.
//!
//! All three have the same bounds: a request waits at most the acquire
//! timeout for a connection (or a place in a pipeline) and for its answer,
//! then gets 503; a Postgres error is a 503 or a 500 by the contract's
//! SQLSTATE rule; a broken connection is replaced by the next request, so
//! an outage needs no restart. Every wait for a connection is timed,
//! for `pool_acquires_total` and `pool_acquire_wait_seconds_total`.
//!
//! The twin on the blocking server is crates/blocking-server/src/driver.rs.

mod deadpool_pool;
mod pipelined;
mod sqlx_pool;
mod sync_driver;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_faults;

use std::fmt::Write as _;
use std::time::Duration;

use contract::error::ErrorKind;
use contract::model::User;
use server_metrics::metrics::{write_family_header, PoolGauges, PoolWaitCounters};

use crate::error::AppError;
use crate::settings::{PostgresDriver, Settings};

pub(crate) use sqlx_pool::connect_options;
pub(crate) use sync_driver::{connect_sync_pool, find_user_sync, SyncDb};

/// What `pg_stat_activity` shows for the async drivers' connections.
pub(crate) const APPLICATION_NAME: &str = "async-server";

/// Checkouts and their waits, per driver.
pub(crate) type DbWaits = PoolWaitCounters;

/// The driver of the routes that read Postgres.
pub(crate) struct AsyncDb {
    driver: Driver,
    waits: DbWaits,
    /// Each request's bound: the acquire timeout.
    timeout: Duration,
    /// `--db-pool-size`, what the pools may open.
    pool_size: u32,
}

enum Driver {
    Sqlx(sqlx::PgPool),
    Deadpool(deadpool_postgres::Pool),
    Pipelined(Box<pipelined::Pipelined>),
}

impl AsyncDb {
    /// The driver `settings` pick, built without connecting. Must run
    /// inside the tokio runtime (sqlx and deadpool start timers there).
    pub(crate) fn new(settings: &Settings) -> anyhow::Result<AsyncDb> {
        let common = &settings.common;
        let driver = match settings.postgres_driver {
            PostgresDriver::Sqlx => Driver::Sqlx(sqlx_pool::connect_pool(common)?),
            PostgresDriver::Deadpool => Driver::Deadpool(deadpool_pool::pool(common)?),
            PostgresDriver::Pipelined => Driver::Pipelined(Box::new(pipelined::Pipelined::new(
                common,
                settings.postgres_clients(),
                settings.postgres_pipeline_depth as usize,
            )?)),
        };
        Ok(AsyncDb {
            driver,
            waits: DbWaits::default(),
            timeout: common.acquire_timeout(),
            pool_size: common.db_pool_size,
        })
    }

    /// `SELECT_USER_BY_ID`, within the acquire timeout. The task is parked
    /// while it waits; its worker serves other tasks meanwhile.
    pub(crate) async fn find_user(&self, id: i64) -> Result<Option<User>, AppError> {
        let (waits, timeout) = (&self.waits, self.timeout);
        match &self.driver {
            Driver::Sqlx(pool) => sqlx_pool::find_user(pool, waits, id, timeout).await,
            Driver::Deadpool(pool) => deadpool_pool::find_user(pool, waits, id, timeout).await,
            Driver::Pipelined(clients) => clients.find_user(waits, id, timeout).await,
        }
    }

    /// Every user's id, name and email, within `timeout` (start-up seeding).
    pub(crate) async fn all_user_cache_fields(
        &self,
        timeout: Duration,
    ) -> Result<Vec<(i64, String, String)>, AppError> {
        match &self.driver {
            Driver::Sqlx(pool) => {
                sqlx_pool::all_user_cache_fields(pool, &self.waits, timeout).await
            }
            Driver::Deadpool(pool) => {
                deadpool_pool::all_user_cache_fields(pool, &self.waits, timeout).await
            }
            Driver::Pipelined(clients) => clients.all_user_cache_fields(&self.waits, timeout).await,
        }
    }

    /// Runs `sql` through the driver, as a request's query would go, and
    /// waits for its answer (the tests' slow queries).
    #[cfg(test)]
    pub(crate) async fn execute(&self, sql: &str) -> Result<(), AppError> {
        match &self.driver {
            Driver::Sqlx(pool) => sqlx_pool::execute(pool, sql).await,
            Driver::Deadpool(pool) => deadpool_pool::execute(pool, sql).await,
            Driver::Pipelined(clients) => clients.execute(&self.waits, sql).await,
        }
    }

    /// The `postgres` pool's gauges and checkout totals, for `/metrics`. For
    /// the pipelined driver, a "connection" is a shared client: its maximum
    /// is the number of clients, idle ones have no query in flight, and the
    /// waiters wait for a place in a pipeline.
    pub(crate) fn pool_gauges(&self) -> PoolGauges {
        let waits = Some(self.waits.totals());
        let max_size = u64::from(self.pool_size);
        match &self.driver {
            Driver::Sqlx(pool) => PoolGauges {
                pool: "postgres",
                max_size,
                size: u64::from(pool.size()),
                idle: pool.num_idle() as u64,
                waiters: None,
                waits,
            },
            Driver::Deadpool(pool) => {
                let status = pool.status();
                PoolGauges {
                    pool: "postgres",
                    max_size: status.max_size as u64,
                    size: status.size as u64,
                    idle: status.available as u64,
                    waiters: Some(status.waiting as u64),
                    waits,
                }
            }
            Driver::Pipelined(clients) => {
                let g = clients.gauges();
                let idle = g.in_flight.iter().filter(|n| **n == 0).count().min(g.open);
                PoolGauges {
                    pool: "postgres",
                    max_size: g.in_flight.len() as u64,
                    size: g.open as u64,
                    idle: idle as u64,
                    waiters: Some(g.waiting as u64),
                    waits,
                }
            }
        }
    }

    /// Which driver serves, and the pipelined driver's own gauges.
    pub(crate) fn append_metrics(&self, out: &mut String, driver: PostgresDriver) {
        write_family_header(
            out,
            "postgres_driver_info",
            "The driver of the routes that read Postgres (--postgres-driver).",
            "gauge",
        );
        let _ = writeln!(
            out,
            "postgres_driver_info{{server=\"async\",driver=\"{}\"}} 1",
            driver.name()
        );
        if let Driver::Pipelined(clients) = &self.driver {
            append_pipeline(out, &clients.gauges());
        }
    }
}

/// The pipelined driver's queue per connection, its bound, and its reconnects.
fn append_pipeline(out: &mut String, g: &pipelined::PipelineGauges) {
    let labels = "server=\"async\",pool=\"postgres\"";
    write_family_header(
        out,
        "pipeline_queries_in_flight",
        "Queries sent on a shared Postgres connection and not answered yet, per client.",
        "gauge",
    );
    for (client, n) in g.in_flight.iter().enumerate() {
        let _ = writeln!(
            out,
            "pipeline_queries_in_flight{{{labels},client=\"{client}\"}} {n}"
        );
    }
    write_family_header(
        out,
        "pipeline_max_queries_in_flight",
        "The most queries in flight on one shared connection (--postgres-pipeline-depth).",
        "gauge",
    );
    let _ = writeln!(
        out,
        "pipeline_max_queries_in_flight{{{labels}}} {}",
        g.depth
    );
    write_family_header(
        out,
        "pipeline_connections_opened_total",
        "Shared connections opened since start-up, the first ones included.",
        "counter",
    );
    let _ = writeln!(
        out,
        "pipeline_connections_opened_total{{{labels}}} {}",
        g.opened
    );
}

/// The contract's SQLSTATE rule (class 08, 53 or 57: 503), as a yes/no.
fn sqlstate_is_unavailability(code: Option<&str>) -> bool {
    ErrorKind::for_sqlstate(code) == ErrorKind::Unavailable
}

/// A tokio-postgres error as the contract's answer: 503 or 500 by its
/// SQLSTATE (the contract's rule, as the sync driver applies it), with
/// Postgres' own message and code in the logged cause (tokio-postgres'
/// `Display` says only "db error").
fn pg_error(driver: &str, e: tokio_postgres::Error) -> AppError {
    let cause = match e.as_db_error() {
        Some(db) => format!(
            "postgres ({driver}): {} {}: {}",
            db.severity(),
            db.code().code(),
            db.message()
        ),
        None => match std::error::Error::source(&e) {
            Some(source) => format!("postgres ({driver}): {e}: {source}"),
            None => format!("postgres ({driver}): {e}"),
        },
    };
    match ErrorKind::for_sqlstate(e.code().map(|c| c.code())) {
        ErrorKind::Unavailable => AppError::unavailable("database", cause),
        _ => AppError::internal(cause),
    }
}

/// The 503 of a request that had no answer within its deadline.
fn no_answer(driver: &str, timeout: Duration) -> AppError {
    AppError::unavailable(
        "database",
        format_args!("postgres ({driver}): no answer within {timeout:?}"),
    )
}

/// The seeding query's rows as (id, name, email).
fn cache_fields(
    rows: &[tokio_postgres::Row],
    driver: &str,
) -> Result<Vec<(i64, String, String)>, AppError> {
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
        .collect::<Result<_, tokio_postgres::Error>>()
        .map_err(|e| AppError::internal(format_args!("postgres ({driver}): reading a row: {e}")))
}
