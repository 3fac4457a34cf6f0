//! `--threads virtual`: the blocking server's own handlers on stackful
//! coroutines, the analog of Java 21's virtual threads (Spring Boot's
//! `spring.threads.virtual.enabled=true` runs the same MVC controllers on
//! them).
//!
//! A coroutine per connection runs on one of `--carriers` threads (may's
//! workers; Loom calls them carriers). A coroutine that waits on one of may's
//! sockets or timers parks, and its carrier runs another; a call that is
//! not coroutine-aware (the pinning driver's sync clients, a CPU loop) holds
//! the carrier until it returns, as a JDBC driver inside `synchronized`
//! pins its carrier on JDK 21.
//!
//! may's API stays in this module: the start-up of this executor and may's
//! process-wide configuration (here), the acceptor, the connection cap and
//! the drain (`acceptor.rs`), a coroutine per connection and what the
//! connection loop needs of may's socket (`connection.rs`), may's waits for
//! the yielding driver, each through the request's `Waits` (`parking.rs`),
//! the pinning detector (`pinning.rs`), and every may spawn, with the
//! `unsafe` may asks for (`spawn.rs`). A test below checks that nothing
//! outside names may.

mod acceptor;
mod connection;
pub(crate) mod parking;
pub(crate) mod pinning;
pub(crate) mod spawn;

use std::net::TcpListener;
use std::sync::Once;

use crossbeam_channel::Receiver;

use crate::executor::Executor;
use crate::settings::ServeConfig;
use crate::Handlers;

pub(crate) use acceptor::serve_connections;

/// may's configuration is process-wide and taken when its scheduler first
/// starts; later calls change nothing. The first virtual-thread server of a
/// process sets it (the binary runs one server, so its flags always apply;
/// an in-process test server shares the first one's carriers). Workers are
/// not pinned to cores: Loom's carriers are not, nor are tokio's workers,
/// and on a machine the load generator shares, a pinned carrier would
/// compete with it on one core instead of moving.
pub(crate) fn configure(carriers: usize, stack_kib: u32, report_stack_use: bool) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // may counts the stack in words.
        let words = stack_kib as usize * 1024 / std::mem::size_of::<usize>();
        // An odd size makes may print each coroutine's use as it ends.
        let words = if report_stack_use { words | 1 } else { words };
        may::config()
            .set_workers(carriers)
            .set_stack_size(words)
            .set_worker_pin(false);
    });
}

/// Serves `listener` with `handlers` on virtual threads until `shutdown`
/// receives a message or its sender is dropped; then drains and returns.
/// The twin start-up is crate::platform_threads' `serve`.
pub(crate) fn serve(
    listener: TcpListener,
    config: &ServeConfig,
    handlers: Handlers,
    shutdown: &Receiver<()>,
) -> anyhow::Result<()> {
    configure(
        config.carriers,
        config.coroutine_stack_kib,
        config.report_stack_use,
    );
    let pins = pinning::Pins::start(config.carriers)?;
    let handler = handlers.run_on(Executor::VirtualThreads { pins });
    tracing::info!(addr = %listener.local_addr()?, threads = "virtual", "blocking server ready");
    serve_connections(listener, config, handler, shutdown)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every Rust file under `dir`, with its text.
    fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// may's API stays in this module: a park anywhere else would bypass
    /// the executor's `Waits` (crate::executor), and with it the pinning
    /// detector's timing.
    #[test]
    fn nothing_outside_virtual_threads_names_may() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let here = src.join("virtual_threads").display().to_string();
        let naming: Vec<&str> = files
            .iter()
            .filter(|(path, _)| !path.starts_with(&here))
            .filter(|(_, text)| {
                text.lines()
                    .filter(|line| !line.trim_start().starts_with("//"))
                    .any(|line| line.contains("may::"))
            })
            .map(|(path, _)| path.as_str())
            .collect();
        assert!(files.len() > 20, "found only {} files", files.len());
        assert_eq!(naming, Vec::<&str>::new());
    }
}
