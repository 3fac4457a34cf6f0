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

use crate::carriers::CarrierHold;
use crate::http::{self, Response};
use net_tools::proxy::{url_addr, url_with_addr, FaultProxy};

/// Which of the two reference servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// The blocking server as it ships: platform threads, and its Redis
    /// client the one multiplexed connection every handler thread shares
    /// (`--redis-client shared`, Lettuce's shape).
    Blocking,
    Async,
    /// The blocking server with its other Redis client, an r2d2 pool of
    /// exclusive connections (`--redis-client pool`, Jedis' shape): not in
    /// [`Server::ALL`]; the contract suite and the Redis outage tests run
    /// against it ([`Server::OTHER_BLOCKING_REDIS_CLIENTS`]).
    BlockingRedisPool,
    /// The blocking server behind the design card's tiny_http 0.12
    /// (`--connector tiny-http`): not in [`Server::ALL`]; the contract suite
    /// runs its route cases against it, and tests/tests/suites/tiny_http_differences.rs
    /// asserts where it answers differently.
    BlockingTinyHttp,
    /// The blocking server's own handlers on virtual threads (`--threads
    /// virtual`, two carriers) with its default driver, `pinning`: the same
    /// sync clients as [`Server::Blocking`].
    Virtual,
    /// The same on virtual threads with `--driver yielding`: coroutine-aware
    /// Postgres and Redis clients whose waits park the coroutine.
    VirtualYielding,
    /// The async server with `--postgres-driver deadpool` (tokio-postgres in
    /// a deadpool-postgres pool): not in [`Server::ALL`]; the contract suite
    /// runs every case against it ([`Server::OTHER_ASYNC_DRIVERS`]).
    AsyncDeadpool,
    /// The async server with `--postgres-driver pipelined` (shared
    /// tokio-postgres clients, queries pipelined), likewise.
    AsyncPipelined,
}

impl Server {
    /// The three models: thread per request, event loop, virtual threads.
    pub const ALL: [Server; 4] = [
        Server::Blocking,
        Server::Async,
        Server::Virtual,
        Server::VirtualYielding,
    ];

    /// The async server's Postgres drivers besides its default (sqlx), for
    /// the suites that check every driver answers alike.
    pub const OTHER_ASYNC_DRIVERS: [Server; 2] = [Server::AsyncDeadpool, Server::AsyncPipelined];

    /// The blocking server's Redis clients besides its default (the shared
    /// connection), for the suites that check every client answers alike.
    pub const OTHER_BLOCKING_REDIS_CLIENTS: [Server; 1] = [Server::BlockingRedisPool];

    /// Every server mode ([`Server::ALL`]) and the blocking server's other
    /// Redis clients: the servers a test of the cache runs against.
    pub fn with_every_redis_client() -> impl Iterator<Item = Server> {
        Server::ALL
            .into_iter()
            .chain(Server::OTHER_BLOCKING_REDIS_CLIENTS)
    }

    pub fn name(self) -> &'static str {
        match self {
            Server::Blocking => "blocking",
            Server::Async => "async",
            Server::AsyncDeadpool => "async-deadpool",
            Server::AsyncPipelined => "async-pipelined",
            Server::BlockingTinyHttp => "blocking-tiny-http",
            Server::BlockingRedisPool => "blocking-redis-pool",
            Server::Virtual => "virtual",
            Server::VirtualYielding => "virtual-yielding",
        }
    }

    /// The label of this server's `/metrics` lines (`server="..."`).
    pub fn metrics_label(self) -> &'static str {
        match self {
            Server::Blocking | Server::BlockingTinyHttp | Server::BlockingRedisPool => "blocking",
            Server::Async | Server::AsyncDeadpool | Server::AsyncPipelined => "async",
            Server::Virtual | Server::VirtualYielding => "virtual",
        }
    }

    /// Whether it runs on may's carriers (`--threads virtual`), which every
    /// such server of this process shares.
    fn runs_on_carriers(self) -> bool {
        matches!(self, Server::Virtual | Server::VirtualYielding)
    }

    /// Whether it is the blocking server's binary (any of its variants).
    pub fn is_blocking_binary(self) -> bool {
        !self.is_async()
    }

    /// Whether it is the async server (with any of its Postgres drivers).
    pub fn is_async(self) -> bool {
        matches!(
            self,
            Server::Async | Server::AsyncDeadpool | Server::AsyncPipelined
        )
    }

    /// The flags that make this variant of its server binary.
    pub fn variant_args(self) -> &'static [&'static str] {
        match self {
            Server::BlockingTinyHttp => &["--connector", "tiny-http"],
            Server::BlockingRedisPool => &["--redis-client", "pool"],
            Server::Virtual => &["--threads", "virtual"],
            Server::VirtualYielding => &["--threads", "virtual", "--driver", "yielding"],
            Server::AsyncDeadpool => &["--postgres-driver", "deadpool"],
            Server::AsyncPipelined => &["--postgres-driver", "pipelined"],
            Server::Blocking | Server::Async => &[],
        }
    }
}

/// What to change from the defaults of a test app.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Put a [`FaultProxy`] in front of Postgres and one in front of Redis.
    /// A virtual-thread server started so has may's carriers to itself
    /// while it runs (see `carriers.rs`): its dependencies are slowed on
    /// purpose, and its tests time its carriers.
    pub through_proxies: bool,
    /// More command-line flags for the server; a flag given here replaces the
    /// harness's default for it.
    pub extra_args: Vec<String>,
    /// Use this database and key prefix instead of fresh ones, so two apps can
    /// share their data (e.g. two servers starting at once on one empty
    /// database). Made by [`fresh_data`]; cleaned up when the last holder drops.
    pub shared_data: Option<Arc<AppData>>,
}

