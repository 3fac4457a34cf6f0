//! The servers as child processes of bench's own executable.
//!
//! `cargo run -p bench` builds only bench, so bench links both server
//! libraries and starts each as `bench serve blocking|async ...` (a hidden
//! subcommand); virtual threads are `bench serve blocking --threads virtual`,
//! and the calibration servers `bench serve tomcat|netty`, which becomes
//! their JVM ([`java`]). The child asks the kernel to send it SIGTERM when
//! bench dies, so Ctrl-C or a crash of bench never leaves a server running.

pub mod java;

use std::fs::File;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use net_tools::http_answer::read_answer;

use crate::plan::{binary, Target};

/// How long a server may take to apply migrations, seed and answer /health.
const READY_WITHIN: Duration = Duration::from_secs(120);

/// A server that exited before it answered /health: its arguments are ones
/// it refuses (say, a driver this build of it does not have), which fails
/// the column that asked for them rather than the run.
#[derive(Debug)]
pub struct ExitedAtStart(pub String);

impl std::fmt::Display for ExitedAtStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExitedAtStart {}

/// The last non-empty line of a log, trimmed, for an error message.
fn last_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    Some(line.trim().chars().take(300).collect())
}

pub struct OwnedServer {
    target: Target,
    addr: SocketAddr,
    log_path: std::path::PathBuf,
    child: Child,
}

/// A port the kernel says is free now. Another process could take it before
/// the server binds; the readiness check would then fail with a clear error.
fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl OwnedServer {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts `bench serve <target> --bind 127.0.0.1:<free port> <args>`, its
    /// output appended to `log_path`, and waits until /health answers.
    pub fn start(
        target: Target,
        args: Vec<String>,
        log_path: &Path,
    ) -> anyhow::Result<OwnedServer> {
        let exe = std::env::current_exe().context("cannot find bench's own executable")?;
        let port = free_port()?;
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let log = File::options()
            .create(true)
            .append(true)
            .open(log_path)
            .with_context(|| format!("cannot open {}", log_path.display()))?;
        let child = Command::new(exe)
            .arg("serve")
            .arg(binary(target))
            .arg("--bind")
            .arg(addr.to_string())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start the {} server", target.name()))?;
        let mut server = OwnedServer {
            target,
            addr,
            log_path: log_path.to_owned(),
            child,
        };
        server.wait_ready()?;
        Ok(server)
    }

    fn wait_ready(&mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Err(anyhow::Error::new(ExitedAtStart(format!(
                    "the {} server exited during start-up ({status}){}; its log: {}",
                    self.target.name(),
                    last_line(&self.log_path).map_or(String::new(), |l| format!(": {l}")),
                    self.log_path.display()
                ))));
            }
            if matches!(http_get(self.addr, "/health"), Ok((200, _))) {
                return Ok(());
            }
            if Instant::now() > deadline {
                self.stop();
                bail!(
                    "the {} server did not answer /health within {READY_WITHIN:?}; its log: {}",
                    self.target.name(),
                    self.log_path.display()
                );
            }
            // Every column round starts a server: poll often so start-up is not padded.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM, a graceful drain, then SIGKILL if it takes longer than 20 s.
    pub fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGKILL at once: for a sweep's server, whose graceful drain would
    /// only serve requests the load generator has already abandoned.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One `GET` with `Connection: close`; (status, body).
pub fn http_get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    http_get_within(addr, path, Duration::from_secs(2), Duration::from_secs(10))
}

/// [`http_get`] with its own connect and read timeouts.
pub fn http_get_within(
    addr: SocketAddr,
    path: &str,
    connect: Duration,
    read: Duration,
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, connect.max(Duration::from_millis(1)))?;
    // One write: formatting straight into the socket would send the request
    // in pieces, one syscall per piece.
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(request.as_bytes())?;
    let answer = read_answer(
        &mut s,
        &mut Vec::new(),
        Instant::now() + read.max(Duration::from_millis(1)),
    )?;
    Ok((answer.status, answer.text()))
}

/// Sum of `http_requests_total` in a /metrics text.
pub fn requests_total(metrics: &str) -> u64 {
    metrics
        .lines()
        .filter(|l| l.starts_with("http_requests_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Parses `http://host:port` (a trailing `/` allowed) into an address.
pub fn parse_base_url(url: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("expected a URL like http://127.0.0.1:8080, got {url:?}"))?;
    let host_port = rest.trim_end_matches('/');
    if host_port.contains('/') {
        return Err(format!(
            "expected a URL without a path, like http://127.0.0.1:8080, got {url:?}"
        ));
    }
    host_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("cannot resolve {host_port:?} in {url:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(
            parse_base_url("http://127.0.0.1:8080/").unwrap().port(),
            8080
        );
        assert!(parse_base_url("127.0.0.1:8080").is_err());
        assert!(parse_base_url("http://127.0.0.1:8080/x").is_err());
    }

    #[test]
    fn metrics_totals_add_up() {
        let text = "# TYPE http_requests_total counter\nhttp_requests_total{route=\"/health\",status=\"200\"} 3\nhttp_requests_total{route=\"/cpu\",status=\"400\"} 2\nprocess_threads 9\n";
        assert_eq!(requests_total(text), 5);
    }
}
