//! The stall detector's warning task: once a second it reads every route's
//! monitor (crate::route_monitors) and, for a route whose slow-poll count
//! rose, logs one warning naming the route, how long its slow polls took and
//! the fix. At most one warning per route every [`WARN_EVERY`]; a warning
//! covers every slow poll since the route's previous one, so none goes
//! unreported. On the same tick and with the same rule, it has
//! crate::blocking_calls warn about a route whose blocking calls on a worker
//! rose (that half's warning is its own, rate-limited apart).
//!
//! A monitor counts slow polls and their total time, not each poll's own
//! length, so a warning for one slow poll gives its length and a warning for
//! several gives their mean. The task runs on the event loop itself: while a
//! worker is blocked it may be late, which is fine, it reports afterwards.
//!
//! The twin is the blocking server's all-threads-busy warning
//! (crates/blocking-server/src/connector/busy_threads.rs).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::{Instant, MissedTickBehavior};

use crate::blocking_calls::{self, CountsByKind};
use crate::route_monitors::RouteMonitors;

/// How often the monitors are read.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// At most one warning per route this often (the contract's, shared with
/// the blocking server's pinning detector).
pub(crate) const WARN_EVERY: Duration = server_metrics::blocking_calls::WARN_EVERY;

/// What was last reported for one route.
#[derive(Clone, Copy, Default)]
struct Reported {
    slow_polls: u64,
    slow_poll_time: Duration,
    at: Option<Instant>,
    /// The route's blocking calls on a worker, by kind, when last warned about.
    blocking_calls: CountsByKind,
    blocking_calls_at: Option<Instant>,
}

/// Whether a route last warned about at `at` may be warned about again.
fn quiet_long_enough(at: Option<Instant>, now: Instant) -> bool {
    at.is_none_or(|at| now - at >= WARN_EVERY)
}

/// Starts the warning task on the current runtime (detector on only).
pub(crate) fn spawn(monitors: Arc<RouteMonitors>) {
    let Some(threshold) = monitors.slow_poll_threshold() else {
        return;
    };
    tokio::spawn(async move {
        let mut reported = vec![Reported::default(); monitors.totals().count()];
        let mut ticks = tokio::time::interval(CHECK_EVERY);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let now = Instant::now();
            let routes = monitors.totals().zip(monitors.blocking_calls());
            for (((route, totals), (_, calls)), last) in routes.zip(reported.iter_mut()) {
                let new_polls = totals.slow_polls - last.slow_polls;
                if new_polls > 0 && quiet_long_enough(last.at, now) {
                    let new_time = totals.slow_poll_time - last.slow_poll_time;
                    warn(route, new_polls, new_time, threshold);
                    last.slow_polls = totals.slow_polls;
                    last.slow_poll_time = totals.slow_poll_time;
                    last.at = Some(now);
                }
                let calls = calls.counts();
                if calls != last.blocking_calls && quiet_long_enough(last.blocking_calls_at, now) {
                    let new = std::array::from_fn(|i| calls[i] - last.blocking_calls[i]);
                    blocking_calls::warn(route, new);
                    last.blocking_calls = calls;
                    last.blocking_calls_at = Some(now);
                }
            }
        }
    });
}

fn warn(route: &'static str, slow_polls: u64, time: Duration, threshold: Duration) {
    let ms = |d: Duration| d.as_millis();
    let mean = time / u32::try_from(slow_polls).unwrap_or(u32::MAX);
    let what = if slow_polls == 1 {
        format!("a poll of {} ms", ms(time))
    } else {
        format!(
            "{slow_polls} polls of {} ms on average, {} ms in all",
            ms(mean),
            ms(time)
        )
    };
    tracing::warn!(
        route,
        slow_polls,
        mean_poll_ms = ms(mean) as u64,
        threshold_ms = ms(threshold) as u64,
        "route {route} blocked an event-loop worker: {what} (slow: {} ms or more); \
         nothing else ran on that worker meanwhile. Move the blocking or CPU-heavy \
         work to spawn_blocking or rayon",
        ms(threshold)
    );
}
