//! `--postgres-driver pipelined`: a few tokio-postgres clients, each one
//! connection, shared by every request, no pool. What an event loop can do
//! on a database and a thread per request cannot: many queries in flight
//! on one connection.
//!
//! A tokio-postgres `Client` is a handle to a connection task: each query
//! is encoded (Bind/Execute/Sync with the statement prepared once per
//! connection) and handed to that task, which writes whatever has come in
//! back to back and reads the answers in order, handing each to the query
//! that asked. So the queries of many requests share the connection's
//! round trips (pipelining), and none waits for a connection of its own.
//! Where a pool of N can have N queries in flight, each client here can
//! have `--postgres-pipeline-depth`.
//!
//! Its price is head-of-line blocking: Postgres answers one connection's
//! queries in order, so a slow query delays every query pipelined behind
//! it on the same connection (the tests show it; a pool does not have it).
//!
//! The bounds are the pools': a request that finds its client's pipeline
//! full waits for a place, at most the acquire timeout, then gets the same
//! 503 as a pool timeout; the whole request is bounded by the same
//! deadline. A client whose connection broke or timed out is opened again
//! by the next request that picks it (one request opens it; the others
//! wait for that one), so an outage needs no restart. The queries in
//! flight on a connection that broke get 503: nothing is retried.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwapOption;
use contract::model::User;
use contract::sql::{SELECT_ALL_USER_CACHE_FIELDS, SELECT_USER_BY_ID};
use server_settings::CommonSettings;
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::{timeout_at, Instant};
use tokio_postgres::{Client, NoTls, Statement};

use super::{no_answer, pg_error, DbWaits};
use crate::error::AppError;

/// The shared clients.
pub(crate) struct Pipelined {
    clients: Box<[SharedClient]>,
    config: tokio_postgres::Config,
    depth: usize,
}

/// One shared connection, opened on first use and again after it broke.
struct SharedClient {
    /// Places in this connection's pipeline: a request holds one from
    /// before it sends its query until its answer has come.
    slots: Semaphore,
    /// Requests waiting for a place.
    waiting: AtomicUsize,
    /// Read by every request without a lock (a clone of an `Arc`).
    current: ArcSwapOption<Connected>,
    /// Held only while the connection is opened, so one request opens it
    /// and the others wait for that one.
    opening: tokio::sync::Mutex<()>,
    /// Connections opened, the first included.
    opened: AtomicU64,
}

/// An open connection and its prepared user query.
struct Connected {
    client: Client,
    select_user: Statement,
}

/// What `/metrics` shows of the shared clients.
pub(crate) struct PipelineGauges {
    /// Queries in flight on each client's connection, in client order.
    pub(crate) in_flight: Vec<usize>,
    /// Clients whose connection is open.
    pub(crate) open: usize,
    /// Requests waiting for a place in a pipeline.
    pub(crate) waiting: usize,
    /// The most queries in flight on one connection.
    pub(crate) depth: usize,
    /// Connections opened since start-up.
    pub(crate) opened: u64,
}

impl Pipelined {
    /// `clients` shared clients of at most `depth` queries in flight each,
    /// none connected yet.
    pub(crate) fn new(
        common: &CommonSettings,
        clients: usize,
        depth: usize,
    ) -> anyhow::Result<Pipelined> {
        let config = server_support::sync_postgres::config(common, super::APPLICATION_NAME)?;
        let clients = (0..clients.max(1))
            .map(|_| SharedClient {
                slots: Semaphore::new(depth),
                waiting: AtomicUsize::new(0),
                current: ArcSwapOption::empty(),
                opening: tokio::sync::Mutex::new(()),
                opened: AtomicU64::new(0),
            })
            .collect();
        Ok(Pipelined {
            clients,
            config,
            depth,
        })
    }

    /// The client for the next query: each thread takes the clients in
    /// turn, starting from a different one, so no counter is shared
    /// between the workers.
    fn pick(&self) -> &SharedClient {
        thread_local! {
            static TURN: Cell<usize> = Cell::new(server_metrics::metrics::this_threads_shard());
        }
        let turn = TURN.with(|turn| {
            let now = turn.get();
            turn.set(now.wrapping_add(1));
            now
        });
        &self.clients[turn % self.clients.len()]
    }

    /// `SELECT_USER_BY_ID` pipelined on a shared connection. The task is
    /// parked while it waits for a place and for the answer.
    pub(crate) async fn find_user(
        &self,
        waits: &DbWaits,
        id: i64,
        timeout: Duration,
    ) -> Result<Option<User>, AppError> {
        let deadline = Instant::now() + timeout;
        let shared = self.pick();
        let (conn, _slot) = shared.enter(&self.config, waits, deadline, timeout).await?;
        let query = timeout_at(deadline, conn.client.query_opt(&conn.select_user, &[&id])).await;
        let row = shared.answer(&conn, query, timeout)?;
        row.map(|row| server_support::sync_postgres::user_from_row(&row))
            .transpose()
            .map_err(|e| AppError::internal(format_args!("postgres (pipelined): {e}")))
    }

