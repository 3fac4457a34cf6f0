//! Redis through ONE multiplexed connection that every handler thread
//! shares: the shape of Spring Boot's default client, Lettuce with its
//! shared native connection (`shareNativeConnection`, true by default),
//! called through its synchronous API, as a blocking `RedisTemplate` call in
//! Spring MVC is.
//!
//! Two sides, as in Lettuce:
//! - **the event loop**: one tokio worker thread (`redis-event-loop`, the
//!   role of Lettuce's Netty thread) owns the socket. It runs the redis
//!   crate's multiplexed connection: it writes the commands it is handed,
//!   many threads' at once in one write when they queue up together, reads
//!   the replies, and hands each to the command at the head of its queue of
//!   commands in flight (Redis answers in order, so replies are matched to
//!   waiters first in, first out; Lettuce's `CommandHandler` keeps the same
//!   queue).
//! - **the calling thread**: a handler thread puts its command on the event
//!   loop's queue and blocks in `block_on` until its own reply comes back or
//!   the deadline passes (Lettuce's `LettuceFutures.awaitOrCancel`). While
//!   it waits it serves nobody else, exactly as with a pooled connection;
//!   what differs is what the waiting costs Redis and the kernel: one
//!   socket, and fewer, larger writes and reads under load.
//!
//! Why the redis crate's `MultiplexedConnection` and not a RESP pipeline of
//! our own: it is that writer, reader and FIFO queue, the async server's
//! shared client already runs on it (crates/async-server/src/redis_clients.rs),
//! and a call here is its future run to completion by the calling thread.
//!
//! The contract is the pool's (crate::sync_redis), every wait bounded by
//! the acquire timeout:
//! - getting the connection ([`SharedRedis::connection`]): at once when it
//!   is open; otherwise one thread opens it (connect and handshake) while
//!   the others wait for that one, all within the timeout;
//! - each command: the redis crate's response timeout, which covers the
//!   wait to be queued and the wait for the reply.
//!
//! A failure that is not about a value (a broken socket, a timeout, an
//! error reply) makes the connection the one to replace: the next call
//! opens a new one. The other commands in flight on a connection that broke
//! fail with it (503), and later calls succeed once Redis answers again, so
//! an outage needs no restart. Lettuce's own watchdog reconnects in the
//! background and keeps a connection after a timeout, waiting for TCP to say
//! it is dead; we replace it at once, the rule of the async server's shared
//! connection, so that a stalled connection costs one timeout, not minutes.
//!
//! Never call it on a tokio runtime worker: `block_on` panics there
//! ("Cannot start a runtime from within a runtime"). Only the blocking
//! server calls it, from its handler threads (or carriers, with the pinning
//! driver on virtual threads).

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use contract::cache::{email_key, name_key};
use redis::aio::MultiplexedConnection;
use redis::{AsyncCommands as _, AsyncConnectionConfig, RedisResult};
use server_metrics::blocking_calls::{mark, BlockingCall};
use server_settings::CommonSettings;
use tokio::runtime::Runtime;

use crate::sync_redis::{is_unreadable_value, CacheError};

/// The one shared connection, its event loop, and what opens it again.
pub struct SharedRedis {
    /// One worker thread: the event loop that owns the socket.
    runtime: Runtime,
    client: redis::Client,
    /// Connect and response timeouts: the acquire timeout, both.
    config: AsyncConnectionConfig,
    timeout: Duration,
    /// The connection in use, if one is open. A std mutex: held only to
    /// clone or replace the handle, never across a wait.
    current: Mutex<Option<Current>>,
    /// Held by the one thread that opens a connection, so the others wait
    /// for it instead of opening their own (a tokio mutex: held across the
    /// connect, and waited for with a deadline).
    opening: tokio::sync::Mutex<()>,
    /// Numbers each opened connection, so that a failure replaces the
    /// connection it happened on and not a newer one.
    opened: AtomicU64,
}

/// A handle to the open connection, and which one it is.
#[derive(Clone)]
struct Current {
    number: u64,
    conn: MultiplexedConnection,
}

impl SharedRedis {
    /// From `REDIS_URL`, without connecting (the connection opens on first
    /// use, so the server starts without Redis). Starts the event-loop
    /// thread.
    pub fn new(settings: &CommonSettings) -> anyhow::Result<SharedRedis> {
        let client = redis::Client::open(settings.redis_url.as_str())
            .map_err(|e| anyhow::anyhow!("parsing REDIS_URL: {e}"))?;
        let timeout = settings.acquire_timeout();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            // Only for resolving a host name, should `REDIS_URL` name one.
            .max_blocking_threads(1)
            .thread_name("redis-event-loop")
            .enable_all()
            .build()
            .map_err(|e| anyhow::anyhow!("starting the redis event loop: {e}"))?;
        Ok(SharedRedis {
            runtime,
            client,
            config: AsyncConnectionConfig::new()
                .set_connection_timeout(timeout)
                .set_response_timeout(timeout),
            timeout,
            current: Mutex::new(None),
            opening: tokio::sync::Mutex::new(()),
            opened: AtomicU64::new(0),
        })
    }

    /// Whether a connection is open now (for `/metrics`).
    pub fn is_open(&self) -> bool {
        self.current_handle().is_some()
    }

