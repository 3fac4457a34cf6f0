//! What the `async-server` binary does, as a library function, so bench can
//! run the very same server as a child process of its own executable: parse
//! settings, raise the open-file limit, build the runtime, bind, and hand over
//! to [`crate::run`] until SIGTERM or Ctrl-C.
//!
//! The first signal starts a graceful shutdown (stop accepting, finish the
//! requests in progress, at most `--drain-timeout-s`); the exit code is then
//! 0 (1 if the server failed). A second signal exits at once with 128 + the
//! signal number (130 for SIGINT, 143 for SIGTERM), as a shell would report
//! and as the blocking server does (crates/blocking-server/src/cli.rs).

use std::process::ExitCode;
use std::time::Duration;

use crate::{build_runtime, run, Settings};
use anyhow::Context as _;
use clap::Parser as _;

/// Runs the server from command-line arguments (`args[0]` is the program name).
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let settings = Settings::parse_from(args);
    // `--log-format text|json`, written once in server_settings::logging.
    let subscriber = server_settings::logging::subscriber(settings.common.log_format);
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        eprintln!("async-server: a log subscriber was already installed; keeping it");
    }

    // A 10,000-connection burst needs 10,000 descriptors; the usual soft
    // limit is 1,024. Raise it to the hard limit and say what we got.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::info!(limit, "open-file limit raised"),
        Err(e) => tracing::warn!(error = %e, "raising the open-file limit failed"),
    }

    let runtime = match build_runtime(&settings) {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "building the tokio runtime failed");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let listener =
            bind_listener(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
        run(listener, settings, shutdown_signal()).await
    });
    // Blocking-pool threads may still sit in a sync driver call; do not wait long for them.
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "async server failed");
            ExitCode::FAILURE
        }
    }
}

/// How many connections the kernel may hold for us before we accept them
/// (capped by `net.core.somaxconn`, 4096 on current Linux). tokio's
/// `TcpListener::bind` (through mio) asks for 128, as std's does: a burst of thousands of connections then overflows the queue, the kernel
/// drops SYNs, and clients retry after 1 s, 3 s, ... — latency that is the
/// backlog's, not the server's. The twin is the blocking server's cli.rs.
const LISTEN_BACKLOG: u32 = 4096;

/// Binds like `TcpListener::bind` (SO_REUSEADDR so a restart need not wait
/// out TIME_WAIT) but with [`LISTEN_BACKLOG`].
fn bind_listener(addr: std::net::SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Resolves on the first SIGTERM or Ctrl-C (the drain starts); a second one
/// ends the process at once with 128 + its number, for when the drain takes
/// too long for someone.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    const SIGINT: i32 = 2;
    const SIGTERM: i32 = 15;
    let mut term = match signal(SignalKind::terminate()) {
        Ok(term) => Some(term),
        Err(e) => {
            tracing::warn!(error = %e, "listening for SIGTERM failed; Ctrl-C only");
            None
        }
    };
    /// Waits for the next signal and says which one it was.
    async fn next(term: &mut Option<tokio::signal::unix::Signal>) -> i32 {
        match term {
            Some(term) => {
                tokio::select! {
                    _ = term.recv() => SIGTERM,
                    _ = tokio::signal::ctrl_c() => SIGINT,
                }
            }
            None => {
                let _ = tokio::signal::ctrl_c().await;
                SIGINT
            }
        }
    }
    let first = next(&mut term).await;
    tracing::info!(
        signal = first,
        "shutdown signal received; draining (send it again to exit at once)"
    );
    tokio::spawn(async move {
        let second = next(&mut term).await;
        tracing::warn!(signal = second, "second shutdown signal: exiting at once");
        std::process::exit(128 + second);
    });
}
