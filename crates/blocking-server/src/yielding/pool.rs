//! The yielding driver's connection pool: at most `max_size` connections,
//! opened on first use, broken ones thrown away, and a checkout that waits
//! at most the acquire timeout.
//!
//! What a waiting request holds: nothing but its coroutine's stack. A
//! checkout with no free connection parks its coroutine on may's
//! semaphore (crate::virtual_threads::parking's, a permit per connection,
//! waited on with the request's `Waits`), and the
//! carrier runs other coroutines meanwhile; a returned connection posts
//! its permit and wakes one waiter. Compare r2d2 (server_support::sync_postgres), whose
//! checkout waits on a std `Condvar` and so holds the calling thread, or
//! on virtual threads the carrier.
//!
//! The idle list is a std `Mutex`, held only to push or pop one
//! connection, never across a yield, so it cannot hold a carrier longer
//! than that.
//!
//! Nothing happens in the background (r2d2 has helper threads; this pool
//! has none): an idle connection past the idle timeout is closed by the
//! next checkout that finds it, and recovery after an outage is simply the
//! next checkout opening a fresh connection.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::executor::Waits;
use crate::virtual_threads::parking::Semaphore;

/// What the pool needs to know about a connection.
pub(crate) trait Connection: Send + 'static {
    /// Whether the last call failed, which leaves the connection in an
    /// unknown state: it is closed instead of returned.
    fn is_broken(&self) -> bool;
    /// One round trip before a checkout (`--pool-test-on-checkout`).
    fn ping(&mut self, waits: &Waits<'_>) -> Result<(), String>;
}

/// How a pool opens a connection: by the deadline given, or an error.
type Connect<C> = Box<dyn Fn(&Waits<'_>, Instant) -> Result<C, String> + Send + Sync>;

/// The pool's settings, from the shared settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolConfig {
    pub(crate) name: &'static str,
    pub(crate) max_size: usize,
    pub(crate) acquire_timeout: Duration,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) test_on_checkout: bool,
}

impl PoolConfig {
    /// The bounds every pool of the servers has: `max_size` from its
    /// flag, the acquire timeout, the idle timeout, the optional test.
    pub(crate) fn from_settings(
        name: &'static str,
        max_size: u32,
        settings: &server_settings::CommonSettings,
    ) -> PoolConfig {
        PoolConfig {
            name,
            max_size: max_size as usize,
            acquire_timeout: settings.acquire_timeout(),
            idle_timeout: settings.pool_idle_timeout(),
            test_on_checkout: settings.pool_test_on_checkout,
        }
    }
}

/// A bounded pool of `C`; cheap to clone (one shared inside).
pub(crate) struct Pool<C: Connection> {
    inner: Arc<Inner<C>>,
}

impl<C: Connection> Clone for Pool<C> {
    fn clone(&self) -> Self {
        Pool {
            inner: Arc::clone(&self.inner),
        }
    }
}

struct Inner<C> {
    config: PoolConfig,
    /// One permit per connection that may be checked out now: `max_size`
    /// less those checked out.
    permits: Semaphore,
    /// Open connections nobody holds, with when each was returned.
    idle: Mutex<Vec<(C, Instant)>>,
    /// Open connections, idle or checked out.
    open: AtomicUsize,
    /// Checkouts parked for a permit now.
    waiters: AtomicUsize,
    connect: Connect<C>,
}

/// The pool's gauges for `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PoolState {
    pub(crate) max_size: usize,
    pub(crate) open: usize,
    pub(crate) idle: usize,
    pub(crate) waiters: usize,
}

