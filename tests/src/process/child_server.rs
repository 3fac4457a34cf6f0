//! One reference server's real binary, run as a child process with its own
//! fresh database and Redis key prefix, its output in a log file.
//!
//! Only this package's integration tests know where cargo put its binaries
//! (`env!("CARGO_BIN_EXE_test-blocking-server")`), so they pass the path in;
//! an environment variable (`BLOCKING_SERVER_BIN`, `ASYNC_SERVER_BIN`) runs
//! another build instead, e.g. a release build for figures worth quoting.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::app::Server;
use crate::http;

/// How long a server may take to answer `/health` after it is started: it
/// runs migrations first, and a debug build on a busy 2-core machine is slow.
const START_LIMIT: Duration = Duration::from_secs(90);

/// The environment variable that names another build of `server`'s binary.
pub fn binary_override_var(server: Server) -> &'static str {
    match server {
        Server::Blocking
        | Server::BlockingTinyHttp
        | Server::BlockingRedisPool
        | Server::Virtual
        | Server::VirtualYielding => "BLOCKING_SERVER_BIN",
        Server::Async | Server::AsyncDeadpool | Server::AsyncPipelined => "ASYNC_SERVER_BIN",
    }
}

/// The binary to run for `server`: the build `binary_override_var` names,
/// else `built_binary`.
pub fn binary(server: Server, built_binary: &str) -> String {
    std::env::var(binary_override_var(server)).unwrap_or_else(|_| built_binary.to_owned())
}

/// The server as a child process; killed and its log removed on drop.
pub struct ChildServer {
    server: Server,
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
    _database: local_services::TestDatabase,
    _prefix: local_services::RedisPrefix,
}

impl ChildServer {
    /// Starts `built_binary` (or the build `binary_override_var` names) with
    /// `extra_args` after the harness's own flags, and waits until it is
    /// healthy. Panics with the server's log if it is not.
    pub fn start(server: Server, built_binary: &str, extra_args: &[&str]) -> ChildServer {
        ChildServer::start_program(server, &binary(server, built_binary), &[], extra_args)
    }

    /// Starts `program` with `leading_args` before the harness's own flags
    /// and `extra_args` after them (`bench serve async --bind ...`: bench's
    /// tests start the servers through the command bench itself uses), and
    /// waits until it is healthy. Panics with the server's log if it is not.
    pub fn start_program(
        server: Server,
        program: &str,
        leading_args: &[&str],
        extra_args: &[&str],
    ) -> ChildServer {
        let name = server.name();
        let database = local_services::postgres()
            .and_then(|pg| pg.fresh_database())
            .expect("a fresh test database");
        let redis = local_services::redis().expect("redis for tests");
        let prefix = redis.fresh_prefix();
        // A free port: bind, read, release. The window before the child binds
        // it again is tiny, but not closed: a server this process starts on
        // port 0 in that window could take it (unlikely; not ruled out).
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let log = std::env::temp_dir().join(format!(
            "harness-{name}-{}-{}.log",
            std::process::id(),
            addr.port()
        ));
        let log_file = std::fs::File::create(&log).expect("server log file");
        let child = Command::new(program)
            .args(leading_args)
            .args(["--bind", &addr.to_string()])
            .args(["--database-url", database.url()])
            .args(["--redis-url", redis.url()])
            .args(["--redis-key-prefix", prefix.as_str()])
            .args(server.variant_args())
            .args(extra_args)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::from(
                log_file.try_clone().expect("server log file handle"),
            ))
            .stderr(Stdio::from(log_file))
            .spawn()
            .expect("starting the server binary");
        let mut started = ChildServer {
            server,
            child,
            addr,
            log,
            _database: database,
            _prefix: prefix,
        };
        started.wait_healthy(START_LIMIT);
        started
    }

    fn wait_healthy(&mut self, limit: Duration) {
        let name = self.server.name();
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{name} server exited during start-up ({status}):\n{}",
                    self.log_text()
                );
            }
            if http::send(self.addr, "GET", "/health", &[], &[]).is_ok_and(|r| r.status == 200) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{name} server not healthy:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's log so far, without terminal colour codes.
    pub fn log_text(&self) -> String {
        let raw = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut text = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                // ESC [ ... letter
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                text.push(c);
            }
        }
        text
    }

    /// Sends SIGTERM to the server, as a service manager stops it.
    pub fn sigterm(&self) {
        let pid = i32::try_from(self.pid())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .expect("the server's process id");
        rustix::process::kill_process(pid, rustix::process::Signal::TERM)
            .unwrap_or_else(|e| panic!("SIGTERM to the {} server: {e}", self.server.name()));
    }

    /// Waits up to `limit` for the process to exit; its exit status, or
    /// `None` if it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