    /// Every user's id, name and email (start-up cache seeding).
    pub(crate) async fn all_user_cache_fields(
        &self,
        waits: &DbWaits,
        timeout: Duration,
    ) -> Result<Vec<(i64, String, String)>, AppError> {
        let deadline = Instant::now() + timeout;
        let shared = self.pick();
        let (conn, _slot) = shared.enter(&self.config, waits, deadline, timeout).await?;
        let query = timeout_at(
            deadline,
            conn.client.query(SELECT_ALL_USER_CACHE_FIELDS, &[]),
        )
        .await;
        let rows = shared.answer(&conn, query, timeout)?;
        super::cache_fields(&rows, "pipelined")
    }

    /// Runs `sql` on the next client's connection, in its pipeline like
    /// any query, and waits for its answer (the tests' slow query).
    #[cfg(test)]
    pub(crate) async fn execute(&self, waits: &DbWaits, sql: &str) -> Result<(), AppError> {
        let timeout = Duration::from_secs(60);
        let deadline = Instant::now() + timeout;
        let shared = self.pick();
        let (conn, _slot) = shared.enter(&self.config, waits, deadline, timeout).await?;
        let done = timeout_at(deadline, conn.client.batch_execute(sql)).await;
        shared.answer(&conn, done, timeout)
    }

    pub(crate) fn gauges(&self) -> PipelineGauges {
        let open = |c: &SharedClient| {
            c.current
                .load()
                .as_ref()
                .is_some_and(|c| !c.client.is_closed())
        };
        PipelineGauges {
            in_flight: self
                .clients
                .iter()
                .map(|c| self.depth.saturating_sub(c.slots.available_permits()))
                .collect(),
            open: self.clients.iter().filter(|c| open(c)).count(),
            waiting: self
                .clients
                .iter()
                .map(|c| c.waiting.load(Ordering::Relaxed))
                .sum(),
            depth: self.depth,
            opened: self
                .clients
                .iter()
                .map(|c| c.opened.load(Ordering::Relaxed))
                .sum(),
        }
    }
}

/// Counts a request waiting for a place while it waits, however the wait ends.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl SharedClient {
    /// A place in this client's pipeline and its open connection, before
    /// `deadline`: the driver's "checkout", timed as one for
    /// `pool_acquire_wait_seconds_total`.
    async fn enter(
        &self,
        config: &tokio_postgres::Config,
        waits: &DbWaits,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(Arc<Connected>, SemaphorePermit<'_>), AppError> {
        let _timer = waits.time();
        let slot = match self.slots.try_acquire() {
            Ok(slot) => slot,
            Err(_) => {
                let _waiting = Waiting::new(&self.waiting);
                match timeout_at(deadline, self.slots.acquire()).await {
                    Ok(Ok(slot)) => slot,
                    Ok(Err(closed)) => return Err(AppError::internal(closed)),
                    Err(_) => {
                        return Err(AppError::unavailable(
                            "database",
                            format_args!(
                                "postgres (pipelined): no place in a pipeline within {timeout:?}"
                            ),
                        ))
                    }
                }
            }
        };
        let conn = self.connection(config, deadline, timeout).await?;
        Ok((conn, slot))
    }

    /// The connection if it is open.
    fn live(&self) -> Option<Arc<Connected>> {
        self.current.load_full().filter(|c| !c.client.is_closed())
    }

    /// The open connection, opened now if there is none.
    async fn connection(
        &self,
        config: &tokio_postgres::Config,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Arc<Connected>, AppError> {
        if let Some(conn) = self.live() {
            return Ok(conn);
        }
        let _opening = timeout_at(deadline, self.opening.lock())
            .await
            .map_err(|_| no_answer("pipelined", timeout))?;
        if let Some(conn) = self.live() {
            return Ok(conn);
        }
        let conn = match timeout_at(deadline, connect(config)).await {
            Ok(Ok(conn)) => Arc::new(conn),
            Ok(Err(e)) => return Err(pg_error("pipelined", e)),
            Err(_) => return Err(no_answer("pipelined", timeout)),
        };
        self.current.store(Some(conn.clone()));
        self.opened.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }

    /// A query's outcome on `conn`. A connection that broke, or on which
    /// a query had no answer in time, is forgotten: the next request opens
    /// a new one, and the old one closes when the last query on it ends.
    fn answer<T>(
        &self,
        conn: &Arc<Connected>,
        outcome: Result<Result<T, tokio_postgres::Error>, tokio::time::error::Elapsed>,
        timeout: Duration,
    ) -> Result<T, AppError> {
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => {
                if e.is_closed() || conn.client.is_closed() {
                    self.forget(conn);
                }
                Err(pg_error("pipelined", e))
            }
            Err(_) => {
                self.forget(conn);
                Err(no_answer("pipelined", timeout))
            }
        }
    }

    /// Forgets `used`, if it is still the current connection.
    fn forget(&self, used: &Arc<Connected>) {
        self.current.rcu(|now| match now {
            Some(c) if Arc::ptr_eq(c, used) => None,
            other => other.clone(),
        });
    }
}

/// Opens a connection, hands its socket to a task of its own, and prepares
/// the user query on it.
async fn connect(config: &tokio_postgres::Config) -> Result<Connected, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    // The connection task writes the queries and reads the answers; it ends
    // when the last handle of `client` is dropped or the socket breaks.
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "a pipelined postgres connection ended");
        }
    });
    let select_user = client.prepare(SELECT_USER_BY_ID).await?;
    Ok(Connected {
        client,
        select_user,
    })
}
