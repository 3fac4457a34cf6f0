//! Test support for the async server's own tests: start the server in-process
//! on port 0 against a fresh database and Redis key prefix, a raw HTTP/1.1
//! client (so tests control every byte and every timing), and a TCP proxy that
//! can cut a dependency off.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use async_server::{build_runtime, run, Settings};
use clap::Parser as _;
use local_services::{RedisPrefix, TestDatabase};

/// Logs go to the test output only when `TEST_LOG` is set.
fn init_tracing() {
    if std::env::var_os("TEST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}

/// Where a test server finds its dependencies.
pub struct Deps {
    pub database_url: String,
    pub redis_url: String,
    pub prefix: String,
    _db: Option<TestDatabase>,
    _prefix: Option<RedisPrefix>,
}

impl Deps {
    /// A fresh database and key prefix, removed again on drop.
    pub fn fresh() -> Deps {
        let postgres = local_services::postgres().expect("postgres for tests");
        let redis = local_services::redis().expect("redis for tests");
        let db = postgres.fresh_database().expect("a fresh test database");
        let prefix = redis.fresh_prefix();
        Deps {
            database_url: db.url().to_owned(),
            redis_url: redis.url().to_owned(),
            prefix: prefix.as_str().to_owned(),
            _db: Some(db),
            _prefix: Some(prefix),
        }
    }
}

/// A server running on its own runtime on a std thread.
pub struct TestServer {
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<anyhow::Result<()>>>,
    // Dropped after the server is stopped (Drop below runs first).
    pub deps: Deps,
}

impl TestServer {
    /// Fresh dependencies, small pools, plus `extra` flags.
    pub fn start(extra: &[&str]) -> TestServer {
        Self::start_on(Deps::fresh(), extra)
    }

    pub fn start_on(deps: Deps, extra: &[&str]) -> TestServer {
        init_tracing();
        // Small pools and few threads; `extra` flags replace these defaults.
        let defaults: [(&str, &str); 10] = [
            ("--bind", "127.0.0.1:0"),
            ("--database-url", &deps.database_url),
            ("--redis-url", &deps.redis_url),
            ("--redis-key-prefix", &deps.prefix),
            ("--db-pool-size", "2"),
            ("--redis-pool-size", "2"),
            ("--worker-threads", "2"),
            ("--blocking-threads", "8"),
            ("--rayon-threads", "1"),
            ("--drain-timeout-s", "10"),
        ];
        let mut args = vec!["async-server".to_owned()];
        for (flag, value) in defaults {
            if !extra.contains(&flag) {
                args.extend([flag.to_owned(), value.to_owned()]);
            }
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let settings = Settings::try_parse_from(args).expect("test settings parse");

        let listener = TcpListener::bind("127.0.0.1:0").expect("bind port 0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local addr");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = build_runtime(&settings)?;
            let result = runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                run(listener, settings, async move {
                    let _ = rx.await;
                })
                .await
            });
            runtime.shutdown_timeout(Duration::from_secs(1));
            result
        });
        let server = TestServer {
            addr,
            shutdown: Some(tx),
            thread: Some(thread),
            deps,
        };
        // Start-up (migrations, cache seed) runs before serving; requests wait
        // in the backlog meanwhile.
        let health = server.get("/health");
        assert_eq!(
            health.status, 200,
            "server did not become healthy: {health:?}"
        );
        server
    }

    pub fn get(&self, path: &str) -> Answer {
        get(self.addr, path)
    }

    /// Sends the shutdown signal without waiting for the server to stop.
    pub fn trigger_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Sends the shutdown signal and waits for `run` to return.
    pub fn stop(mut self) -> anyhow::Result<()> {
        self.trigger_shutdown();
        self.join()
    }

    pub fn join(&mut self) -> anyhow::Result<()> {
        match self.thread.take() {
            Some(thread) => thread.join().expect("server thread panicked"),
            None => Ok(()),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.trigger_shutdown();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One HTTP answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `raw` on a new connection and reads the answer until the server
/// closes (requests carry `Connection: close`).
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> std::io::Result<Answer> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    stream.write_all(raw)?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    parse_answer(&bytes)
}

fn parse_answer(bytes: &[u8]) -> std::io::Result<Answer> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| bad("no end of head"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().ok_or_else(|| bad("no status line"))?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(Answer {
        status,
        headers,
        body: body.to_owned(),
    })
}

pub fn get(addr: SocketAddr, path: &str) -> Answer {
    let raw = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    exchange(addr, raw.as_bytes()).unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// GET `path` and how long the answer took.
pub fn timed_get(addr: SocketAddr, path: &str) -> (Answer, Duration) {
    let started = Instant::now();
    let answer = get(addr, path);
    (answer, started.elapsed())
}

pub fn post_json(addr: SocketAddr, path: &str, content_type: &str, body: &[u8]) -> Answer {
    let mut raw = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(body);
    exchange(addr, &raw).unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

/// `host:port` of a `scheme://[user@]host:port/...` URL.
pub fn host_port(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// A TCP proxy in front of a dependency, which a test can cut off: then open
/// connections are shut down and new ones are closed at once, as when the
/// dependency goes away.
pub struct Proxy {
    pub addr: SocketAddr,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("proxy bind");
        let addr = listener.local_addr().expect("proxy addr");
        let up = Arc::new(AtomicBool::new(true));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let upstream = upstream.to_owned();
        let (up2, open2) = (up.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if !up2.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let pipes = [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ];
                {
                    let mut open = open2.lock().unwrap();
                    open.extend(client.try_clone());
                    open.extend(server.try_clone());
                }
                for (from, to) in pipes {
                    if let (Ok(mut from), Ok(mut to)) = (from, to) {
                        std::thread::spawn(move || {
                            let _ = std::io::copy(&mut from, &mut to);
                            let _ = to.shutdown(std::net::Shutdown::Both);
                        });
                    }
                }
            }
        });
        Proxy { addr, up, open }
    }

    /// The URL to give the server: `url` with its host:port replaced by the proxy's.
    pub fn url_for(&self, url: &str) -> String {
        url.replacen(host_port(url), &self.addr.to_string(), 1)
    }

    /// The dependency "goes away".
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// The dependency "comes back".
    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}