impl AppOptions {
    /// The harness's defaults with these flags added (see `extra_args`).
    pub fn with_args<'a>(args: impl IntoIterator<Item = &'a str>) -> AppOptions {
        AppOptions {
            extra_args: args.into_iter().map(str::to_owned).collect(),
            ..AppOptions::default()
        }
    }
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
    /// A virtual-thread server's hold on the process's carriers.
    _carriers: Option<CarrierHold>,
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
        let (db, url) = proxied(&database_url)?;
        (db_proxy, database_url) = (Some(db), url);
        let (cache, url) = proxied(&redis_url)?;
        (redis_proxy, redis_url) = (Some(cache), url);
    }
    let services = [
        "--database-url",
        &database_url,
        "--redis-url",
        &redis_url,
        "--redis-key-prefix",
        data.prefix.as_str(),
    ];
    let args = server_args(server, &services, &options.extra_args);
    let carriers = server
        .runs_on_carriers()
        .then(|| CarrierHold::acquire(options.through_proxies));
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let (done_tx, finished) = mpsc::channel();
    let (name, serve, stop) = match server {
        Server::Blocking
        | Server::BlockingTinyHttp
        | Server::BlockingRedisPool
        | Server::Virtual
        | Server::VirtualYielding => blocking_parts(&args, listener)?,
        Server::Async | Server::AsyncDeadpool | Server::AsyncPipelined => {
            async_parts(&args, listener)?
        }
    };
    // The server on a thread of its own, its result sent on `done_tx`.
    let thread = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _ = done_tx.send(serve());
        })?;
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
        _carriers: carriers,
    };
    app.wait_until_healthy(Duration::from_secs(90))?;
    Ok(app)
}

/// A proxy in front of the service at `url`, and the URL through it.
fn proxied(url: &str) -> anyhow::Result<(FaultProxy, String)> {
    let proxy = FaultProxy::start(url_addr(url)?)?;
    let through = url_with_addr(url, proxy.addr());
    Ok((proxy, through))
}

/// The server's command line: the services, the test's small pools and
/// threads, then `extra`. Not every server's parser accepts a flag twice,
/// so a default the caller overrides is dropped instead of relying on "the
/// last one wins".
fn server_args(server: Server, services: &[&str], extra: &[String]) -> Vec<String> {
    let sizes: &[&str] = &[
        "--db-pool-size",
        "3",
        "--redis-pool-size",
        "3",
        "--acquire-timeout-ms",
        "1000",
        "--drain-timeout-s",
        "10",
    ];
    // Each server's threads, then the flags of its variant.
    const BLOCKING: &[&str] = &["--handler-threads", "32"];
    const VIRTUAL: &[&str] = &["--threads", "virtual", "--carriers", "2"];
    const ASYNC: &[&str] = &["--worker-threads", "2", "--blocking-threads", "8"];
    let (threads, variant): (&[&str], &[&str]) = match server {
        Server::Blocking => (BLOCKING, &[]),
        Server::BlockingTinyHttp => (BLOCKING, &["--connector", "tiny-http"]),
        Server::BlockingRedisPool => (BLOCKING, &["--redis-client", "pool"]),
        Server::Virtual => (VIRTUAL, &[]),
        Server::VirtualYielding => (VIRTUAL, &["--driver", "yielding"]),
        Server::Async => (ASYNC, &[]),
        Server::AsyncDeadpool => (ASYNC, &["--postgres-driver", "deadpool"]),
        Server::AsyncPipelined => (ASYNC, &["--postgres-driver", "pipelined"]),
    };
    let overridden: Vec<&str> = extra
        .iter()
        .filter(|a| a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let mut args = vec![server.name().to_owned()];
    // The defaults are `--flag value` pairs.
    for pair in services
        .chunks(2)
        .chain(sizes.chunks(2))
        .chain(threads.chunks(2))
        .chain(variant.chunks(2))
    {
        if !overridden.contains(&pair[0]) {
            args.extend(pair.iter().map(|a| (*a).to_owned()));
        }
    }
    args.extend(extra.iter().cloned());
    args
}

/// An in-process server: its thread's name, what the thread runs, and
/// how a test asks it to stop.
type Parts = (
    &'static str,
    Box<dyn FnOnce() -> anyhow::Result<()> + Send>,
    Box<dyn FnOnce() + Send>,
);

/// The blocking server, stopped by a message.
fn blocking_parts(args: &[String], listener: TcpListener) -> anyhow::Result<Parts> {
    let settings = blocking_server::Settings::try_parse_from(args)?;
    let (tx, rx) = crossbeam_channel::bounded::<()>(1);
    Ok((
        "test-blocking-server",
        Box::new(move || blocking_server::run(listener, settings, rx)),
        Box::new(move || {
            let _ = tx.send(());
        }),
    ))
}

/// The async server on its own runtime, stopped by a oneshot.
fn async_parts(args: &[String], listener: TcpListener) -> anyhow::Result<Parts> {
    let settings = async_server::Settings::try_parse_from(args)?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let serve = move || {
        let rt = async_server::build_runtime(&settings)?;
        rt.block_on(async move {
            listener.set_nonblocking(true)?;
            let listener = tokio::net::TcpListener::from_std(listener)?;
            async_server::run(listener, settings, async move {
                let _ = rx.await;
            })
            .await
        })
    };
    Ok((
        "test-async-server",
        Box::new(serve),
        Box::new(move || {
            let _ = tx.send(());
        }),
    ))
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
