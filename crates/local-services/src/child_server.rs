//! A throwaway server running as our child process: starting it on a free
//! port and waiting until it answers, stopping it, and the list of those this
//! process started (which `stop_started_services` empties).
//!
//! Every child is forked by the `spawner` thread with a parent-death signal,
//! its output goes to a log file in its temporary directory, and every error
//! about it quotes the end of that log, where the server says what went wrong.

use std::fs::{File, OpenOptions};
use std::io;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rustix::process::{kill_process, Pid, Signal};
use tempfile::TempDir;

use crate::{parent_death, spawner};

/// How long a server may take to answer after it was started.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server may take to exit after its stop signal before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// How many free ports to try when another process takes ours first.
const PORT_ATTEMPTS: u32 = 3;
const POLL: Duration = Duration::from_millis(100);

static STARTED: Mutex<Vec<ChildServer>> = Mutex::new(Vec::new());

/// How to run and stop one kind of server.
pub(crate) struct ServerSpec<'a> {
    /// The binary's name, for messages and the log file ("postgres").
    pub(crate) name: &'static str,
    /// Builds the command that serves on the given port.
    pub(crate) command: &'a dyn Fn(u16) -> Command,
    /// Succeeds once the server on the given port answers a real request.
    pub(crate) probe: &'a dyn Fn(u16) -> anyhow::Result<()>,
    /// Sent by the kernel if this process dies (see `parent_death`).
    pub(crate) death_signal: Signal,
    /// Sent by `stop_all` for a clean shutdown.
    pub(crate) stop_signal: Signal,
}

/// A started server, kept until `stop_all`.
struct ChildServer {
    name: &'static str,
    child: Child,
    stop_signal: Signal,
    // Dropped after the child has exited, which removes the directory.
    dir: TempDir,
}

/// Starts the server of `spec` on a free port, waits until it answers and
/// keeps it (with `dir`) until `stop_all`. Returns the port.
pub(crate) fn start(spec: &ServerSpec<'_>, dir: TempDir) -> anyhow::Result<u16> {
    let log_path = dir.path().join(format!("{}.log", spec.name));
    let mut attempt = 1;
    loop {
        let port = free_port().context("find a free port on 127.0.0.1")?;
        let mut command = (spec.command)(port);
        send_output_to(&mut command, &log_path)?;
        parent_death::die_with_parent(&mut command, spec.death_signal);
        let mut child = spawner::spawn(command).with_context(|| format!("start {}", spec.name))?;
        match wait_until_ready(spec, port, &mut child) {
            Ok(()) => {
                lock_started().push(ChildServer {
                    name: spec.name,
                    child,
                    stop_signal: spec.stop_signal,
                    dir,
                });
                return Ok(port);
            }
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                let tail = log_tail(&log_path);
                let port_taken =
                    tail.contains("Address already in use") || tail.contains("could not bind");
                if port_taken && attempt < PORT_ATTEMPTS {
                    attempt += 1;
                    continue;
                }
                // The log goes with the directory, so quote it here; the
                // server's own last words come last, where a reader looks.
                return Err(anyhow::anyhow!(
                    "{error:#}; the end of the {} log:\n{tail}",
                    spec.name
                ));
            }
        }
    }
}

/// Runs a one-off tool (such as `initdb`) to completion, with its output in
/// `log_path`, failing if it exits non-zero or runs longer than `timeout`.
pub(crate) fn run_to_completion(
    name: &str,
    mut command: Command,
    log_path: &Path,
    timeout: Duration,
) -> anyhow::Result<()> {
    send_output_to(&mut command, log_path)?;
    parent_death::die_with_parent(&mut command, Signal::KILL);
    let mut child = spawner::spawn(command).with_context(|| format!("start {name}"))?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .with_context(|| format!("wait for {name}"))?
        {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "{name} did not finish within {timeout:?}; the end of its log:\n{}",
                log_tail(log_path)
            );
        }
        thread::sleep(POLL);
    };
    if !status.success() {
        bail!(
            "{name} failed ({status}); the end of its log:\n{}",
            log_tail(log_path)
        );
    }
    Ok(())
}

/// Stops every server this process started and removes their directories.
pub(crate) fn stop_all() {
    let servers = std::mem::take(&mut *lock_started());
    for server in servers {
        server.stop();
    }
}

impl ChildServer {
    fn stop(mut self) {
        let _ = kill_process(Pid::from_child(&self.child), self.stop_signal);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(None) => thread::sleep(Duration::from_millis(20)),
                // Exited (or cannot be waited for, which means it is gone).
                Ok(Some(_)) | Err(_) => break,
            }
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            eprintln!(
                "local-services: {} did not stop within {STOP_TIMEOUT:?}, killing it",
                self.name
            );
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        drop(self.dir);
    }
}

fn wait_until_ready(spec: &ServerSpec<'_>, port: u16, child: &mut Child) -> anyhow::Result<()> {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().context("check on the starting server")? {
            bail!("{} exited during start-up ({status})", spec.name);
        }
        match (spec.probe)(port) {
            Ok(()) => return Ok(()),
            Err(error) if Instant::now() >= deadline => {
                return Err(error.context(format!(
                    "{} on port {port} did not answer within {READY_TIMEOUT:?}",
                    spec.name
                )));
            }
            Err(_) => thread::sleep(POLL),
        }
    }
}

/// A port that was free a moment ago. Another process may take it before
/// the server binds it; `start` then retries with another.
pub(crate) fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

pub(crate) fn send_output_to(command: &mut Command, log_path: &Path) -> anyhow::Result<()> {
    let open =
        || -> io::Result<File> { OpenOptions::new().create(true).append(true).open(log_path) };
    let stdout = open().with_context(|| format!("open log {}", log_path.display()))?;
    let stderr = stdout
        .try_clone()
        .with_context(|| format!("open log {}", log_path.display()))?;
    // Not inherited: a server holding our stdout pipe would keep whoever
    // reads it (a test harness, a shell) waiting after we exit.
    command
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        // A process group of its own, so a Ctrl-C at the terminal reaches
        // only us: the bench can still finish its clean-up with the servers
        // up, and they go when we go (parent-death signal) or when stopped.
        .process_group(0);
    Ok(())
}

/// The last lines of a log file, for error messages.
pub(crate) fn log_tail(log_path: &Path) -> String {
    const LINES: usize = 15;
    let text = match std::fs::read(log_path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) => return format!("(could not read the log: {error})"),
    };
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(LINES);
    let tail = lines[start..].join("\n");
    if tail.trim().is_empty() {
        "(the log is empty)".to_owned()
    } else {
        tail
    }
}

fn lock_started() -> std::sync::MutexGuard<'static, Vec<ChildServer>> {
    STARTED.lock().unwrap_or_else(PoisonError::into_inner)
}
