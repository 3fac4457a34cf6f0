//! `spawn_app`: one server, in this process, on a free port, with its own data.
//!
//! Each app gets a fresh Postgres database (dropped at the end) and a fresh
//! Redis key prefix (its keys deleted at the end), and optionally fault proxies
//! in front of both dependencies. Pools are kept small: Postgres allows 100
//! connections in all, and tests run in parallel.

use std::net::{SocketAddr, TcpListener};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser as _;
use local_services::{RedisPrefix, TestDatabase};

use crate::fault_proxy::{url_addr, url_with_addr, FaultProxy};
use crate::http::{self, Response};

/// Which of the two reference servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    Blocking,
    Async,
    /// The blocking server behind the design card's tiny_http 0.12
    /// (`--connector tiny-http`): not in [`Server::BOTH`]; the contract suite
    /// runs its route cases against it, and tests/tiny_http_differences.rs
    /// asserts where it answers differently.
    BlockingTinyHttp,
}

impl Server {
    pub const BOTH: [Server; 2] = [Server::Blocking, Server::Async];

    pub fn name(self) -> &'static str {
        match self {
            Server::Blocking => "blocking",
            Server::Async => "async",
            Server::BlockingTinyHttp => "blocking-tiny-http",
        }
    }

    /// The label of this server's `/metrics` lines (`server="..."`).
    pub fn metrics_label(self) -> &'static str {
        match self {
            Server::Blocking | Server::BlockingTinyHttp => "blocking",
            Server::Async => "async",
        }
    }

    /// The flags that make this variant of its server binary.
    pub fn variant_args(self) -> &'static [&'static str] {
        match self {
            Server::BlockingTinyHttp => &["--connector", "tiny-http"],
            Server::Blocking | Server::Async => &[],
        }
    }
}

/// What to change from the defaults of a test app.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Put a [`FaultProxy`] in front of Postgres and one in front of Redis.
    pub through_proxies: bool,
    /// More command-line flags for the server; a flag given here replaces the
    /// harness's default for it.
    pub extra_args: Vec<String>,
    /// Use this database and key prefix instead of fresh ones, so two apps can
    /// share their data (e.g. two servers starting at once on one empty
    /// database). Made by [`fresh_data`]; cleaned up when the last holder drops.
    pub shared_data: Option<Arc<AppData>>,
}

/// A fresh Postgres database and Redis key prefix, both removed on drop.
pub struct AppData {
    // Dropped in this order: keys first, then the database.
    prefix: RedisPrefix,
    db: TestDatabase,
}

impl std::fmt::Debug for AppData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppData")
            .field("database", &self.db.url())
            .field("prefix", &self.prefix.as_str())
            .finish()
    }
}

impl AppData {
    /// The database's URL (direct, not through any proxy).
    pub fn database_url(&self) -> &str {
        self.db.url()
    }

    /// The Redis key prefix.
    pub fn redis_prefix(&self) -> &str {
        self.prefix.as_str()
    }
}

/// A new empty database and a new key prefix, to share between apps through
/// [`AppOptions::shared_data`].
pub fn fresh_data() -> anyhow::Result<Arc<AppData>> {
    let db = local_services::postgres()?.fresh_database()?;
    let prefix = local_services::redis()?.fresh_prefix();
    Ok(Arc::new(AppData { prefix, db }))
}

/// A running server and everything it owns; stops the server when dropped.
pub struct TestApp {
    pub server: Server,
    pub addr: SocketAddr,
    pub db_proxy: Option<FaultProxy>,
    pub redis_proxy: Option<FaultProxy>,
    redis_url: String,
    stop: Option<Box<dyn FnOnce() + Send>>,
    finished: mpsc::Receiver<anyhow::Result<()>>,
    thread: Option<JoinHandle<()>>,
    // Dropped after the server has stopped (field order).
    data: Arc<AppData>,
}

/// Starts `server` with test defaults.
pub fn spawn_app(server: Server) -> TestApp {
    spawn_app_with(server, AppOptions::default())
}

/// Starts `server` with `options`; panics with the cause if it does not become healthy.
pub fn spawn_app_with(server: Server, options: AppOptions) -> TestApp {
    try_spawn_app(server, options)
        .unwrap_or_else(|e| panic!("{} server did not start: {e:#}", server.name()))
}

