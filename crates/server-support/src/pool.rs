//! How an r2d2 pool is configured from the shared settings: the one builder
//! behind the sync driver's pool and the sync Redis pool, and so behind all
//! four r2d2 pools (the blocking server's Postgres and Redis pools, the async
//! server's sync variants of both).
//!
//! Building an `r2d2::Builder` is configuration only; `build_unchecked`, in
//! sync_postgres and sync_redis, is when r2d2 starts its helper threads.
//! Connections open on first use in every case (`min_idle` 0), so start-up
//! does not wait for a whole pool and a test server opens only what it uses.

use server_settings::CommonSettings;

/// An r2d2 builder with the settings both servers promise: at most
/// `max_size` connections, none opened in advance, a checkout that waits at
/// most the acquire timeout (then 503), the optional test on checkout, and
/// the idle timeout (`--pool-idle-timeout-s 0`: never).
pub(crate) fn r2d2_builder<M: r2d2::ManageConnection>(
    common: &CommonSettings,
    max_size: u32,
) -> r2d2::Builder<M> {
    r2d2::Pool::builder()
        .max_size(max_size)
        .min_idle(Some(0))
        .connection_timeout(common.acquire_timeout())
        .test_on_check_out(common.pool_test_on_checkout)
        .idle_timeout(common.pool_idle_timeout())
}
