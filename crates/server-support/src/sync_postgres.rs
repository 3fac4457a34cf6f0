//! The sync driver, JDBC's analogue: an r2d2 pool (HikariCP's role) of
//! Postgres connections that each block the calling thread until Postgres
//! answers.
//!
//! Each pooled connection is a tokio-postgres client driven by its own
//! current-thread runtime: a call is `block_on(query)` on the calling
//! thread, which parks that thread in `epoll_wait` on this one socket until
//! the answer comes. That is exactly what the `postgres` crate does inside;
//! the few lines are ours for one reason: the `postgres` crate has no
//! deadline per call, so a database that accepts TCP but never answers (a
//! frozen process, a stalled proxy) would hold the calling thread forever.
//! Here every call, and every connect, ends after the acquire timeout with
//! [`DbError::Unavailable`] (503), and the connection is thrown away.
//!
//! Who calls it: the blocking server's handlers, from their handler threads
//! (or carriers, with the pinning driver on virtual threads); and the async
//! server's deliberately blocking variants, from a query thread its event
//! loop worker blocks on (`/users/{id}/blocking`) or from `spawn_blocking`
//! (`/users/{id}/spawn-blocking`). One driver for every "JDBC" column.
//!
//! Never call it on a tokio runtime worker: `block_on` panics there
//! ("Cannot start a runtime from within a runtime"), and so does dropping a
//! connection (its runtime) there.
//!
//! What bounds what:
//! - waiting for a free pooled connection: r2d2's `connection_timeout`;
//! - connecting (TCP, startup, auth) and preparing: one deadline;
//! - each query: one deadline; afterwards the connection is marked broken,
//!   so r2d2 drops it instead of reusing a connection in an unknown state;
//! - a dead peer on an idle pooled connection: TCP keepalives, and the next
//!   query's deadline in any case.
//!
//! The query keeps running on the server after we give up (we do not send a
//! cancel request: a stalled database would not answer that either).

use std::time::Duration;

use crate::pool::r2d2_builder;
use contract::error::ErrorKind;
use contract::model::User;
use contract::sql::SELECT_USER_BY_ID;
use server_settings::CommonSettings;
use tokio::runtime::Runtime;
use tokio_postgres::{Client, NoTls, Statement};

use crate::LogPoolErrors;

/// The pool of sync connections.
pub type PgPool = r2d2::Pool<PgManager>;

/// Why a database call failed, which decides between 503 and 500.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Postgres did not answer in time, refused, or the connection broke: 503.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// Postgres answered with something our code did not expect: 500.
    #[error("database error: {0}")]
    Internal(String),
}

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        // The contract's rule (SQLSTATE class 08, 53, 57 or none: 503).
        match ErrorKind::for_sqlstate(e.code().map(|c| c.code())) {
            ErrorKind::Unavailable => DbError::Unavailable(format!("{e:#}")),
            _ => DbError::Internal(format!("{e:#}")),
        }
    }
}

/// One pooled Postgres connection, with `SELECT_USER_BY_ID` prepared once at
/// connect (the "cached prepared statement": Postgres parses and plans it once
/// per connection, not per request).
pub struct PgConnection {
    runtime: Runtime,
    client: Client,
    select_user: Option<Statement>,
    call_timeout: Duration,
    broken: bool,
}

