//! The sync driver (JDBC's analogue, server-support's `sync_postgres`, the
//! very driver the blocking server's handlers call) for the JDBC-like
//! variants (`/users/{id}/blocking`, `/users/{id}/spawn-blocking` and the
//! cache route's blocking miss), with the thread plumbing each needs.
//!
//! The twin on the blocking server is its pinning driver
//! (crates/blocking-server/src/driver.rs), which calls only the sync driver,
//! from its handler threads.

use std::time::{Duration, Instant};

use contract::model::User;
use server_settings::CommonSettings;
use server_support::sync_postgres::{self, DbError};

use crate::blocking_calls::{self, BlockingCall};
use crate::error::AppError;

// ---------------------------------------------------------------------------
// The sync driver (server-support's), for the JDBC-like variants
// ---------------------------------------------------------------------------

/// What `pg_stat_activity` shows for the sync driver's connections.
const SYNC_APPLICATION_NAME: &str = "async-server-sync-driver";

/// The sync driver's pool, built without connecting: connections open on
/// first use (`min_idle` 0), so the variants cost no Postgres connection
/// until used.
pub(crate) fn connect_sync_pool(common: &CommonSettings) -> anyhow::Result<sync_postgres::PgPool> {
    sync_postgres::pool(common, SYNC_APPLICATION_NAME)
}

/// `SELECT_USER_BY_ID` on the sync driver, the very code the blocking
/// server's handlers call. Blocks the calling thread: first on r2d2's
/// checkout (up to the acquire timeout), then on the socket (up to the same
/// again: the driver's deadline per call).
///
/// Never call this on a runtime worker: each sync connection drives its own
/// small tokio runtime and panics there ("Cannot start a runtime from within
/// a runtime"). Call it from a plain thread or from `spawn_blocking`.
///
/// The driver marks the query as a blocking call (crate::blocking_calls):
/// it is run from `spawn_blocking` and the query threads, where the marker
/// is never set, so the stall detector counts nothing for it. That is the
/// fix working.
pub(crate) fn find_user_sync(
    pool: &sync_postgres::PgPool,
    id: i64,
) -> Result<Option<User>, AppError> {
    let mut conn = pool.get().map_err(|e| {
        AppError::unavailable("database", format_args!("postgres (sync driver) pool: {e}"))
    })?;
    conn.user_by_id(id).map_err(|e| match e {
        DbError::Unavailable(cause) => {
            AppError::unavailable("database", format_args!("postgres (sync driver): {cause}"))
        }
        DbError::Internal(cause) => {
            AppError::internal(format_args!("postgres (sync driver): {cause}"))
        }
    })
}

// ---------------------------------------------------------------------------
// Dedicated query threads, for /users/{id}/blocking
// ---------------------------------------------------------------------------

/// One lookup handed to a query thread, and where to send its answer.
struct SyncQuery {
    id: i64,
    /// When the asking worker stops waiting; a thread skips queries already past it.
    give_up_at: Instant,
    reply: std::sync::mpsc::SyncSender<Result<Option<User>, AppError>>,
}

/// How many lookups may queue for the query threads before new ones get 503.
const QUERY_QUEUE: usize = 1024;

/// How much longer than the pool's acquire timeout a worker waits for the
/// answer: the query itself, plus the thread hop.
const REPLY_MARGIN: Duration = Duration::from_millis(250);

/// The sync pool and the threads that use it on behalf of runtime workers.
///
/// Why threads at all: `/users/{id}/blocking` must show a runtime worker
/// blocked on a JDBC-style driver (seed 000's "WebFlux + JDBC without
/// scheduler"), but the sync driver cannot run on a worker — it panics
/// (its connections drive their own runtime), and with r2d2's checkout test
/// on, that panic during unwinding aborts the whole process (measured). So the query runs on one of these
/// plain threads and the worker blocks on a std channel until the answer
/// comes. The worker does nothing else meanwhile, so each worker has at most
/// one query in flight — which is exactly the lesson.
#[derive(Clone)]
pub(crate) struct SyncDb {
    // Field order matters: `pool` drops before `queries`. Dropping the last
    // handle of the pool closes its connections, and closing one (dropping
    // its runtime) on a runtime worker would panic like querying does.
    // While any `queries` sender lives, the query threads live and hold pool
    // handles, so the last handle always drops on a plain thread.
    pool: sync_postgres::PgPool,
    queries: crossbeam_channel::Sender<SyncQuery>,
    acquire_timeout: Duration,
}

impl SyncDb {
    /// Starts `threads` query threads (one per pool connection) over `pool`.
    pub(crate) fn start(
        pool: sync_postgres::PgPool,
        threads: usize,
        acquire_timeout: Duration,
    ) -> std::io::Result<Self> {
        let (queries, inbox) = crossbeam_channel::bounded::<SyncQuery>(QUERY_QUEUE);
        for i in 0..threads {
            let inbox = inbox.clone();
            let pool = pool.clone();
            std::thread::Builder::new()
                .name(format!("sync-db-{i}"))
                .spawn(move || {
                    // Ends when every `SyncDb` handle (every sender) is gone.
                    for query in inbox {
                        if Instant::now() >= query.give_up_at {
                            continue;
                        }
                        // The worker may have given up meanwhile; then nobody listens.
                        let _ = query.reply.send(find_user_sync(&pool, query.id));
                    }
                })?;
        }
        Ok(SyncDb {
            pool,
            queries,
            acquire_timeout,
        })
    }

    pub(crate) fn pool(&self) -> &sync_postgres::PgPool {
        &self.pool
    }

    pub(crate) fn acquire_timeout(&self) -> Duration {
        self.acquire_timeout
    }

    /// Looks a user up and BLOCKS THE CALLING THREAD until the answer comes.
    /// Called from an async handler, this blocks a runtime worker on purpose,
    /// and the stall detector counts it for the handler's route
    /// (crate::blocking_calls), however quick the answer.
    pub(crate) fn find_user_blocking_the_caller(&self, id: i64) -> Result<Option<User>, AppError> {
        blocking_calls::mark(BlockingCall::SyncPostgresQuery);
        let wait = self.acquire_timeout + REPLY_MARGIN;
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let query = SyncQuery {
            id,
            give_up_at: Instant::now() + wait,
            reply,
        };
        self.queries.try_send(query).map_err(|e| {
            AppError::unavailable("database", format_args!("sync query queue: {e}"))
        })?;
        match answer.recv_timeout(wait) {
            Ok(result) => result,
            Err(e) => Err(AppError::unavailable(
                "database",
                format_args!("postgres (sync): no answer within {wait:?}: {e}"),
            )),
        }
    }
}
