//! The async server's settings: the shared [`CommonSettings`] plus the sizes of
//! its three kinds of threads (event-loop workers, tokio's blocking pool, rayon).
//!
//! Defaults follow the WebFlux columns of seed 000: as many event-loop threads
//! as cores (Netty), a blocking pool of ten per core (BoundedElasticScheduler)
//! and a CPU pool of one per core (ParallelScheduler).

use std::net::SocketAddr;

use clap::Parser;
use contract::settings::DEFAULT_ASYNC_BIND;
use server_settings::{cores, parse_bind, CommonSettings};

/// `--slow-poll-ms` unless told otherwise: the contract's slow threshold,
/// shared with the blocking server's carrier stalls.
const SLOW_POLL_DEFAULT_MS: u64 = server_metrics::blocking_calls::SLOW_DEFAULT.as_millis() as u64;

/// Everything `async-server` can be told, from defaults, the environment and flags.
#[derive(Debug, Clone, Parser)]
// A flag given twice takes its last value, so a test harness can append
// overrides to a default argument list (as on the blocking server).
#[command(
    name = "async-server",
    version,
    about = "Event-loop reference server: axum on tokio, a non-blocking Postgres driver and a Redis client (the WebFlux side).",
    args_override_self = true
)]
pub struct Settings {
    /// Address to listen on.
    #[arg(long, env = "BIND", default_value = DEFAULT_ASYNC_BIND, value_parser = parse_bind)]
    pub bind: SocketAddr,

    /// Runtime worker threads, the event loop [default: cores].
    #[arg(long, env = "WORKER_THREADS", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub worker_threads: Option<u32>,

    /// Most threads tokio's blocking pool may start (spawn_blocking) [default: 10 x cores].
    #[arg(long, env = "BLOCKING_THREADS", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub blocking_threads: Option<u32>,

    /// Threads of the rayon pool behind /cpu/rayon [default: cores].
    #[arg(long, env = "RAYON_THREADS", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub rayon_threads: Option<u32>,

    /// The async Redis client: one shared multiplexed connection (Lettuce's
    /// default), deadpool-redis's pool as shipped, or our pool.
    #[arg(long, env = "REDIS_CLIENT", value_enum, default_value = "shared")]
    pub redis_client: crate::redis_clients::RedisClientKind,

    /// The Postgres driver of every route that reads Postgres: sqlx's pool
    /// (the design card's; two round trips per request), tokio-postgres in
    /// a deadpool-postgres pool (one), or a few shared tokio-postgres
    /// clients with the queries of many requests pipelined on each (no
    /// pool). The blocking variants keep the sync driver.
    #[arg(long, env = "POSTGRES_DRIVER", value_enum, default_value = "sqlx")]
    pub postgres_driver: PostgresDriver,

    /// `--postgres-driver pipelined`: how many shared connections [default:
    /// worker threads].
    #[arg(long, env = "POSTGRES_CLIENTS", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub postgres_clients: Option<u32>,

    /// `--postgres-driver pipelined`: the most queries in flight on one
    /// shared connection; a request that finds its connection's pipeline
    /// full waits for a place, at most the acquire timeout (then 503).
    #[arg(long, env = "POSTGRES_PIPELINE_DEPTH", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub postgres_pipeline_depth: u32,

    /// The stall detector (crate::route_monitors, crate::lag_probe): every
    /// route's handler timed poll by poll, slow polls counted in /metrics and
    /// logged, and a probe task measuring how late the event loop wakes it.
    /// `off` leaves the handlers bare, for measuring what the detector costs.
    #[arg(long, env = "STALL_DETECTOR", value_enum, default_value_t = StallDetector::On)]
    pub stall_detector: StallDetector,

    /// A handler poll at least this long is a slow poll: the worker ran it
    /// without serving anyone else for that long.
    #[arg(long, env = "SLOW_POLL_MS", default_value_t = SLOW_POLL_DEFAULT_MS, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub slow_poll_ms: u64,

    #[command(flatten)]
    pub common: CommonSettings,
}

