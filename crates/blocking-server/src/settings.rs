//! The blocking server's settings: the shared ones from the contract, plus the
//! address to bind, the size of the handler thread pool and the connection
//! layer in front of the handlers.

use std::net::SocketAddr;

use clap::Parser;
use contract::settings::{parse_bind, CommonSettings, DEFAULT_BLOCKING_BIND};

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
    /// thread per open connection; see the README for what it does differently).
    #[arg(long, env = "CONNECTOR", value_enum, default_value_t = Connector::Nio)]
    pub connector: Connector,

    /// Warn (at most every 5 s) when every handler thread has been busy this
    /// long: requests are queueing for a thread (`nio` connector only).
    #[arg(long, env = "ALL_BUSY_WARN_MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub all_busy_warn_ms: u64,

    #[command(flatten)]
    pub common: CommonSettings,
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

    #[test]
    fn defaults_are_tomcats() {
        let s = Settings::try_parse_from(["blocking-server"]).unwrap();
        assert_eq!(s.handler_threads, 200);
        assert_eq!(s.bind.port(), 8080);
        assert_eq!(s.connector, Connector::Nio);
        assert_eq!(s.all_busy_warn_ms, 500);
    }

    #[test]
    fn the_card_connector_is_chosen_by_name() {
        let s = Settings::try_parse_from(["blocking-server", "--connector", "tiny-http"]).unwrap();
        assert_eq!(s.connector, Connector::TinyHttp);
        assert!(Settings::try_parse_from(["blocking-server", "--connector", "tomcat"]).is_err());
    }

    #[test]
    fn a_later_flag_overrides_an_earlier_one() {
        let s = Settings::try_parse_from([
            "blocking-server",
            "--handler-threads",
            "32",
            "--handler-threads",
            "200",
        ])
        .unwrap();
        assert_eq!(s.handler_threads, 200);
    }

    #[test]
    fn zero_threads_is_refused() {
        assert!(Settings::try_parse_from(["blocking-server", "--handler-threads", "0"]).is_err());
    }
}
