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
//! helper threads (3 per pool) + the main and signal threads of the binary:
//! 210 with the defaults, as `/metrics` shows. The number is fixed at start-up
//! and does not grow with open connections (tiny_http's would: one reader
//! thread per connection); see `src/connector` for why the connection layer is
//! ours and not tiny_http's. (When `DATABASE_URL` names a host rather than an
//! IP address, each new Postgres connection also resolves it on a short-lived
//! helper thread, as tokio-postgres does.)
//!
//! Files, mirrored in the async server where they do the same job:
//! settings.rs, startup.rs (migrations + cache seeding), db.rs, cache.rs,
//! handlers.rs, metrics.rs; queue_wait.rs, the twin of the async server's
//! route_monitors.rs (how long work waited for a thread); and, blocking only:
//! router.rs, http/ (request reading, response writing) and connector/
//! (acceptor, poller, handler threads, busy_threads).
//!
//! `--connector tiny-http` puts the design card's tiny_http 0.12 in front of
//! the same handlers instead of connector/ (tiny_http_connector.rs): 200
//! threads calling `recv()` plus one tiny_http reader thread per open
//! connection, for comparison; it is not the default.

mod cli;
mod connector;
mod driver;
mod handlers;
mod http;
mod metrics;
mod queue_wait;
mod router;
mod settings;
mod startup;
mod tiny_http_connector;
mod virtual_threads;
mod yielding;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use contract::metrics::RequestCounters;
use crossbeam_channel::Receiver;

pub use cli::main_with_args;
pub use settings::{Connector, DriverKind, Settings, Threads, DEFAULT_COROUTINE_STACK_KIB};

/// What every handler can reach: the driver (the two pools), the key
/// prefix and the counters.
pub(crate) struct AppState {
    /// The `server` label of `/metrics`: `blocking`, or `virtual` on virtual threads.
    pub(crate) server: &'static str,
    pub(crate) driver: driver::Driver,
    /// The pinning detector, on virtual threads only.
    pub(crate) pins: Option<Arc<virtual_threads::pinning::Pins>>,
    pub(crate) key_prefix: String,
    pub(crate) counters: RequestCounters,
    /// Each route's wait for a free handler thread, and how many are busy;
    /// `None` with `--connector tiny-http`, which cannot tell.
    pub(crate) handler_pool: Option<HandlerPool>,
}

/// What the `nio` connector measures about its handler threads.
pub(crate) struct HandlerPool {
    pub(crate) queue_waits: queue_wait::QueueWaits,
    pub(crate) busy: Arc<connector::busy_threads::BusyThreads>,
}

/// Runs the server on `listener` until `shutdown` receives a message or its
/// sender is dropped, then drains (see `src/connector`) and returns.
///
/// Start-up (migrations, cache seeding) happens first; meanwhile clients wait
/// in the listen backlog. Blocks the calling thread throughout.
pub fn run(
    listener: TcpListener,
    settings: Settings,
    shutdown: Receiver<()>,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    settings.check().map_err(|e| anyhow::anyhow!(e))?;
    tracing::info!(%addr, "blocking server starting");
    let common = &settings.common;
    if startup::prepare(common, &shutdown)? == startup::Startup::ShutdownRequested {
        tracing::info!("shutdown requested during start-up");
        return Ok(());
    }
    let busy = Arc::new(connector::busy_threads::BusyThreads::new(
        settings.handler_threads as usize,
        Duration::from_millis(settings.all_busy_warn_ms),
    ));
    let handler_pool = match (settings.threads, settings.connector) {
        (Threads::Virtual, _) | (_, settings::Connector::TinyHttp) => None,
        (Threads::Platform, settings::Connector::Nio) => Some(HandlerPool {
            queue_waits: queue_wait::QueueWaits::new()?,
            busy: busy.clone(),
        }),
    };
    let pins = match settings.threads {
        Threads::Platform => None,
        Threads::Virtual => {
            virtual_threads::configure(
                settings.carrier_count(),
                settings.coroutine_stack_kib,
                settings.report_stack_use,
            );
            Some(virtual_threads::pinning::Pins::start(
                settings.carrier_count(),
            )?)
        }
    };
    let state = Arc::new(AppState {
        server: match settings.threads {
            Threads::Platform => "blocking",
            Threads::Virtual => "virtual",
        },
        driver: match settings.driver {
            DriverKind::Pinning => driver::Driver::pinning(common)?,
            DriverKind::Yielding => driver::Driver::yielding(common)?,
        },
        pins,
        key_prefix: common.redis_key_prefix.clone(),
        counters: RequestCounters::default(),
        handler_pool,
    });
    let handler: Arc<connector::Handler> =
        Arc::new(move |incoming| handlers::respond(&state, incoming));
    let config = connector::ConnectorConfig {
        handler_threads: settings.handler_threads as usize,
        header_read_timeout: common.header_read_timeout(),
        body_read_timeout: common.body_read_timeout(),
        // One timeout for "a request head must arrive", between requests on a
        // keep-alive connection too: hyper's rule on the async server, and
        // Tomcat's (its keepAliveTimeout defaults to its connectionTimeout).
        keep_alive_timeout: common.header_read_timeout(),
        drain_timeout: common.drain_timeout(),
    };
    if settings.threads == Threads::Virtual {
        let config = virtual_threads::VirtualConfig {
            carriers: settings.carrier_count(),
            stack_kib: settings.coroutine_stack_kib,
            report_stack_use: settings.report_stack_use,
            max_connections: settings.max_connections as usize,
            header_read_timeout: config.header_read_timeout,
            body_read_timeout: config.body_read_timeout,
            keep_alive_timeout: config.keep_alive_timeout,
            drain_timeout: config.drain_timeout,
        };
        tracing::info!(%addr, threads = "virtual", driver = ?settings.driver, "blocking server ready");
        return virtual_threads::serve(listener, config, handler, &shutdown);
    }
    tracing::info!(%addr, connector = ?settings.connector, "blocking server ready");
    match settings.connector {
        settings::Connector::Nio => connector::serve(listener, config, handler, busy, &shutdown),
        settings::Connector::TinyHttp => {
            tiny_http_connector::serve(listener, config, handler, &shutdown)
        }
    }
}
