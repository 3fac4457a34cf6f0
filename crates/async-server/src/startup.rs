//! Start-up work before the first request is served: apply the schema
//! (migrations) and fill the Redis cache from Postgres.
//!
//! Both may find their dependency still starting (`docker compose up` starts
//! everything at once), so each step retries on the contract's schedule
//! (`contract::startup`: pauses doubling from 250 ms to 2 s, 30 s for the
//! whole start-up) and then fails with a message naming what did not answer.
//! A shutdown during start-up abandons it (`crate::run` races it against the
//! shutdown future). The twin is crates/blocking-server/src/startup.rs: same
//! SQL, same keys, same order, same schedule.

use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use contract::settings::redact_url;
use contract::sql::{MIGRATIONS, TAKE_MIGRATION_LOCK};
use contract::startup::RetrySchedule;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection as _, PgConnection};

use crate::db::AsyncDb;
use crate::redis_clients::AsyncRedis;

/// How long the seeding query may take: it reads every user, at start-up,
/// when a request's acquire timeout would be too short on a busy machine.
const SEED_QUERY_TIMEOUT: Duration = Duration::from_secs(20);

/// Runs `attempt` until it succeeds or the schedule gives up (the last error
/// is returned), logging each failure. The task is parked on a timer through
/// each pause; the worker thread serves others meanwhile. Twin: `retry` in
/// the blocking server's startup.rs, whose thread sleeps instead.
async fn retry<T, F, Fut>(
    what: &str,
    schedule: &mut RetrySchedule,
    mut attempt: F,
) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    loop {
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) => match schedule.pause_after_failure(what, Instant::now()) {
                Err(gave_up) => return Err(error.context(gave_up)),
                Ok(pause) => {
                    tracing::warn!(
                        error = format!("{error:#}"),
                        "{what} failed; the task waits {pause:?} on a timer, then retries"
                    );
                    tokio::time::sleep(pause).await;
                }
            },
        }
    }
}

/// Applies every script of `contract::sql::MIGRATIONS` in one transaction,
/// holding the advisory lock, so two servers starting at once on an empty
/// database apply them one after the other. Each script is idempotent.
///
/// It runs on a sqlx connection of its own, whichever driver serves the
/// routes, so a failure names its cause ("connection refused") instead of
/// a pool's "timed out waiting for a connection".
pub(crate) async fn migrate(
    schedule: &mut RetrySchedule,
    options: &PgConnectOptions,
    database_url: &str,
    connect_timeout: Duration,
) -> anyhow::Result<()> {
    tracing::info!(url = %redact_url(database_url), "applying migrations");
    retry("applying migrations", schedule, || async {
        let mut conn = tokio::time::timeout(connect_timeout, PgConnection::connect_with(options))
            .await
            .with_context(|| {
                format!("connecting to postgres: no answer within {connect_timeout:?}")
            })?
            .context("connecting to postgres")?;
        let mut tx = conn
            .begin()
            .await
            .context("opening a transaction on postgres")?;
        sqlx::query(TAKE_MIGRATION_LOCK)
            .execute(&mut *tx)
            .await
            .context("taking the migration lock")?;
        for (name, script) in MIGRATIONS {
            sqlx::raw_sql(script)
                .execute(&mut *tx)
                .await
                .with_context(|| format!("applying migration {name}"))?;
        }
        tx.commit().await.context("committing migrations")?;
        // Closing politely; if it fails, the connection is dropped anyway.
        let _ = conn.close().await;
        Ok(())
    })
    .await
}

/// Sets both cache keys of every user, so `/users/{id}/cache` starts warm.
/// The users are read through the routes' driver.
pub(crate) async fn seed_cache(
    schedule: &mut RetrySchedule,
    db: &AsyncDb,
    cache: &AsyncRedis,
    redis_url: &str,
    prefix: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    tracing::info!(url = %redact_url(redis_url), "seeding the redis cache");
    let users: Vec<(i64, String, String)> = retry("reading users to cache", schedule, || async {
        db.all_user_cache_fields(SEED_QUERY_TIMEOUT)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {}", e.error.message, e.cause.unwrap_or_default()))
            .context("reading users from postgres")
    })
    .await?;
    retry("seeding the redis cache", schedule, || async {
        crate::cache::seed(cache, prefix, &users, timeout)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {}", e.error.message, e.cause.unwrap_or_default()))
    })
    .await?;
    tracing::info!(users = users.len(), "redis cache seeded");
    Ok(())
}