fn try_spawn_app(server: Server, options: AppOptions) -> anyhow::Result<TestApp> {
    install_test_log();
    let data = match options.shared_data {
        Some(data) => data,
        None => fresh_data()?,
    };
    let redis = local_services::redis()?;

    let (mut database_url, mut redis_url) = (data.db.url().to_owned(), redis.url().to_owned());
    let (mut db_proxy, mut redis_proxy) = (None, None);
    if options.through_proxies {
        let p = FaultProxy::start(url_addr(&database_url)?)?;
        database_url = url_with_addr(&database_url, p.addr());
        db_proxy = Some(p);
        let p = FaultProxy::start(url_addr(&redis_url)?)?;
        redis_url = url_with_addr(&redis_url, p.addr());
        redis_proxy = Some(p);
    }

    let mut args: Vec<String> = [
        server.name(),
        "--database-url",
        &database_url,
        "--redis-url",
        &redis_url,
        "--redis-key-prefix",
        data.prefix.as_str(),
        "--db-pool-size",
        "3",
        "--redis-pool-size",
        "3",
        "--acquire-timeout-ms",
        "1000",
        "--drain-timeout-s",
        "10",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match server {
        Server::Blocking => args.extend(["--handler-threads", "32"].map(String::from)),
        Server::BlockingTinyHttp => {
            args.extend(["--handler-threads", "32", "--connector", "tiny-http"].map(String::from))
        }
        Server::Async => {
            args.extend(["--worker-threads", "2", "--blocking-threads", "8"].map(String::from))
        }
    }
    // Not every server's parser accepts a flag twice, so drop a default the
    // caller overrides instead of relying on "the last one wins".
    let overridden: Vec<&str> = options
        .extra_args
        .iter()
        .filter(|a| a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let mut defaults = std::mem::take(&mut args).into_iter();
    // args[0] is the program name; the rest are `--flag value` pairs.
    args.extend(defaults.next());
    while let (Some(flag), Some(value)) = (defaults.next(), defaults.next()) {
        if !overridden.contains(&flag.as_str()) {
            args.extend([flag, value]);
        }
    }
    args.extend(options.extra_args.iter().cloned());

    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let (done_tx, finished) = mpsc::channel();
    let (stop, thread): (Box<dyn FnOnce() + Send>, JoinHandle<()>) = match server {
        Server::Blocking | Server::BlockingTinyHttp => {
            let settings = blocking_server::Settings::try_parse_from(&args)?;
            let (tx, rx) = crossbeam_channel::bounded::<()>(1);
            let thread = std::thread::Builder::new()
                .name("test-blocking-server".into())
                .spawn(move || {
                    let _ = done_tx.send(blocking_server::run(listener, settings, rx));
                })?;
            (
                Box::new(move || {
                    let _ = tx.send(());
                }),
                thread,
            )
        }
        Server::Async => {
            let settings = async_server::Settings::try_parse_from(&args)?;
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let thread = std::thread::Builder::new()
                .name("test-async-server".into())
                .spawn(move || {
                    let result = (|| {
                        let rt = async_server::build_runtime(&settings)?;
                        rt.block_on(async move {
                            listener.set_nonblocking(true)?;
                            let listener = tokio::net::TcpListener::from_std(listener)?;
                            async_server::run(listener, settings, async move {
                                let _ = rx.await;
                            })
                            .await
                        })
                    })();
                    let _ = done_tx.send(result);
                })?;
            (
                Box::new(move || {
                    let _ = tx.send(());
                }),
                thread,
            )
        }
    };

    let app = TestApp {
        server,
        addr,
        db_proxy,
        redis_proxy,
        redis_url,
        stop: Some(stop),
        finished,
        thread: Some(thread),
        data,
    };
    app.wait_until_healthy(Duration::from_secs(90))?;
    Ok(app)
}

/// The servers' logs go to the test output only when `TEST_LOG` is set
/// (`RUST_LOG` picks the level, `info` by default); silent otherwise.
fn install_test_log() {
    if std::env::var_os("TEST_LOG").is_some() {
        // The one global subscriber of the harness (installed once per test
        // binary), so a test that reads the logs can run with TEST_LOG too.
        crate::log_capture::capture_logs();
    }
}

impl TestApp {
    fn wait_until_healthy(&self, limit: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(result) = self.finished.try_recv() {
                result.context("run() returned during start-up")?;
                bail!("run() returned Ok during start-up");
            }
            if let Ok(r) = http::send(self.addr, "GET", "/health", &[], b"") {
                if r.status == 200 {
                    return Ok(());
                }
            }
            if Instant::now() > deadline {
                bail!("not healthy within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }

    pub fn post_json(&self, path: &str, body: &[u8]) -> Response {
        self.request("POST", path, &[("Content-Type", "application/json")], body)
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        http::send(self.addr, method, path, headers, body)
            .unwrap_or_else(|e| panic!("{} {method} {path}: {e}", self.server.name()))
    }

    /// The value of one `/metrics` series, named with its labels exactly as
    /// the server writes them (`route_slow_polls_total{server="async",route="/cpu"}`);
    /// `None` when the series is absent (`NaN` is a value).
    pub fn metric(&self, series: &str) -> Option<f64> {
        let text = self.get("/metrics").text();
        let prefix = format!("{series} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .and_then(|value| value.trim().parse().ok())
    }

    /// The key prefix this app's server writes under.
    pub fn redis_prefix(&self) -> &str {
        self.data.prefix.as_str()
    }

    /// A direct Redis connection (not through any proxy), for arranging and checking keys.
    pub fn redis(&self) -> redis::Connection {
        let url = local_services::redis()
            .map(|r| r.url().to_owned())
            .unwrap_or_else(|_| self.redis_url.clone());
        redis::Client::open(url)
            .and_then(|c| c.get_connection())
            .unwrap_or_else(|e| panic!("test redis connection: {e}"))
    }

    /// The URL of this app's own database (not through any proxy).
    pub fn database_url(&self) -> &str {
        self.data.db.url()
    }

    /// Signals shutdown and waits up to `limit` for `run` to return.
    pub fn shutdown(&mut self, limit: Duration) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            stop();
        }
        let result = self
            .finished
            .recv_timeout(limit)
            .map_err(|_| anyhow::anyhow!("run() did not return within {limit:?} of shutdown"))?;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        result
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if self.stop.is_some() {
            let _ = self.shutdown(Duration::from_secs(15));
        }
    }
}
