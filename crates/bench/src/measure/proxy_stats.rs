//! The proxy in front of Postgres, read around a measured window. A remote
//! group's `bench proxy` child serves its counters as Prometheus text
//! (`net_tools::proxy::stats_http`); bench reads them just before and just
//! after the window and keeps the differences ([`ProxyWindow`]): the
//! exchanges the proxy carried (round trips to Postgres) and the round
//! trips it delivered, which a request count turns into round trips per
//! request and Little's law into a pool's bound.

use std::net::SocketAddr;

use crate::measure::remote_metrics::value;
use crate::servers::http_get;
use bench_model::ProxyWindow;

/// One reading of the proxy's counters, as it serves them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProxyReading {
    pub connections: f64,
    pub exchanges: f64,
    /// `proxy_delivered_round_trip_seconds_sum`.
    pub delivered_seconds: f64,
    /// `proxy_round_trip_setting_seconds`.
    pub setting_seconds: f64,
}

/// Parses the proxy's text; says which figure is missing when one is.
pub fn parse(text: &str) -> Result<ProxyReading, String> {
    let need = |name: &str| {
        value(text, name, &[]).ok_or_else(|| format!("no {name} in the proxy's measurements"))
    };
    Ok(ProxyReading {
        connections: need("proxy_connections_total")?,
        exchanges: need("proxy_exchanges_total")?,
        delivered_seconds: need("proxy_delivered_round_trip_seconds_sum")?,
        setting_seconds: need("proxy_round_trip_setting_seconds")?,
    })
}

/// Reads the proxy whose measurements are served at `addr` once.
pub fn read(addr: SocketAddr) -> Result<ProxyReading, String> {
    match http_get(addr, "/metrics") {
        Ok((200, body)) => parse(&body),
        Ok((status, _)) => Err(format!("http://{addr}/metrics answered {status}")),
        Err(e) => Err(format!("cannot read http://{addr}/metrics: {e}")),
    }
}

/// What the proxy carried between `before` and `after`.
pub fn window(before: &ProxyReading, after: &ProxyReading) -> ProxyWindow {
    let delta = |a: f64, b: f64| (a - b).max(0.0);
    ProxyWindow {
        connections: delta(after.connections, before.connections) as u64,
        exchanges: delta(after.exchanges, before.exchanges) as u64,
        delivered_seconds: delta(after.delivered_seconds, before.delivered_seconds),
        setting_ms: after.setting_seconds * 1000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The proxy's own text, as `bench proxy` serves it.
    fn text(connections: u64, exchanges: u64, delivered_ms: u64) -> String {
        let stats = net_tools::ProxyStats {
            connections,
            exchanges,
            delivered: Duration::from_millis(delivered_ms),
            ..net_tools::ProxyStats::default()
        };
        net_tools::proxy::stats_http::render(&stats, Duration::from_millis(2))
    }

    #[test]
    fn a_window_is_the_difference_of_two_readings_of_the_proxys_text() {
        let before = parse(&text(10, 100, 250)).unwrap();
        let after = parse(&text(12, 1_100, 2_750)).unwrap();
        let w = window(&before, &after);
        assert_eq!((w.connections, w.exchanges), (2, 1_000));
        assert!((w.delivered_round_trip_ms().unwrap() - 2.5).abs() < 1e-9);
        assert_eq!(w.setting_ms, 2.0);
        assert_eq!(w.round_trips_per(500), Some(2.0));
    }

    #[test]
    fn a_missing_figure_is_named() {
        let e = parse("proxy_connections_total 3\n").unwrap_err();
        assert_eq!(e, "no proxy_exchanges_total in the proxy's measurements");
    }
}
