//! Start-up work before serving: apply the migrations (under the advisory
//! lock, in one transaction) and seed Redis with every user's two keys.
//!
//! A dependency that is down is retried on the contract's schedule
//! (`contract::startup`: pauses doubling from 250 ms to 2 s, 30 s for the
//! whole start-up), then start-up fails with an error naming what failed. A
//! shutdown request during the retries stops them at once. The twin is
//! crates/async-server/src/startup.rs: same SQL, same keys, same schedule.

use std::time::Instant;

use anyhow::Context as _;
use contract::cache::{email_key, name_key, SEED_BATCH};
use contract::settings::redact_url;
use contract::sql::{MIGRATIONS, TAKE_MIGRATION_LOCK};
use contract::startup::{RetrySchedule, STARTUP_TIMEOUT};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use server_settings::CommonSettings;

use server_support::sync_postgres::{self, PgConnection};
use server_support::sync_redis::RedisManager;

/// What `pg_stat_activity` shows for this server's connections.
pub(crate) const APPLICATION_NAME: &str = "blocking-server";

/// How start-up ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Startup {
    Ready,
    ShutdownRequested,
}

pub(crate) fn prepare(
    settings: &CommonSettings,
    shutdown: &Receiver<()>,
) -> anyhow::Result<Startup> {
    if settings.skip_setup {
        tracing::warn!("--skip-setup: no migrations, no cache seeding");
        return Ok(Startup::Ready);
    }
    let mut schedule = RetrySchedule::starting_at(Instant::now());
    tracing::info!(database = %redact_url(&settings.database_url), "applying migrations");
    if retry("applying migrations", &mut schedule, shutdown, || {
        migrate(settings)
    })?
    .is_none()
    {
        return Ok(Startup::ShutdownRequested);
    }
    tracing::info!(redis = %redact_url(&settings.redis_url), "seeding the cache");
    match retry("seeding the cache", &mut schedule, shutdown, || {
        seed_cache(settings)
    })? {
        Some(users) => {
            tracing::info!(users, "cache seeded");
            Ok(Startup::Ready)
        }
        None => Ok(Startup::ShutdownRequested),
    }
}

/// Runs `attempt` until it succeeds, the schedule gives up (the last error
/// is returned), or shutdown is requested (`Ok(None)`). The thread sleeps
/// through each pause in `recv_timeout`, so a shutdown wakes it at once.
/// Twin: `retry` in the async server's startup.rs, which awaits a timer.
fn retry<T>(
    what: &str,
    schedule: &mut RetrySchedule,
    shutdown: &Receiver<()>,
    mut attempt: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<Option<T>> {
    loop {
        let error = match attempt() {
            Ok(value) => return Ok(Some(value)),
            Err(e) => e,
        };
        let pause = match schedule.pause_after_failure(what, Instant::now()) {
            Ok(pause) => pause,
            Err(gave_up) => return Err(error.context(gave_up)),
        };
        tracing::warn!(
            error = format!("{error:#}"),
            "{what} failed; this thread sleeps {pause:?}, then retries"
        );
        match shutdown.recv_timeout(pause) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return Ok(None),
        }
    }
}

/// Every migration script in one transaction, after the advisory lock, so two
/// servers starting at once on an empty database apply them one after the other.
fn migrate(settings: &CommonSettings) -> anyhow::Result<()> {
    let config = sync_postgres::config(settings, APPLICATION_NAME)?;
    let mut conn = PgConnection::connect(&config, settings.acquire_timeout(), false)
        .context("connecting to Postgres")?;
    let mut scripts = vec![TAKE_MIGRATION_LOCK];
    scripts.extend(MIGRATIONS.iter().map(|(_, sql)| *sql));
    conn.execute_in_transaction(&scripts, STARTUP_TIMEOUT)
        .context("applying migrations")?;
    Ok(())
}

/// Sets both keys of every user, in pipelined batches of `SEED_BATCH` keys.
fn seed_cache(settings: &CommonSettings) -> anyhow::Result<usize> {
    let config = sync_postgres::config(settings, APPLICATION_NAME)?;
    let mut pg = PgConnection::connect(&config, settings.acquire_timeout(), false)
        .context("connecting to Postgres")?;
    let users = pg
        .all_user_cache_fields(STARTUP_TIMEOUT)
        .context("reading users")?;
    let mut redis = RedisManager::new(settings)?
        .open()
        .context("connecting to Redis")?;
    let prefix = settings.redis_key_prefix.as_str();
    for batch in users.chunks((SEED_BATCH / 2).max(1)) {
        let mut pipe = redis::pipe();
        for (id, name, email) in batch {
            pipe.set(name_key(prefix, *id), name).ignore();
            pipe.set(email_key(prefix, *id), email).ignore();
        }
        pipe.query::<()>(&mut redis).context("writing cache keys")?;
    }
    Ok(users.len())
}
