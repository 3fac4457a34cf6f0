//! The async reference server: axum on a multi-thread tokio runtime, the
//! Spring WebFlux / Reactor Netty side of the comparison.
//!
//! A few runtime worker threads (as many as cores, like Netty's event loop)
//! serve every connection. While a request waits for Postgres, Redis or a
//! timer, its task is parked and the worker serves others; that is why this
//! server needs so few threads. The async-only variants (`/cpu/rayon`,
//! `/users/{id}/blocking`, ...) reproduce seed 000's scheduler matrix: work
//! that blocks a worker, and the two ways of moving it off.
//!
//! The stall detector (route_monitors.rs, blocking_calls.rs,
//! slow_poll_warnings.rs, lag_probe.rs) says at run time which route blocks a
//! worker, by a long poll or by any blocking call, and how late the event
//! loop runs.
//!
//! The library is the server (mini-redis style): [`build_runtime`] makes the
//! runtime, [`run`] serves a bound listener until a shutdown future resolves,
//! and `main.rs` only wires settings, signals and the exit code. The twin is
//! crates/blocking-server/src/lib.rs.

mod app;
mod blocking_calls;
mod cache;
mod cli;
mod db;
mod drain_signal;
mod error;
mod handlers;
mod idle_timeout;
mod lag_probe;
mod metrics;
mod panic_guard;
mod redis_clients;
mod request_limits;
mod route_handler;
mod route_monitors;
mod scanned_io;
mod serve;
pub mod settings;
mod slow_poll_warnings;
mod startup;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use app::{app, AppState};
pub use cli::main_with_args;
pub use error::AppError;
pub use redis_clients::RedisClientKind;
pub use settings::PostgresDriver;
pub use settings::{Settings, StallDetector};

/// The tokio runtime of the server: `worker_threads` event-loop workers and a
/// blocking pool of up to `blocking_threads` threads.
///
/// Threads are named so `top -H` and `/proc` show which is which: the workers
/// `async-worker`, the blocking pool `async-blocking`. tokio names every
/// thread through one function, and it starts the workers first, while the
/// runtime is built; so the first `worker_threads` names are the workers'.
pub fn build_runtime(settings: &Settings) -> std::io::Result<tokio::runtime::Runtime> {
    let workers = settings.worker_threads();
    let started = AtomicUsize::new(0);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .max_blocking_threads(settings.blocking_threads())
        .thread_name_fn(move || {
            if started.fetch_add(1, Ordering::Relaxed) < workers {
                "async-worker".to_owned()
            } else {
                "async-blocking".to_owned()
            }
        })
        .enable_all()
        .build()
}

/// The most connections open at once: what the open-file limit leaves
/// beside the pools (contract::open_files) and the pipelined driver's
/// clients, a descriptor per connection.
fn max_connections(settings: &Settings) -> usize {
    let reserved = settings.common.reserved_fds() + settings.postgres_clients() as u64;
    let cap = server_support::open_files::connection_cap(usize::MAX, reserved, 1);
    tracing::info!(
        max_connections = cap.connections,
        open_files = cap.open_files,
        reserved_fds = reserved,
        "connections capped by the open-file limit, less what the pools need"
    );
    cap.connections
}

/// Start-up (migrations, cache seed), then serving `listener` until `shutdown`
/// resolves, then the drain (bounded by the drain timeout).
///
/// The listener is already bound, so clients that connect during start-up
/// wait in the kernel's backlog and are served when it is done. If `shutdown`
/// resolves during start-up, start-up is abandoned and `run` returns `Ok`.
pub async fn run(
    listener: tokio::net::TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let mut shutdown: std::pin::Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(shutdown);
    let header_read_timeout = settings.common.header_read_timeout();
    let body_read_timeout = settings.common.body_read_timeout();
    let drain_timeout = settings.common.drain_timeout();
    tracing::info!(
        worker_threads = settings.worker_threads(),
        blocking_threads = settings.blocking_threads(),
        rayon_threads = settings.rayon_threads(),
        postgres_driver = settings.postgres_driver.name(),
        redis_client = settings.redis_client.name(),
        db_pool_size = settings.common.db_pool_size,
        redis_pool_size = settings.common.redis_pool_size,
        slow_poll_ms = settings.slow_poll_threshold().map(|t| t.as_millis() as u64),
        "starting the async server"
    );
    let state = AppState::new(settings)?;

    let prepare = async {
        let common = &state.settings.common;
        if common.skip_setup {
            tracing::warn!("--skip-setup: no migrations, no cache seeding");
            return Ok(());
        }
        let mut schedule = contract::startup::RetrySchedule::starting_at(std::time::Instant::now());
        startup::migrate(
            &mut schedule,
            &db::connect_options(common)?,
            &common.database_url,
            common.acquire_timeout(),
        )
        .await?;
        startup::seed_cache(
            &mut schedule,
            &state.db,
            &state.cache,
            &common.redis_url,
            &common.redis_key_prefix,
            common.acquire_timeout(),
        )
        .await
    };
    tokio::select! {
        prepared = prepare => prepared?,
        () = &mut shutdown => {
            tracing::info!("shutdown requested during start-up");
            return Ok(());
        }
    }

    match listener.local_addr() {
        Ok(addr) => tracing::info!(%addr, "serving"),
        Err(e) => tracing::warn!(error = %e, "serving (local address unknown)"),
    }
    // The stall detector's two background tasks (when it is on).
    slow_poll_warnings::spawn(state.route_monitors.clone());
    if let Some(probe) = &state.lag_probe {
        lag_probe::spawn(probe.clone());
    }
    let counters = state.counters;
    let max_connections = max_connections(&state.settings);
    serve::serve(
        listener,
        app(state),
        counters,
        header_read_timeout,
        body_read_timeout,
        drain_timeout,
        max_connections,
        shutdown,
    )
    .await;
    Ok(())
}
