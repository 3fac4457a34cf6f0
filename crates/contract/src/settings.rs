//! Settings both servers share, from defaults, then the environment, then CLI flags.
//!
//! Each server flattens [`CommonSettings`] into its own `Settings` and adds its
//! thread sizes there, so `--help` of either binary lists what applies to it.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres:postgres@127.0.0.1:5432/postgres";
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";
pub const DEFAULT_BLOCKING_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_ASYNC_BIND: &str = "127.0.0.1:8081";

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

    /// The whole-body deadline, from the end of a request's head
    /// ([`crate::ApiError::body_timeout`] past it).
    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_millis(self.body_read_timeout_ms)
    }
}

/// Parses a `--bind` value with a message that says what was wrong.
pub fn parse_bind(raw: &str) -> Result<SocketAddr, String> {
    raw.parse()
        .map_err(|_| format!("expected an address like 127.0.0.1:8080, got {raw:?}"))
}

/// The number of cores, the default for event-loop and rayon threads.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// What [`redact_url`] shows instead of text it cannot read as a URL.
pub const UNREADABLE_URL: &str = "the configured URL";

/// `url` with any password replaced by `***`, for logs and error messages:
/// the one redactor of the workspace (both servers and local-services).
///
/// The password is the one after `user:` in `scheme://user:password@host`,
/// or a `password=` query parameter (libpq reads one there too). Text that
/// is not `scheme://...` at all (a libpq `host=db password=x` string, a typo)
/// is not shown, since we cannot tell where its secret is.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return UNREADABLE_URL.to_owned();
    };
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return UNREADABLE_URL.to_owned();
    }
    let (authority_and_path, query) = match rest.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (rest, None),
    };
    // The userinfo ends at the last '@' before the path.
    let authority_end = authority_and_path
        .find('/')
        .unwrap_or(authority_and_path.len());
    let (authority, path) = authority_and_path.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_owned(),
    };
    let mut redacted = format!("{scheme}://{authority}{path}");
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        redacted.push('?');
        redacted.push_str(&pairs.join("&"));
    }
    redacted
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
    fn passwords_are_redacted() {
        let table = [
            (
                "postgres://postgres:secret@db:5432/postgres",
                "postgres://postgres:***@db:5432/postgres",
            ),
            (
                "redis://:secret@127.0.0.1:6379",
                "redis://:***@127.0.0.1:6379",
            ),
            // A password holding '@': the userinfo ends at the last one.
            ("postgres://app:p@ss@db/x", "postgres://app:***@db/x"),
            (
                "postgres://db/x?user=app&password=secret&sslmode=off",
                "postgres://db/x?user=app&password=***&sslmode=off",
            ),
            ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
            ("postgres://app@db/x", "postgres://app@db/x"),
            // '@' after the host is path, not userinfo.
            ("postgres://db/a@b", "postgres://db/a@b"),
        ];
        for (url, want) in table {
            assert_eq!(redact_url(url), want, "{url}");
        }
    }

    #[test]
    fn text_that_is_not_a_url_is_not_shown() {
        for text in ["host=db password=secret", "db:secret@host", "://x:y@z", ""] {
            assert_eq!(redact_url(text), UNREADABLE_URL, "{text:?}");
        }
    }

    #[test]
    fn bind_errors_say_what_was_expected() {
        assert!(parse_bind("127.0.0.1:8080").is_ok());
        assert!(parse_bind("nope").unwrap_err().contains("127.0.0.1:8080"));
    }
}