/// Which driver `--postgres-driver` picks (crate::db).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PostgresDriver {
    /// sqlx's pool (R2DBC's place): two round trips per request.
    Sqlx,
    /// tokio-postgres in a deadpool-postgres pool: one round trip per request.
    Deadpool,
    /// A few shared tokio-postgres clients, queries pipelined, no pool.
    Pipelined,
}

impl PostgresDriver {
    pub fn name(self) -> &'static str {
        match self {
            PostgresDriver::Sqlx => "sqlx",
            PostgresDriver::Deadpool => "deadpool",
            PostgresDriver::Pipelined => "pipelined",
        }
    }
}

/// Whether the stall detector instruments the handlers and runs its probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StallDetector {
    On,
    Off,
}

impl Settings {
    pub fn worker_threads(&self) -> usize {
        self.worker_threads.map_or_else(cores, |n| n as usize)
    }

    pub fn blocking_threads(&self) -> usize {
        self.blocking_threads
            .map_or_else(|| 10 * cores(), |n| n as usize)
    }

    /// The pipelined driver's shared connections: one per worker unless told.
    pub fn postgres_clients(&self) -> usize {
        self.postgres_clients
            .map_or_else(|| self.worker_threads(), |n| n as usize)
    }

    pub fn rayon_threads(&self) -> usize {
        self.rayon_threads.map_or_else(cores, |n| n as usize)
    }

    /// The slow-poll threshold, when the stall detector is on.
    pub fn slow_poll_threshold(&self) -> Option<std::time::Duration> {
        (self.stall_detector == StallDetector::On)
            .then(|| std::time::Duration::from_millis(self.slow_poll_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use server_settings::FromLine as _;

    #[test]
    fn thread_sizes_default_to_the_webflux_columns() {
        let s = Settings::from_line("").unwrap();
        assert_eq!(s.worker_threads(), cores());
        assert_eq!(s.blocking_threads(), 10 * cores());
        assert_eq!(s.rayon_threads(), cores());
        assert_eq!(s.postgres_driver, PostgresDriver::Sqlx);
        assert_eq!(s.postgres_clients(), cores());
        assert_eq!(s.postgres_pipeline_depth, 64);
        assert_eq!(
            s.slow_poll_threshold(),
            Some(std::time::Duration::from_millis(5))
        );
    }

    #[test]
    fn the_stall_detector_can_be_tuned_or_turned_off() {
        let s = Settings::from_line("--slow-poll-ms 50").unwrap();
        assert_eq!(
            s.slow_poll_threshold(),
            Some(std::time::Duration::from_millis(50))
        );
        let s = Settings::from_line("--stall-detector off").unwrap();
        assert_eq!(s.slow_poll_threshold(), None);
        assert!(Settings::from_line("--slow-poll-ms 0").is_err());
    }

    #[test]
    fn flags_override_the_defaults() {
        let s = Settings::from_line(
            "--bind 127.0.0.1:0 --worker-threads 1 --blocking-threads 3 --rayon-threads 2 \
             --postgres-driver pipelined --postgres-pipeline-depth 8",
        )
        .unwrap();
        assert_eq!(s.bind.port(), 0);
        assert_eq!(s.postgres_driver, PostgresDriver::Pipelined);
        // One shared connection per worker unless told.
        assert_eq!(s.postgres_clients(), 1);
        assert_eq!(s.postgres_pipeline_depth, 8);
        assert_eq!(s.worker_threads(), 1);
        assert_eq!(s.blocking_threads(), 3);
        assert_eq!(s.rayon_threads(), 2);
        assert!(Settings::from_line("--worker-threads 0").is_err());
        assert!(Settings::from_line("--postgres-clients 0").is_err());
        assert!(Settings::from_line("--postgres-driver jdbc").is_err());
    }

    #[test]
    fn a_later_flag_overrides_an_earlier_one() {
        let s = Settings::from_line(
            "--worker-threads 1 --worker-threads 3 --db-pool-size 4 --db-pool-size 5",
        )
        .unwrap();
        assert_eq!(s.worker_threads(), 3);
        assert_eq!(s.common.db_pool_size, 5);
    }
}
