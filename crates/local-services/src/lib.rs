//! Postgres and Redis for tests and the bench, on any machine that has either
//! running services or installed binaries.
//!
//! [`postgres()`] and [`redis()`] first try the running services
//! (`DATABASE_URL` / `REDIS_URL`, or the usual local defaults). When nothing
//! answers, they start a throwaway server from the installed binaries as a
//! child process on a free 127.0.0.1 port, in a temporary directory. Only
//! when neither works do they fail, with one line saying what to install.
//!
//! Each is found or started once per process and shared by every caller
//! (tests run in parallel threads). Isolation between callers comes from
//! [`Postgres::fresh_database`] and [`Redis::fresh_prefix`], which clean up
//! after themselves on drop.
//!
//! Throwaway servers never outlive the process that started them: the kernel
//! signals them when it exits, however it exits (see `parent_death`), and
//! [`stop_started_services`] stops them cleanly before a planned exit.
//!
//! [`RestartablePostgres`] is a cluster of a test's own that the test stops
//! and starts again for real (a database restart under load).
//!
//! Set `LOCAL_SERVICES_NO_THROWAWAY=1` to never start throwaway servers (as
//! on a machine without the binaries).
//! Set `LOCAL_SERVICES_FORCE_THROWAWAY=1` to skip the running services and
//! always start throwaway ones (the tests of this crate use it).

mod binaries;
mod child_server;
mod parent_death;
mod plain_thread;
mod postgres_service;
mod redis_service;
mod restartable_postgres;
mod service_dir;
mod service_lookup;
mod service_slot;
mod spawner;
mod throwaway_postgres;
mod throwaway_redis;
mod unprivileged_user;

pub use postgres_service::{migrated_database, postgres, Postgres, TestDatabase};
pub use redis_service::{redis, Redis, RedisPrefix};
pub use restartable_postgres::RestartablePostgres;

/// Stops every throwaway server this process started (Postgres with a fast
/// shutdown, Redis with SIGTERM), waits for them to exit and removes their
/// temporary directories. Running services found through the environment are
/// left alone.
///
/// Meant for a planned exit (the bench calls it at the end). Afterwards the
/// next [`postgres()`] or [`redis()`] call looks for a server again.
pub fn stop_started_services() {
    postgres_service::forget_started();
    redis_service::forget_started();
    child_server::stop_all();
}

/// Whether `LOCAL_SERVICES_NO_THROWAWAY` forbids starting throwaway servers
/// (to see what a machine without Postgres or Redis binaries gets).
fn throwaway_forbidden() -> bool {
    std::env::var("LOCAL_SERVICES_NO_THROWAWAY")
        .map(|value| !matches!(value.trim(), "" | "0" | "false" | "no"))
        .unwrap_or(false)
}

/// Whether `LOCAL_SERVICES_FORCE_THROWAWAY` asks to skip running services.
fn throwaway_forced() -> bool {
    std::env::var("LOCAL_SERVICES_FORCE_THROWAWAY")
        .map(|value| !matches!(value.trim(), "" | "0" | "false" | "no"))
        .unwrap_or(false)
}
