//! What the yielding driver's tests share: a fresh database with the
//! schema and seed, settings with small pools, and a way to run code on a
//! coroutine (the clients park a coroutine; on a plain thread they block
//! it, which would hide what the tests look at).
//!
//! Every test process configures may once with ONE carrier, so that a
//! test can tell whether a parked wait leaves the carrier free.

use std::time::{Duration, Instant};

use clap::Parser as _;
use server_settings::CommonSettings;

use crate::executor::Waits;
pub(crate) use crate::virtual_threads::pinning::untimed;

/// A migrated database, dropped at the end of the test, and Redis' URL.
pub(crate) struct Services {
    pub(crate) db: local_services::TestDatabase,
    pub(crate) redis_url: String,
}

/// A fresh database with the users table and its 10,000 rows.
pub(crate) fn services() -> Services {
    let db = local_services::migrated_database().expect("a migrated test database");
    let redis = local_services::redis().expect("redis for tests");
    Services {
        db,
        redis_url: redis.url().to_owned(),
    }
}

/// A fresh Redis key prefix and Redis' URL, for tests without Postgres.
pub(crate) fn redis_prefix() -> (local_services::RedisPrefix, String) {
    let redis = local_services::redis().expect("redis for tests");
    (redis.fresh_prefix(), redis.url().to_owned())
}

/// Settings with these URLs, `pool` connections per pool and this acquire
/// timeout (also each call's deadline).
pub(crate) fn settings(
    database_url: &str,
    redis_url: &str,
    pool: u32,
    acquire_ms: u64,
) -> CommonSettings {
    let (pool, acquire) = (pool.to_string(), acquire_ms.to_string());
    let args = [
        "blocking-server",
        "--database-url",
        database_url,
        "--redis-url",
        redis_url,
        "--db-pool-size",
        &pool,
        "--redis-pool-size",
        &pool,
        "--acquire-timeout-ms",
        &acquire,
    ];
    crate::Settings::try_parse_from(args)
        .expect("test settings")
        .common
}

/// Runs `f` on a coroutine of the one-carrier scheduler, with the waits of
/// a coroutine in no request (nothing timed), and returns what it returns;
/// a panic inside fails the test with its message.
pub(crate) fn on_coroutine<T: Send + 'static>(
    f: impl FnOnce(&Waits<'_>) -> T + Send + 'static,
) -> T {
    configure();
    let handle = crate::virtual_threads::spawn::go("test", move || untimed(f))
        .expect("starting a coroutine");
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// One carrier for the whole test process (may's configuration is
/// process-wide), with the server's default stack.
pub(crate) fn configure() {
    crate::virtual_threads::configure(1, crate::settings::DEFAULT_COROUTINE_STACK_KIB, false);
}

/// Polls `ready` every few milliseconds until it holds or `limit` passes;
/// on a coroutine the pauses park it (`waits`), so the carrier stays free.
pub(crate) fn wait_until(
    waits: &Waits<'_>,
    limit: Duration,
    mut ready: impl FnMut() -> bool,
) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if ready() {
            return true;
        }
        waits.sleep(Duration::from_millis(5));
    }
    ready()
}
