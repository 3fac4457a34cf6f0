//! The blocking server's settings: the shared ones from the contract, plus the
//! address to bind, the size of the handler thread pool, the connection
//! layer in front of the handlers, and what runs them: platform threads or
//! virtual threads (coroutines), with the driver they call.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use contract::settings::DEFAULT_BLOCKING_BIND;
use server_settings::{parse_bind, CommonSettings};

use crate::http::read::ReadTimeouts;

/// Thread-per-request reference server (Spring MVC on Tomcat's shape): a fixed
/// pool of handler threads, each blocking on Postgres and Redis.
#[derive(Debug, Clone, Parser)]
// A flag given twice takes its last value, so a test harness can append
// overrides to a default argument list.
#[command(name = "blocking-server", version, about, args_override_self = true)]
pub struct Settings {
    /// Address to listen on.
    #[arg(long, env = "BIND", default_value = DEFAULT_BLOCKING_BIND, value_parser = parse_bind)]
    pub bind: SocketAddr,

    /// Handler threads: how many requests run at once (Tomcat's `maxThreads`
    /// default, 200). Further requests wait in the queue for a free thread.
    #[arg(long, env = "HANDLER_THREADS", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub handler_threads: u32,

    /// The connection layer: `nio` (ours, in the shape of Tomcat's NIO
    /// connector) or `tiny-http` (the design card's tiny_http 0.12, one reader
    /// thread per open connection; docs/servers.md says what it does differently).
    #[arg(long, env = "CONNECTOR", value_enum, default_value_t = Connector::Nio)]
    pub connector: Connector,

    /// Warn (at most every 5 s) when every handler thread has been busy this
    /// long: requests are queueing for a thread (`nio` connector only).
    #[arg(long, env = "ALL_BUSY_WARN_MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub all_busy_warn_ms: u64,

    /// What runs the handlers: `platform` (the pool of `--handler-threads` OS
    /// threads) or `virtual` (a coroutine per connection on `--carriers`
    /// threads: the same handlers, as Spring Boot's
    /// `spring.threads.virtual.enabled=true` runs the same controllers).
    #[arg(long, env = "THREAD_MODEL", value_enum, default_value_t = Threads::Platform)]
    pub threads: Threads,

    /// Virtual threads: how many carrier threads run the coroutines; 0 means
    /// one per core (Loom's default parallelism).
    #[arg(long, env = "CARRIERS", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub carriers: u32,

    /// Virtual threads: each coroutine's stack, in KiB. It is fixed (may
    /// does not grow stacks) and an overflow ends the process, so it is the
    /// deepest route's measured use with a margin (docs/servers.md).
    #[arg(long, env = "COROUTINE_STACK_KIB", default_value_t = DEFAULT_COROUTINE_STACK_KIB, value_parser = clap::value_parser!(u32).range(16..=65_536))]
    pub coroutine_stack_kib: u32,

    /// Virtual threads: print each coroutine's stack use when it ends (may
    /// reports it when the stack size in words is odd, so this adds one
    /// word). For measuring the deepest route; not for production.
    #[arg(long, env = "REPORT_STACK_USE")]
    pub report_stack_use: bool,

    /// Virtual threads: the most connections open at once (Tomcat's
    /// `maxConnections`); past it new connections wait in the listen backlog.
    #[arg(long, env = "MAX_CONNECTIONS", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,

    /// The Postgres and Redis clients: `pinning` (r2d2 and the sync clients:
    /// each call blocks the thread that makes it, a carrier on virtual
    /// threads) or `yielding` (coroutine-aware clients whose waits park the
    /// coroutine, not the carrier; needs `--threads virtual`).
    #[arg(long, env = "DRIVER", value_enum, default_value_t = DriverKind::Pinning)]
    pub driver: DriverKind,

    /// The pinning driver's Redis client: `shared` (one multiplexed
    /// connection: each handler thread writes its command on it and blocks
    /// until its own reply comes, Spring Boot's default, Lettuce's shared
    /// native connection) or `pool` (an r2d2 pool of `--redis-pool-size`
    /// exclusive connections: a Jedis pool, or Lettuce with a pool)
    /// [default: shared; pool with `--driver yielding`, whose client is
    /// pooled].
    #[arg(long, env = "REDIS_CLIENT", value_enum)]
    pub redis_client: Option<RedisClient>,