impl<C: Connection> Pool<C> {
    /// A pool that opens nothing until a checkout needs it.
    pub(crate) fn new(
        config: PoolConfig,
        connect: impl Fn(&Waits<'_>, Instant) -> Result<C, String> + Send + Sync + 'static,
    ) -> Pool<C> {
        Pool {
            inner: Arc::new(Inner {
                config,
                permits: Semaphore::new(config.max_size),
                idle: Mutex::new(Vec::new()),
                open: AtomicUsize::new(0),
                waiters: AtomicUsize::new(0),
                connect: Box::new(connect),
            }),
        }
    }

    /// A connection within the acquire timeout: an idle one, or a new one
    /// if fewer than `max_size` are open. With none free, the calling
    /// coroutine parks until one is returned or the timeout passes.
    pub(crate) fn get(&self, waits: &Waits<'_>) -> Result<Pooled<C>, String> {
        let inner = &self.inner;
        let timeout = inner.config.acquire_timeout;
        let deadline = Instant::now() + timeout;
        if !inner.permits.try_wait() {
            inner.waiters.fetch_add(1, Ordering::SeqCst);
            let got = inner.permits.wait_timeout(waits, timeout);
            inner.waiters.fetch_sub(1, Ordering::SeqCst);
            if !got {
                return Err(format!(
                    "no {} connection free within {timeout:?} ({} open, all in use)",
                    inner.config.name,
                    inner.open.load(Ordering::SeqCst)
                ));
            }
        }
        // From here the permit is held; dropping `permit` gives it back.
        let permit = Permit(Arc::clone(inner));
        while let Some(mut conn) = inner.take_idle() {
            if !inner.config.test_on_checkout || conn.ping(waits).is_ok() {
                return Ok(Pooled::new(conn, permit));
            }
            inner.open.fetch_sub(1, Ordering::SeqCst);
        }
        // Counted as open while it connects, so `open` never passes `max_size`.
        inner.open.fetch_add(1, Ordering::SeqCst);
        match (inner.connect)(waits, deadline) {
            Ok(conn) => Ok(Pooled::new(conn, permit)),
            Err(e) => {
                inner.open.fetch_sub(1, Ordering::SeqCst);
                Err(format!("opening a {} connection: {e}", inner.config.name))
            }
        }
    }

    pub(crate) fn state(&self) -> PoolState {
        let inner = &self.inner;
        PoolState {
            max_size: inner.config.max_size,
            open: inner.open.load(Ordering::SeqCst),
            idle: inner.idle().len(),
            waiters: inner.waiters.load(Ordering::SeqCst),
        }
    }
}

impl<C: Connection> Inner<C> {
    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<(C, Instant)>> {
        // Held for a push or a pop, never across a yield.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The most recently returned idle connection still within the idle
    /// timeout; older ones are closed on the way.
    fn take_idle(&self) -> Option<C> {
        loop {
            let (conn, since) = self.idle().pop()?;
            match self.config.idle_timeout {
                Some(limit) if since.elapsed() > limit => {
                    self.open.fetch_sub(1, Ordering::SeqCst);
                    drop(conn);
                }
                _ => return Some(conn),
            }
        }
    }
}

/// A checkout's permit, given back to the pool when dropped (after the
/// connection, whatever happened to it, has been dealt with).
struct Permit<C>(Arc<Inner<C>>);

impl<C> Drop for Permit<C> {
    fn drop(&mut self) {
        self.0.permits.post();
    }
}

/// A checked-out connection; returned to the pool (or closed, if broken)
/// when dropped.
pub(crate) struct Pooled<C: Connection> {
    /// `Some` from the checkout until the drop takes it.
    conn: Option<C>,
    permit: Permit<C>,
}

impl<C: Connection> Pooled<C> {
    fn new(conn: C, permit: Permit<C>) -> Pooled<C> {
        Pooled {
            conn: Some(conn),
            permit,
        }
    }
}

impl<C: Connection> std::ops::Deref for Pooled<C> {
    type Target = C;
    fn deref(&self) -> &C {
        match &self.conn {
            Some(conn) => conn,
            None => unreachable!("a pooled connection is only taken by its drop"),
        }
    }
}

impl<C: Connection> std::ops::DerefMut for Pooled<C> {
    fn deref_mut(&mut self) -> &mut C {
        match &mut self.conn {
            Some(conn) => conn,
            None => unreachable!("a pooled connection is only taken by its drop"),
        }
    }
}

impl<C: Connection> Drop for Pooled<C> {
    fn drop(&mut self) {
        let pool = &self.permit.0;
        if let Some(conn) = self.conn.take() {
            if conn.is_broken() {
                pool.open.fetch_sub(1, Ordering::SeqCst);
                drop(conn);
            } else {
                pool.idle().push((conn, Instant::now()));
            }
        }
        // `permit` is dropped after this body: the connection is back (or
        // closed) before a waiter wakes to look for one.
    }
}