    /// How many connections it has opened since it was built: one, unless
    /// Redis went away.
    #[cfg(test)]
    pub(crate) fn connections_opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    /// The shared connection, for one request's commands. At once when it
    /// is open; otherwise BLOCKS THE CALLING THREAD while this thread opens
    /// it, or waits for the thread that is opening it, at most the acquire
    /// timeout in all.
    pub fn connection(&self) -> Result<SharedConn<'_>, CacheError> {
        let current = match self.current_handle() {
            Some(current) => current,
            None => self.open()?,
        };
        Ok(SharedConn {
            shared: self,
            current,
        })
    }

    fn current_handle(&self) -> Option<Current> {
        self.current_slot().clone()
    }

    /// The slot of the current connection, locked. Never poisoned in
    /// effect: nothing panics while it is held.
    fn current_slot(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        self.current
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Opens the connection, or waits for the thread that is opening it,
    /// BLOCKING THE CALLING THREAD for at most the acquire timeout.
    fn open(&self) -> Result<Current, CacheError> {
        let timeout = self.timeout;
        let opened = self
            .runtime
            .block_on(async { tokio::time::timeout(timeout, self.open_once()).await });
        opened.unwrap_or_else(|_| {
            Err(CacheError::Unavailable(format!(
                "redis: no connection within {timeout:?}"
            )))
        })
    }

    /// One thread at a time opens the connection; those that waited for it
    /// take the one it opened.
    async fn open_once(&self) -> Result<Current, CacheError> {
        let _opening = self.opening.lock().await;
        if let Some(current) = self.current_handle() {
            return Ok(current);
        }
        let conn = self.connect_on_the_event_loop().await?;
        Ok(self.make_current(conn))
    }

    /// Connects (TCP and the handshake, within the connect timeout) in a
    /// task of the event loop, not in the calling thread's `block_on`: the
    /// connect future is large, and a coroutine calling this (virtual
    /// threads, pinning driver) has a small fixed stack.
    async fn connect_on_the_event_loop(&self) -> RedisResult<MultiplexedConnection> {
        let (client, config) = (self.client.clone(), self.config.clone());
        let connect = async move {
            client
                .get_multiplexed_async_connection_with_config(&config)
                .await
        };
        self.runtime.spawn(connect).await.unwrap_or_else(|ended| {
            Err(redis::RedisError::from((
                redis::ErrorKind::IoError,
                "the connect task ended",
                ended.to_string(),
            )))
        })
    }

    /// Makes `conn` the connection every call uses, numbered.
    fn make_current(&self, conn: MultiplexedConnection) -> Current {
        let current = Current {
            number: self.opened.fetch_add(1, Ordering::Relaxed) + 1,
            conn,
        };
        *self.current_slot() = Some(current.clone());
        tracing::info!(
            connection = current.number,
            "shared redis connection opened"
        );
        current
    }

    /// Forgets connection `number` if it is still the current one, so the
    /// next call opens a new one.
    fn replace(&self, number: u64) {
        let mut current = self.current_slot();
        if current.as_ref().is_some_and(|c| c.number == number) {
            *current = None;
            tracing::warn!(
                connection = number,
                "shared redis connection failed; the next call opens a new one"
            );
        }
    }
}

/// The shared connection as one request holds it: a handle (a clone is
/// cheap: a sender to the event loop's queue), and nothing exclusive.
pub struct SharedConn<'a> {
    shared: &'a SharedRedis,
    current: Current,
}

impl SharedConn<'_> {
    /// The two cached fields of a user: two GETs, one after the other, each
    /// BLOCKING THE CALLING THREAD until its own reply comes back (the
    /// blocking server's shape of `/users/{id}/cache`; the async server
    /// sends both at once).
    pub fn get_user_fields(
        &mut self,
        prefix: &str,
        id: i64,
    ) -> Result<(Option<String>, Option<String>), CacheError> {
        // Each counted only where blocking harms others (server_metrics::blocking_calls).
        mark(BlockingCall::SyncRedisGet);
        let name = self.wait_for(|conn| async move { conn.get(name_key(prefix, id)).await })?;
        mark(BlockingCall::SyncRedisGet);
        let email = self.wait_for(|conn| async move { conn.get(email_key(prefix, id)).await })?;
        Ok((name, email))
    }

    /// Sets both cached fields of a user in one pipeline, BLOCKING THE
    /// CALLING THREAD until Redis has answered both.
    pub fn set_user_fields(
        &mut self,
        prefix: &str,
        id: i64,
        (name, email): (&str, &str),
    ) -> Result<(), CacheError> {
        mark(BlockingCall::SyncRedisSet);
        let mut pipe = redis::pipe();
        pipe.set(name_key(prefix, id), name)
            .ignore()
            .set(email_key(prefix, id), email)
            .ignore();
        self.wait_for(|conn| async move { pipe.query_async(conn).await })
    }

    /// Runs one command's future to its end on the calling thread: the
    /// future queues the command for the event loop, then the thread
    /// sleeps in `block_on` until the event loop hands it its reply, or the
    /// response timeout ends the wait. A failure that is not about a value
    /// replaces the connection (see the module comment).
    fn wait_for<'c, T, F>(
        &'c mut self,
        command: impl FnOnce(&'c mut MultiplexedConnection) -> F,
    ) -> Result<T, CacheError>
    where
        F: Future<Output = RedisResult<T>> + 'c,
    {
        let (shared, number) = (self.shared, self.current.number);
        let result = shared.runtime.block_on(command(&mut self.current.conn));
        result.map_err(|e| {
            if !is_unreadable_value(&e) {
                shared.replace(number);
            }
            CacheError::from(e)
        })
    }
}
