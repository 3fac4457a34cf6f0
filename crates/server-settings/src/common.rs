//! The flags both servers share: each value from its default, then the
//! environment, then the command line.
//!
//! Each server flattens [`CommonSettings`] into its own `Settings` and adds its
//! thread sizes there, so `--help` of either binary lists what applies to it.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;
use contract::settings::{DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL};

/// Settings of the data layer and the process, the same for both servers.
#[derive(Debug, Clone, Args)]
pub struct CommonSettings {
    /// Postgres connection URL.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,

    /// Redis connection URL.
    #[arg(long, env = "REDIS_URL", default_value = DEFAULT_REDIS_URL)]
    pub redis_url: String,

    /// Prefix of every Redis key, so several servers or test runs can share one Redis.
    #[arg(long, env = "REDIS_KEY_PREFIX", default_value = "")]
    pub redis_key_prefix: String,

    /// Postgres pool size (HikariCP's and R2DBC's default is 10).
    #[arg(long, env = "DB_POOL_SIZE", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub db_pool_size: u32,

    /// Redis pool size.
    #[arg(long, env = "REDIS_POOL_SIZE", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub redis_pool_size: u32,

    /// How long a request waits for a pooled connection (or a dependency's answer)
    /// before it gets 503, in milliseconds.
    #[arg(long, env = "ACQUIRE_TIMEOUT_MS", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub acquire_timeout_ms: u64,

    /// Check a pooled connection with a round trip before handing it out, on
    /// every checkout. Off by default on both servers: it costs a round trip per
    /// request. Broken connections are still found (the query fails and the
    /// connection is dropped) and idle ones are closed after `--pool-idle-timeout-s`.
    /// Whatever this says, sqlx (the async server's default Postgres driver)
    /// pings each connection as it takes it back: a second round trip per
    /// request that no setting turns off (docs/database.md).
    #[arg(long, env = "POOL_TEST_ON_CHECKOUT", default_value_t = false)]
    pub pool_test_on_checkout: bool,

    /// Close pooled connections idle for longer than this many seconds; 0 keeps
    /// them open however long they are idle.
    #[arg(long, env = "POOL_IDLE_TIMEOUT_S", default_value_t = 600)]
    pub pool_idle_timeout_s: u64,

    /// On SIGTERM or Ctrl-C, how long in-flight requests get to finish, in seconds.
    #[arg(long, env = "DRAIN_TIMEOUT_S", default_value_t = 10)]
    pub drain_timeout_s: u64,

    /// Do not apply migrations or seed the cache at start-up. For running
    /// without Postgres or Redis: the routes that need them answer 503, the
    /// rest work (bench uses this when neither can be found or started).
    #[arg(long, env = "SKIP_SETUP", default_value_t = false)]
    pub skip_setup: bool,

    /// How long a client may take to send its request head, in milliseconds.
    #[arg(long, env = "HEADER_READ_TIMEOUT_MS", default_value_t = 10_000)]
    pub header_read_timeout_ms: u64,

    /// How long a client may take to send a request body, from the end of
    /// its head to the body's last byte, in milliseconds: one deadline for
    /// the whole body (a body sent a byte at a time never trips a per-read
    /// timeout). Past it the request gets 408 and the connection is closed.
    #[arg(long, env = "BODY_READ_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub body_read_timeout_ms: u64,

    /// How the log lines are written: `text` (for people) or `json` (one
    /// object per line, tracing's JSON formatter, for log collectors).
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// The two log formats both servers offer (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// tracing-subscriber's human-readable lines.
    Text,
    /// tracing-subscriber's JSON lines: timestamp, level, fields, target.
    Json,
}

impl CommonSettings {
    pub fn acquire_timeout(&self) -> Duration {
        Duration::from_millis(self.acquire_timeout_ms)
    }

    /// How long a pooled connection may sit idle before it is closed; `None`
    /// for `--pool-idle-timeout-s 0`, which means "never". Every pool library
    /// here takes an `Option` and refuses (or misreads) a zero duration, so
    /// the conversion is made once, here.
    pub fn pool_idle_timeout(&self) -> Option<Duration> {
        (self.pool_idle_timeout_s > 0).then(|| Duration::from_secs(self.pool_idle_timeout_s))
    }

    pub fn drain_timeout(&self) -> Duration {
        Duration::from_secs(self.drain_timeout_s)
    }

    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms)
    }

    /// The descriptors a connection layer keeps free of client connections
    /// for both pools at their full size and the rest (contract's rule,
    /// `contract::open_files`).
    pub fn reserved_fds(&self) -> u64 {
        contract::open_files::reserved_fds(self.db_pool_size, self.redis_pool_size)
    }

    /// The whole-body deadline, from the end of a request's head
    /// (`contract::ApiError::body_timeout` past it).
    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_millis(self.body_read_timeout_ms)
    }
}

/// Parses a `--bind` value with a message that says what was wrong.
pub fn parse_bind(raw: &str) -> Result<SocketAddr, String> {
    raw.parse()
        .map_err(|_| format!("expected an address like 127.0.0.1:8080, got {raw:?}"))
}

/// The cores this process may run on, as std counts them (the affinity mask,
/// a cgroup's CPU quota): the default number of event-loop workers, rayon
/// threads and carriers, and what bench passes where it sets them itself.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// A thread count as a command line gives it (`arg`), or [`cores`] when it
/// gives none, or no number: the minimal examples' workers and carriers.
pub fn threads_or_cores(arg: Option<String>) -> usize {
    arg.and_then(|n| n.parse().ok()).unwrap_or_else(cores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        common: CommonSettings,
    }

    #[test]
    fn defaults_match_the_documented_ones() {
        let cli = Cli::try_parse_from([
            "x",
            "--database-url",
            DEFAULT_DATABASE_URL,
            "--redis-url",
            DEFAULT_REDIS_URL,
        ])
        .unwrap();
        assert_eq!(cli.common.db_pool_size, 10);
        assert_eq!(cli.common.redis_pool_size, 10);
        assert_eq!(cli.common.acquire_timeout(), Duration::from_secs(2));
        assert_eq!(cli.common.drain_timeout(), Duration::from_secs(10));
        assert!(!cli.common.pool_test_on_checkout);
    }

    #[test]
    fn an_idle_timeout_of_zero_means_never() {
        let idle = |s: &str| {
            Cli::try_parse_from(["x", "--pool-idle-timeout-s", s])
                .map(|cli| cli.common.pool_idle_timeout())
                .ok()
        };
        assert_eq!(idle("0"), Some(None));
        assert_eq!(idle("600"), Some(Some(Duration::from_secs(600))));
    }

    #[test]
    fn bad_pool_size_is_refused() {
        assert!(Cli::try_parse_from(["x", "--db-pool-size", "0"]).is_err());
    }

    #[test]
    fn bind_errors_say_what_was_expected() {
        assert!(parse_bind("127.0.0.1:8080").is_ok());
        assert!(parse_bind("nope").unwrap_err().contains("127.0.0.1:8080"));
    }
}
