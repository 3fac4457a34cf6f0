//! `--driver yielding`: Postgres and Redis clients written for coroutines,
//! so that a request waiting on either parks its coroutine and frees its
//! carrier (a JDBC driver without `synchronized`, or JDK 24's virtual
//! threads, which no longer pin inside it).
//!
//! - `wire.rs`: may's `TcpStream` with buffers and a deadline per call;
//! - `postgres.rs`: the Postgres wire protocol through `postgres-protocol`
//!   (start-up, authentication, a prepared statement, a row to `User`);
//! - `resp.rs`: Redis' RESP (GET, pipelined SETs);
//! - `pool.rs`: the bounded pool whose waiting checkouts park.
//!
//! The bounds are the pinning driver's (server-support's sync_postgres and sync_redis): at most
//! the pool size open, a checkout waits at most the acquire timeout, each
//! call ends by the same deadline, and a connection that failed is closed,
//! so an outage gives 503s and recovery needs no restart.

pub(crate) mod pool;
pub(crate) mod postgres;
pub(crate) mod resp;
mod wire;

#[cfg(test)]
mod postgres_tests;
#[cfg(test)]
mod resp_tests;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod wire_tests;