    #[command(flatten)]
    pub common: CommonSettings,
}

/// The coroutine stack of `--threads virtual` unless told otherwise, in KiB.
pub const DEFAULT_COROUTINE_STACK_KIB: u32 = 64;

/// What runs the handlers (`--threads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Threads {
    /// A fixed pool of OS threads behind the connector (src/connector).
    Platform,
    /// A coroutine per connection on a few carrier threads (src/virtual_threads).
    Virtual,
}

/// Which Redis client the pinning driver calls (`--redis-client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RedisClient {
    /// One multiplexed connection shared by every handler thread
    /// (server-support's shared_redis.rs).
    Shared,
    /// An r2d2 pool of exclusive connections (server-support's sync_redis.rs).
    Pool,
}

impl RedisClient {
    /// Its name on the command line and in the start-up log.
    pub fn name(self) -> &'static str {
        match self {
            RedisClient::Shared => "shared",
            RedisClient::Pool => "pool",
        }
    }
}

/// Which Postgres and Redis clients the handlers call (`--driver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DriverKind {
    /// r2d2 pools of the sync clients (src/db.rs, src/cache.rs).
    Pinning,
    /// Coroutine-aware clients on may's sockets (src/virtual_threads).
    Yielding,
}

impl Settings {
    /// The combinations that cannot run, in one line each.
    pub fn check(&self) -> Result<(), String> {
        if self.threads == Threads::Platform && self.driver == DriverKind::Yielding {
            return Err("--driver yielding needs --threads virtual: its clients park a coroutine, and a platform thread has none".into());
        }
        if self.driver == DriverKind::Yielding && self.redis_client == Some(RedisClient::Shared) {
            return Err("--redis-client shared is the pinning driver's: the yielding driver has its own pooled client".into());
        }
        if self.threads == Threads::Virtual && self.connector == Connector::TinyHttp {
            return Err("--connector tiny-http runs on platform threads; --threads virtual has its own connector".into());
        }
        Ok(())
    }

    /// The Redis client: `--redis-client`, or the driver's default
    /// (`shared` with the pinning driver, `pool` with the yielding one).
    pub fn redis_client(&self) -> RedisClient {
        self.redis_client.unwrap_or(match self.driver {
            DriverKind::Pinning => RedisClient::Shared,
            DriverKind::Yielding => RedisClient::Pool,
        })
    }

    /// Carrier threads for `--threads virtual`: `--carriers`, or the cores.
    pub fn carrier_count(&self) -> usize {
        match self.carriers {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n as usize,
        }
    }

    /// What serving needs from these settings, for either executor.
    pub(crate) fn serve_config(&self) -> ServeConfig {
        let common = &self.common;
        ServeConfig {
            timeouts: ReadTimeouts {
                head: common.header_read_timeout(),
                body: common.body_read_timeout(),
            },
            // One timeout for "a request head must arrive", between requests
            // on a keep-alive connection too: hyper's rule on the async
            // server, and Tomcat's (its keepAliveTimeout defaults to its
            // connectionTimeout).
            keep_alive_timeout: common.header_read_timeout(),
            drain_timeout: common.drain_timeout(),
            handler_threads: self.handler_threads as usize,
            connector: self.connector,
            all_busy_warn: Duration::from_millis(self.all_busy_warn_ms),
            carriers: self.carrier_count(),
            coroutine_stack_kib: self.coroutine_stack_kib,
            report_stack_use: self.report_stack_use,
            max_connections: self.max_connections as usize,
            reserved_fds: common.reserved_fds(),
        }
    }
}

