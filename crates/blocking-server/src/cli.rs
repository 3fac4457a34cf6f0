//! What the `blocking-server` binary does, as a library function, so bench can
//! run the very same server as a child process of its own executable.
//!
//! Parses settings, raises the open-file limit, binds, and runs the server
//! until SIGTERM or Ctrl-C. The first signal starts a graceful shutdown (stop
//! accepting, finish the requests in progress, at most `--drain-timeout-s`);
//! the exit code is then 0 (1 if the server failed). A second signal exits at
//! once with 128 + the signal number (130 for SIGINT, 143 for SIGTERM), as a
//! shell would report.

use std::ffi::OsString;
use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::Settings;

/// Runs the server from command-line arguments (`args[0]` is the program name).
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let settings = Settings::parse_from(args);
    // `--log-format text|json`, written once in server_settings::logging.
    let subscriber = server_settings::logging::subscriber(settings.common.log_format);
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        eprintln!("blocking-server: a log subscriber was already installed; keeping it");
    }
    match serve(settings) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "blocking server failed");
            ExitCode::FAILURE
        }
    }
}

fn serve(settings: Settings) -> anyhow::Result<()> {
    // A file descriptor or two per connection (two on virtual threads):
    // a burst of thousands of clients needs more than the usual soft limit
    // of 1024.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::info!(limit, "open-file limit raised"),
        Err(e) => tracing::warn!(error = %e, "could not raise the open-file limit"),
    }
    let listener =
        bind_listener(settings.bind).with_context(|| format!("binding {}", settings.bind))?;

    let (stop, shutdown) = crossbeam_channel::bounded::<()>(1);
    let mut signals = Signals::new([SIGTERM, SIGINT]).context("installing signal handlers")?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut seen = 0;
            for signal in signals.forever() {
                seen += 1;
                if seen == 1 {
                    tracing::info!(
                        signal,
                        "signal received: shutting down gracefully (again to exit at once)"
                    );
                    let _ = stop.try_send(());
                } else {
                    tracing::warn!(signal, "second signal: exiting now");
                    std::process::exit(128 + signal);
                }
            }
        })
        .context("spawning the signal thread")?;

    crate::run(listener, settings, shutdown)
}

/// How many connections the kernel may hold for us before we accept them
/// (capped by `net.core.somaxconn`, 4096 on current Linux). std's
/// `TcpListener::bind` asks for 128: a burst of thousands of connections then
/// overflows the queue, the kernel drops SYNs, and clients retry after 1 s,
/// 3 s, ... — seconds of latency that are the backlog's, not the server's.
/// The twin is the async server's cli.rs, which asks for the same.
const LISTEN_BACKLOG: i32 = 4096;

/// Binds like `TcpListener::bind` (close-on-exec, SO_REUSEADDR so a restart
/// need not wait out TIME_WAIT) but with [`LISTEN_BACKLOG`]; std has no way
/// to choose the backlog, so the socket is made through rustix's safe API.
fn bind_listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    use rustix::net::{sockopt, AddressFamily, SocketFlags, SocketType};
    let family = if addr.is_ipv4() {
        AddressFamily::INET
    } else {
        AddressFamily::INET6
    };
    let socket = rustix::net::socket_with(family, SocketType::STREAM, SocketFlags::CLOEXEC, None)?;
    sockopt::set_socket_reuseaddr(&socket, true)?;
    rustix::net::bind(&socket, &addr)?;
    rustix::net::listen(&socket, LISTEN_BACKLOG)?;
    Ok(TcpListener::from(socket))
}
