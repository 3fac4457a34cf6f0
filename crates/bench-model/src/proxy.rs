//! What the proxy in front of Postgres measured over one window of a group
//! whose servers reach Postgres a round trip away: the exchanges it carried
//! (a burst of the client's bytes answered by Postgres: one round trip) and
//! the round trip it delivered to each, timed on both legs.

use serde::{Deserialize, Serialize};

/// The proxy in front of Postgres over one measured window: the
/// differences of its counters read just before and just after it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ProxyWindow {
    /// Connections opened through the proxy in the window.
    pub connections: u64,
    /// Exchanges it carried: client bursts answered by Postgres, one round
    /// trip each (a pipelining client's many queries in one burst are one).
    pub exchanges: u64,
    /// Their delivered round trips, summed, in seconds: from the first
    /// byte of a burst arriving at the proxy to the first byte of the
    /// answer leaving it, the round trip the proxy adds, Postgres' own time
    /// and whatever a busy machine added.
    pub delivered_seconds: f64,
    /// The round trip the proxy was set to add, in ms.
    pub setting_ms: f64,
}

impl ProxyWindow {
    /// The mean delivered round trip in ms; `None` without an exchange.
    pub fn delivered_round_trip_ms(&self) -> Option<f64> {
        (self.exchanges > 0).then(|| self.delivered_seconds * 1000.0 / self.exchanges as f64)
    }

    /// Exchanges per request of `requests`; `None` without a request.
    pub fn round_trips_per(&self, requests: u64) -> Option<f64> {
        (requests > 0).then(|| self.exchanges as f64 / requests as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_per_request_and_the_delivered_mean() {
        let w = ProxyWindow {
            connections: 10,
            exchanges: 2_000,
            delivered_seconds: 5.0,
            setting_ms: 2.0,
        };
        assert_eq!(w.round_trips_per(1_000), Some(2.0));
        assert_eq!(w.round_trips_per(0), None);
        assert_eq!(w.delivered_round_trip_ms(), Some(2.5));
        assert_eq!(ProxyWindow::default().delivered_round_trip_ms(), None);
    }
}
