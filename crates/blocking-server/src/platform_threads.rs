//! `--threads platform` (the default): the handlers on a fixed pool of OS
//! threads, Spring MVC on Tomcat. The start-up of this executor: what the
//! pool measures (with the `nio` connector), the executor seam's
//! `PlatformThreads` (crate::executor), and the connection layer in front
//! of the pool: ours in Tomcat's NIO shape (`--connector nio`,
//! crate::connector) or the design card's tiny_http
//! (`--connector tiny-http`, crate::tiny_http_connector).
//!
//! The twin start-up is crate::virtual_threads' `serve`: the same handlers,
//! the same configuration (crate::settings::ServeConfig), a coroutine per
//! connection instead of this pool.

use std::net::TcpListener;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::connector::busy_threads::BusyThreads;
use crate::executor::{Executor, HandlerPool};
use crate::queue_wait::QueueWaits;
use crate::settings::{Connector, ServeConfig};
use crate::Handlers;

/// Serves `listener` with `handlers` on `config.handler_threads` threads
/// behind `config.connector`, until `shutdown` receives a message or its
/// sender is dropped; then drains and returns.
pub(crate) fn serve(
    listener: TcpListener,
    config: &ServeConfig,
    handlers: Handlers,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    match config.connector {
        Connector::Nio => {
            let busy = Arc::new(BusyThreads::new(
                config.handler_threads,
                config.all_busy_warn,
            ));
            let handler_pool = HandlerPool {
                queue_waits: QueueWaits::new()?,
                busy: Arc::clone(&busy),
            };
            let handler = handlers.run_on(Executor::PlatformThreads {
                handler_pool: Some(handler_pool),
            });
            tracing::info!(%addr, connector = "nio", "blocking server ready");
            crate::connector::serve(listener, config, handler, busy, shutdown)
        }
        Connector::TinyHttp => {
            // tiny_http queues requests inside itself and cannot tell how
            // long they waited, nor how many of its threads are busy.
            let handler = handlers.run_on(Executor::PlatformThreads { handler_pool: None });
            tracing::info!(%addr, connector = "tiny-http", "blocking server ready");
            crate::tiny_http_connector::serve(listener, config, handler, shutdown)
        }
    }
}
