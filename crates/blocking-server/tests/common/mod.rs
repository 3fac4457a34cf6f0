//! Test support: a blocking server started in-process on port 0 against a
//! fresh database and Redis key prefix, a small raw HTTP/1.1 client, and a
//! TCP proxy that can cut a dependency away.
// Shared by several test binaries (each uses a different part) and, for the
// probe, by an example: what is unused or `pub` in one binary is used in another.
#![allow(dead_code, unused_imports, unreachable_pub)]

pub mod client;
pub mod cold_start_probe;
pub mod proxy;

use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Parser;
use crossbeam_channel::Sender;

pub use client::{get, send, Conn, Reply};

/// A running server and what it needs; shut down (and drained) on drop.
pub struct TestServer {
    pub addr: SocketAddr,
    pub database_url: String,
    pub redis_url: String,
    pub prefix: String,
    stop: Option<Sender<()>>,
    finished: mpsc::Receiver<anyhow::Result<()>>,
    thread: Option<JoinHandle<()>>,
    _database: Option<local_services::TestDatabase>,
    _prefix: local_services::RedisPrefix,
}

/// How a test wants its server.
#[derive(Default)]
pub struct Options {
    /// Replaces the fresh database's URL (e.g. a proxy in front of it).
    pub database_url: Option<String>,
    pub redis_url: Option<String>,
    pub extra_args: Vec<String>,
}

/// A fresh database (migrated by the server at start-up) and key prefix.
pub struct Fixtures {
    pub database: local_services::TestDatabase,
    pub prefix: local_services::RedisPrefix,
    pub redis_url: String,
}

pub fn fixtures() -> Fixtures {
    init_tracing();
    let database = local_services::postgres()
        .and_then(|pg| pg.fresh_database())
        .expect("a fresh test database");
    let redis = local_services::redis().expect("redis for tests");
    Fixtures {
        database,
        prefix: redis.fresh_prefix(),
        redis_url: redis.url().to_owned(),
    }
}

/// Starts a server with small pools on a fresh database and prefix.
pub fn spawn(extra_args: &[&str]) -> TestServer {
    spawn_with(
        fixtures(),
        Options {
            extra_args: extra_args.iter().map(|s| s.to_string()).collect(),
            ..Options::default()
        },
    )
}

pub fn spawn_with(fixtures: Fixtures, options: Options) -> TestServer {
    let database_url = options
        .database_url
        .unwrap_or_else(|| fixtures.database.url().to_owned());
    let redis_url = options.redis_url.unwrap_or(fixtures.redis_url.clone());
    let prefix = fixtures.prefix.as_str().to_owned();
    let mut args: Vec<String> = [
        "blocking-server",
        "--database-url",
        &database_url,
        "--redis-url",
        &redis_url,
        "--redis-key-prefix",
        &prefix,
        "--db-pool-size",
        "3",
        "--redis-pool-size",
        "3",
        "--acquire-timeout-ms",
        "1000",
        "--handler-threads",
        "32",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(options.extra_args);
    let settings = blocking_server::Settings::try_parse_from(&args).expect("test settings");

    let listener = TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    let addr = listener.local_addr().expect("local addr");
    let (stop, shutdown) = crossbeam_channel::bounded(1);
    let (done, finished) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("test-server".into())
        .spawn(move || {
            let _ = done.send(blocking_server::run(listener, settings, shutdown));
        })
        .expect("spawn server thread");
    let server = TestServer {
        addr,
        database_url,
        redis_url,
        prefix,
        stop: Some(stop),
        finished,
        thread: Some(thread),
        _database: Some(fixtures.database),
        _prefix: fixtures.prefix,
    };
    server.wait_ready();
    server
}

impl TestServer {
    /// Start-up (migrations, seeding) runs before serving; the first request
    /// waits in the backlog until it is done.
    fn wait_ready(&self) {
        let reply = get(self.addr, "/health");
        assert_eq!(reply.status, 200, "server did not become ready");
    }

    pub fn get(&self, path: &str) -> Reply {
        get(self.addr, path)
    }

    pub fn send(&self, raw: &[u8]) -> Reply {
        send(self.addr, raw)
    }

    /// Sends the shutdown message without waiting.
    pub fn signal_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Waits for `run` to return, at most `within`.
    pub fn wait_stopped(&mut self, within: Duration) -> anyhow::Result<()> {
        let result = self
            .finished
            .recv_timeout(within)
            .map_err(|_| anyhow::anyhow!("run did not return within {within:?}"))?;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        result
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.signal_shutdown();
        let _ = self.finished.recv_timeout(Duration::from_secs(15));
    }
}

/// Logs from the server under test, only when `TEST_LOG` is set.
fn init_tracing() {
    if std::env::var_os("TEST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
            )
            .with_test_writer()
            .try_init();
    }
}
