//! The blocking reference server: thread-per-request, in the shape of Spring
//! MVC on Tomcat.
//!
//! A fixed pool of handler threads (default 200, Tomcat's `maxThreads`) each
//! takes one request, runs its handler to the end — blocking on Postgres,
//! Redis, a sleep or the CPU loop — and writes the answer. While a thread
//! waits, it serves nobody else; more concurrent requests than threads wait in
//! a queue. The async twin (crates/async-server) serves the same contract with
//! a few event-loop threads that never wait.
//!
//! Threads: `--handler-threads` handlers + 1 acceptor + 1 poller + r2d2's
//! helper threads (3 per pool: Postgres', and Redis' with `--redis-client
//! pool`) + the shared Redis connection's event loop (1, with the default
//! `--redis-client shared`) + the main and signal threads of the binary:
//! 208 with the defaults (210 with the Redis pool), as `/metrics` shows. The number is fixed at start-up
//! and does not grow with open connections (tiny_http's would: one reader
//! thread per connection); see `src/connector` for why the connection layer is
//! ours and not tiny_http's. (When `DATABASE_URL` names a host rather than an
//! IP address, each new Postgres connection also resolves it on a short-lived
//! helper thread, as tokio-postgres does.)
//!
//! Files, mirrored in the async server where they do the same job:
//! settings.rs, startup.rs (migrations + cache seeding), handlers.rs,
//! metrics.rs; queue_wait.rs, the twin of the async server's
//! route_monitors.rs (how long work waited for a thread); and, blocking only:
//! two seams the same handlers run behind, executor.rs (what runs them:
//! platform or virtual threads) and driver.rs (the clients they call:
//! server-support's sync driver and either sync Redis client, or the
//! yielding clients); router.rs, http/ (request reading, response writing, and the
//! one connection loop both executors run), accept_policy.rs, and the
//! executors' start-up: platform_threads.rs with connector/ (acceptor,
//! poller, handler threads, busy_threads) or tiny_http_connector.rs, and
//! virtual_threads/.
//!
//! `--connector tiny-http` puts the design card's tiny_http 0.12 in front of
//! the same handlers instead of connector/ (tiny_http_connector.rs): 200
//! threads calling `recv()` plus one tiny_http reader thread per open
//! connection, for comparison; it is not the default.

// In this crate nothing sleeps but through the executor seam
// (crate::executor's `Waits`): `std::thread::sleep` and may's sleep are
// disallowed methods (the workspace clippy.toml), and each wait outside
// any request says why it is allowed where it is.
#![deny(clippy::disallowed_methods)]

mod accept_policy;
mod cli;
mod connector;
mod driver;
mod executor;
#[doc(hidden)]
pub mod fuzzing;
mod handlers;
mod http;
mod metrics;
mod platform_threads;
mod queue_wait;
mod router;
mod settings;
mod startup;
mod tiny_http_connector;
mod virtual_threads;
mod yielding;

use std::net::TcpListener;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use server_metrics::metrics::RequestCounters;

pub use cli::main_with_args;
pub use settings::{
    Connector, DriverKind, RedisClient, Settings, Threads, DEFAULT_COROUTINE_STACK_KIB,
};

use executor::Executor;
use http::Handler;

/// What every handler can reach: what runs it (the executor seam), the
/// clients it calls (the driver seam), the key prefix and the counters.
pub(crate) struct AppState {
    pub(crate) executor: Executor,
    pub(crate) driver: driver::Driver,
    pub(crate) key_prefix: String,
    pub(crate) counters: RequestCounters,
}

/// The handlers and what they reach, before an executor runs them: built
/// once from the settings, whichever `--threads`.
pub(crate) struct Handlers {
    driver: driver::Driver,
    key_prefix: String,
}

impl Handlers {
    /// The handler a connection layer calls for every request, run by
    /// `executor` (crate::handlers::respond).
    pub(crate) fn run_on(self, executor: Executor) -> Arc<Handler> {
        let state = AppState {
            executor,
            driver: self.driver,
            key_prefix: self.key_prefix,
            counters: RequestCounters::default(),
        };
        Arc::new(move |incoming| handlers::respond(&state, incoming))
    }
}

/// Runs the server on `listener` until `shutdown` receives a message or its
/// sender is dropped, then drains (see `src/connector`) and returns.
///
/// Start-up (migrations, cache seeding) happens first; meanwhile clients wait
/// in the listen backlog. Then the executor `--threads` names starts, from
/// one configuration (`ServeConfig`): a pool of platform threads
/// (crate::platform_threads) or virtual threads (crate::virtual_threads).
/// Blocks the calling thread throughout.
pub fn run(
    listener: TcpListener,
    settings: Settings,
    shutdown: Receiver<()>,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    settings.check().map_err(|e| anyhow::anyhow!(e))?;
    let redis_client = settings.redis_client();
    tracing::info!(
        %addr,
        threads = ?settings.threads,
        driver = ?settings.driver,
        redis_client = redis_client.name(),
        "blocking server starting"
    );
    let common = &settings.common;
    if startup::prepare(common, &shutdown)? == startup::Startup::ShutdownRequested {
        tracing::info!("shutdown requested during start-up");
        return Ok(());
    }
    let handlers = Handlers {
        driver: match settings.driver {
            DriverKind::Pinning => driver::Driver::pinning(common, redis_client)?,
            DriverKind::Yielding => driver::Driver::yielding(common)?,
        },
        key_prefix: common.redis_key_prefix.clone(),
    };
    let config = settings.serve_config();
    match settings.threads {
        Threads::Platform => platform_threads::serve(listener, &config, handlers, &shutdown),
        Threads::Virtual => virtual_threads::serve(listener, &config, handlers, &shutdown),
    }
}
