//! How long each request waited for a free handler thread, per route: from
//! the moment the poller saw its connection readable and queued it to the
//! moment a handler thread took it off the queue (`Request::queue_wait`, set
//! by src/connector). With 200 threads and 300-ms handlers, the 201st
//! concurrent request waits here; this is where a thread-per-request server
//! queues, and `/metrics` shows it as `handler_queue_wait_seconds`.
//!
//! Each route keeps a `server_metrics::recent_durations` summary (quantiles over the
//! last minute, count and sum since start-up) behind its own short-held lock.
//! Only a request that came through the queue is recorded: a pipelined
//! request served right after the previous one on the same thread did not
//! wait for a thread, and a request refused while it was being read has no
//! route. Not counted either: the moment between the bytes arriving and the
//! poller noticing (the poller thread itself may wait for a core).
//!
//! With `--connector tiny-http` there is no figure at all, not a zero:
//! tiny_http queues requests inside itself and does not say for how long.
//!
//! The twin is crates/async-server/src/route_monitors.rs: there a request's
//! future may wait for an event-loop worker (its scheduling delay).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use contract::routes::blocking_server_labels;
use server_metrics::recent_durations::{DurationSummary, RecentDurations};

/// One summary per route this server serves, plus `unmatched`.
pub(crate) struct QueueWaits {
    routes: Vec<(&'static str, Mutex<RecentDurations>)>,
}

impl QueueWaits {
    pub(crate) fn new() -> anyhow::Result<Self> {
        let now = Instant::now();
        let mut routes = Vec::new();
        for pattern in blocking_server_labels() {
            let summary = RecentDurations::new(now)
                .map_err(|e| anyhow::anyhow!("creating the queue-wait histogram: {e}"))?;
            routes.push((pattern, Mutex::new(summary)));
        }
        Ok(QueueWaits { routes })
    }

    /// Records one request's wait under its route's pattern.
    pub(crate) fn record(&self, route: &'static str, wait: Duration) {
        if let Some((_, summary)) = self.routes.iter().find(|(p, _)| *p == route) {
            let mut summary = summary.lock().unwrap_or_else(|p| p.into_inner());
            summary.record(Instant::now(), wait);
        }
    }

    /// Each route's summary, for the routes that recorded at least one wait.
    pub(crate) fn summaries(&self) -> Vec<(&'static str, DurationSummary)> {
        let now = Instant::now();
        self.routes
            .iter()
            .map(|(route, summary)| {
                let mut summary = summary.lock().unwrap_or_else(|p| p.into_inner());
                (*route, summary.summary(now))
            })
            .filter(|(_, summary)| summary.count > 0)
            .collect()
    }
}