impl PgConnection {
    /// Connects within `timeout`, then prepares the user query if asked (not
    /// at start-up, before the migrations have created the table). Blocks
    /// the calling thread.
    pub fn connect(
        config: &tokio_postgres::Config,
        timeout: Duration,
        prepare: bool,
    ) -> Result<Self, DbError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| DbError::Internal(format!("building the connection's runtime: {e}")))?;
        let (client, connection) = runtime
            .block_on(async { tokio::time::timeout(timeout, config.connect(NoTls)).await })
            .map_err(|_| DbError::Unavailable(format!("connect took longer than {timeout:?}")))??;
        // The connection task does the socket I/O; it runs whenever a call
        // below is in `block_on`, and ends when `client` is dropped.
        runtime.spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "postgres connection ended");
            }
        });
        let mut pg = PgConnection {
            runtime,
            client,
            select_user: None,
            call_timeout: timeout,
            broken: false,
        };
        if prepare {
            let statement =
                pg.call(|client| async move { client.prepare(SELECT_USER_BY_ID).await })?;
            pg.select_user = Some(statement);
        }
        Ok(pg)
    }

    /// Runs one call on this connection, blocking the calling thread until
    /// Postgres answers or the deadline passes.
    fn call<'c, T, F>(&'c mut self, make: impl FnOnce(&'c Client) -> F) -> Result<T, DbError>
    where
        F: std::future::Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let timeout = self.call_timeout;
        let call = make(&self.client);
        // The timer is created inside `block_on`, where the runtime is current.
        let outcome = self
            .runtime
            .block_on(async { tokio::time::timeout(timeout, call).await });
        let result = match outcome {
            Ok(result) => result.map_err(DbError::from),
            Err(_) => Err(DbError::Unavailable(format!(
                "no answer within {timeout:?}"
            ))),
        };
        if matches!(result, Err(DbError::Unavailable(_))) {
            // Mid-protocol state unknown: never hand this connection out again.
            self.broken = true;
        }
        result
    }

    /// `GET /users/{id}`'s query, with the prepared statement. Blocks the
    /// calling thread until Postgres answers, at most the call deadline.
    pub fn user_by_id(&mut self, id: i64) -> Result<Option<User>, DbError> {
        let Some(statement) = self.select_user.clone() else {
            return Err(DbError::Internal("user statement not prepared".into()));
        };
        // Counted only where blocking harms others: on an event-loop worker
        // or a carrier (server_metrics::blocking_calls); never on a thread that
        // exists to block (a handler thread, spawn_blocking, a query thread).
        server_metrics::blocking_calls::mark(
            server_metrics::blocking_calls::BlockingCall::SyncPostgresQuery,
        );
        let row = self.call(|client| async move { client.query_opt(&statement, &[&id]).await })?;
        row.map(|row| user_from_row(&row)).transpose()
    }

    /// Runs SQL text without parameters (the migrations), inside one
    /// transaction, with a longer deadline than a request gets.
    pub fn execute_in_transaction(
        &mut self,
        scripts: &[&str],
        timeout: Duration,
    ) -> Result<(), DbError> {
        let saved = std::mem::replace(&mut self.call_timeout, timeout);
        let result = self.call(|client| async move {
            client.batch_execute("BEGIN").await?;
            for script in scripts {
                client.batch_execute(script).await?;
            }
            client.batch_execute("COMMIT").await
        });
        self.call_timeout = saved;
        result
    }

    /// Every user's id, name and email (start-up cache seeding).
    pub fn all_user_cache_fields(
        &mut self,
        timeout: Duration,
    ) -> Result<Vec<(i64, String, String)>, DbError> {
        let saved = std::mem::replace(&mut self.call_timeout, timeout);
        let rows = self.call(|client| async move {
            client
                .query(contract::sql::SELECT_ALL_USER_CACHE_FIELDS, &[])
                .await
        });
        self.call_timeout = saved;
        rows?
            .iter()
            .map(|row| {
                Ok((
                    row.try_get(0).map_err(internal)?,
                    row.try_get(1).map_err(internal)?,
                    row.try_get(2).map_err(internal)?,
                ))
            })
            .collect()
    }

    /// One empty round trip (the pool's checkout test, when enabled).
    fn ping(&mut self) -> Result<(), DbError> {
        self.call(|client| async move { client.simple_query("").await })
            .map(drop)
    }
}

/// A `users` row as the contract's [`User`]. Public because the async
/// server's tokio-postgres drivers read the very same rows.
pub fn user_from_row(row: &tokio_postgres::Row) -> Result<User, DbError> {
    Ok(User {
        id: row.try_get("id").map_err(internal)?,
        name: row.try_get("name").map_err(internal)?,
        email: row.try_get("email").map_err(internal)?,
        created_at: row.try_get("created_at").map_err(internal)?,
        updated_at: row.try_get("updated_at").map_err(internal)?,
    })
}

fn internal(e: tokio_postgres::Error) -> DbError {
    DbError::Internal(format!("reading a row: {e}"))
}

/// The connection settings from `DATABASE_URL`, with every network wait
/// bounded; `application_name` is what `pg_stat_activity` shows.
pub fn config(
    settings: &CommonSettings,
    application_name: &str,
) -> anyhow::Result<tokio_postgres::Config> {
    let mut config: tokio_postgres::Config = settings
        .database_url
        .parse()
        .map_err(|e| anyhow::anyhow!("parsing DATABASE_URL: {e}"))?;
    let acquire = settings.acquire_timeout();
    config
        .application_name(application_name)
        .connect_timeout(acquire)
        // Unacknowledged writes and dead peers on idle connections.
        .tcp_user_timeout(acquire.max(Duration::from_secs(1)))
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(5))
        .keepalives_interval(Duration::from_secs(1))
        .keepalives_retries(3);
    Ok(config)
}

/// r2d2's view of a Postgres connection.
pub struct PgManager {
    config: tokio_postgres::Config,
    timeout: Duration,
}

impl r2d2::ManageConnection for PgManager {
    type Connection = PgConnection;
    type Error = DbError;

    fn connect(&self) -> Result<PgConnection, DbError> {
        PgConnection::connect(&self.config, self.timeout, true)
    }

    fn is_valid(&self, conn: &mut PgConnection) -> Result<(), DbError> {
        conn.ping()
    }

    fn has_broken(&self, conn: &mut PgConnection) -> bool {
        conn.broken || conn.client.is_closed()
    }
}

/// The pool (`--db-pool-size` connections, the acquire timeout), built
/// without connecting: connections open on first use, so start-up does not
/// wait for the whole pool (and a test server opens only the connections it
/// uses). Starts r2d2's helper threads.
pub fn pool(settings: &CommonSettings, application_name: &str) -> anyhow::Result<PgPool> {
    let manager = PgManager {
        config: config(settings, application_name)?,
        timeout: settings.acquire_timeout(),
    };
    Ok(r2d2_builder(settings, settings.db_pool_size)
        .error_handler(Box::new(LogPoolErrors("postgres")))
        .build_unchecked(manager))
}
