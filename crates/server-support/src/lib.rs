//! What both reference servers need and neither teaches: I/O helpers that
//! are the same on each side, written once.
//!
//! - [`process_gauges`]: the standard process figures of `/metrics`, read
//!   from `/proc`;
//! - [`open_files`]: the connection cap under the open-file limit;
//! - [`sync_postgres`]: the sync driver (JDBC's analogue), an r2d2 pool of
//!   Postgres connections that block the calling thread, with a deadline on
//!   every call;
//! - [`sync_redis`]: an r2d2 pool of the redis crate's sync connections, and
//!   the two commands of `/users/{id}/cache` on one of them (the shape of
//!   Jedis' pool);
//! - [`shared_redis`]: one multiplexed Redis connection every thread shares,
//!   each call blocking its thread until its own reply comes (the shape of
//!   Lettuce's shared connection, Spring Boot's default);
//! - `pool`: how both r2d2 pools are configured from the shared settings.
//!
//! The blocking server's handlers call the sync driver and either Redis
//! client from their own threads; the async server's deliberately wrong
//! variants call the very same code on an event-loop worker (or move it off
//! with `spawn_blocking`), so the columns that compare them compare one
//! driver, not two.
//!
//! The invariant (ARCHITECTURE.md): every function here that does I/O is
//! synchronous and blocks its caller, and says so; the rest only classify
//! what those functions return. Nothing here is a handler, routes a
//! request or awaits: what a thread does while it waits is the lesson, and
//! it stays in each server, side by side. Rules without I/O belong in
//! `contract`, not here.

pub mod open_files;
mod pool;
mod pool_errors;
pub mod process_gauges;
pub mod shared_redis;
pub mod sync_postgres;
pub mod sync_redis;

#[cfg(test)]
mod shared_redis_tests;
#[cfg(test)]
mod sync_postgres_tests;
#[cfg(test)]
mod sync_redis_tests;
#[cfg(test)]
mod test_settings;

pub use pool_errors::LogPoolErrors;
pub use process_gauges::process_gauges;