/// What serving needs from the settings, read once at start-up as durations
/// and counts: the ONE configuration of both executors' start-up
/// (crate::platform_threads, crate::virtual_threads), each reading its part.
#[derive(Debug, Clone)]
pub(crate) struct ServeConfig {
    /// Both: the connection loop's deadlines for a head and a body
    /// (crate::http::read); the head's is also a write's.
    pub(crate) timeouts: ReadTimeouts,
    /// Both: how long an idle keep-alive connection may wait for its next
    /// request.
    pub(crate) keep_alive_timeout: Duration,
    /// Both: how long a drain waits for requests in progress.
    pub(crate) drain_timeout: Duration,
    /// Platform threads: how many handler threads.
    pub(crate) handler_threads: usize,
    /// Platform threads: the connection layer in front of them.
    pub(crate) connector: Connector,
    /// Platform threads (`nio`): warn when every handler thread has been
    /// busy this long.
    pub(crate) all_busy_warn: Duration,
    /// Virtual threads: how many carriers run the coroutines.
    pub(crate) carriers: usize,
    /// Virtual threads: each coroutine's stack, in KiB.
    pub(crate) coroutine_stack_kib: u32,
    /// Virtual threads: print each coroutine's stack use as it ends.
    pub(crate) report_stack_use: bool,
    /// Virtual threads: the most connections open at once.
    pub(crate) max_connections: usize,
    /// `nio` and virtual threads: the file descriptors to leave for
    /// everything but the connections (the pools above all), which caps
    /// the connections under the open-file limit (contract::open_files).
    pub(crate) reserved_fds: u64,
}

/// Which connection layer reads requests and writes answers; the handlers,
/// router, pools and `/metrics` are the same behind both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Connector {
    /// Acceptor, epoll poller and handler threads (src/connector).
    Nio,
    /// tiny_http 0.12 with handler threads calling `recv()` (src/tiny_http_connector.rs).
    TinyHttp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use server_settings::FromLine as _;

    #[test]
    fn defaults_are_tomcats() {
        let s = Settings::from_line("").unwrap();
        assert_eq!(s.handler_threads, 200);
        assert_eq!(s.bind.port(), 8080);
        assert_eq!(s.connector, Connector::Nio);
        assert_eq!(s.all_busy_warn_ms, 500);
    }

    #[test]
    fn the_card_connector_is_chosen_by_name() {
        let s = Settings::from_line("--connector tiny-http").unwrap();
        assert_eq!(s.connector, Connector::TinyHttp);
        assert!(Settings::from_line("--connector tomcat").is_err());
    }

    #[test]
    fn a_later_flag_overrides_an_earlier_one() {
        let s = Settings::from_line("--handler-threads 32 --handler-threads 48").unwrap();
        // Neither is the default (200), so the last one is what was read.
        assert_eq!(s.handler_threads, 48);
    }

    #[test]
    fn virtual_threads_are_one_flag_and_the_driver_another() {
        let s = Settings::from_line("--threads virtual").unwrap();
        assert_eq!(s.threads, Threads::Virtual);
        assert_eq!(s.driver, DriverKind::Pinning);
        assert_eq!(s.check(), Ok(()));
        let s = Settings::from_line("--threads virtual --driver yielding --carriers 1").unwrap();
        assert_eq!((s.driver, s.carrier_count()), (DriverKind::Yielding, 1));
        assert_eq!(s.check(), Ok(()));
    }

    #[test]
    fn the_redis_client_is_shared_unless_told_or_the_driver_yields() {
        let client = |flags: &str| Settings::from_line(flags).unwrap().redis_client();
        assert_eq!(client(""), RedisClient::Shared);
        assert_eq!(client("--redis-client pool"), RedisClient::Pool);
        assert_eq!(client("--threads virtual"), RedisClient::Shared);
        assert_eq!(
            client("--threads virtual --driver yielding"),
            RedisClient::Pool
        );
    }

    #[test]
    fn combinations_that_cannot_run_are_refused_in_one_line() {
        for flags in [
            "--driver yielding",
            "--threads virtual --driver yielding --redis-client shared",
            "--threads virtual --connector tiny-http",
        ] {
            let error = Settings::from_line(flags).unwrap().check().unwrap_err();
            assert!(
                !error.contains('\n') && error.starts_with("--"),
                "{flags}: {error}"
            );
        }
    }

    #[test]
    fn zero_threads_is_refused() {
        assert!(Settings::from_line("--handler-threads 0").is_err());
    }
}
