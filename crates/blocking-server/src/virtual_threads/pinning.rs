//! The pinning detector: which route holds a carrier thread, the analog of
//! JFR's `jdk.VirtualThreadPinned` event and `-Djdk.tracePinnedThreads`.
//!
//! Two halves that do not lean on each other, as on the async server's
//! event loop (docs/event-loop.md):
//!
//! - **Marked calls** say what the code declares. The pinning driver
//!   (crate::driver) and `/cpu` run each call that holds the carrier inside
//!   [`on_carrier`], which reads the request's route from coroutine-local
//!   storage (set for the whole request by [`serving`]: it follows the
//!   coroutine across yields, where a thread-local would not), sets the
//!   contract's thread-local marker around that one call
//!   (`contract::blocking_calls::while_marked`: set and cleared on the
//!   carrier, never held across a yield, since the call does not yield),
//!   and times it. The sync clients mark their calls themselves
//!   (`contract::blocking_calls::mark`), exactly as on the async server.
//! - **Timing** says what happened, marked or not. A request's coroutine
//!   holds its carrier from the moment it is resumed until it parks again;
//!   every place a handler can park goes through [`parks`], so the time
//!   between two parks (a "run", the coroutine's analog of a poll) is
//!   measured. A run of the slow threshold or longer is a carrier stall of
//!   that route (`route_carrier_stalls_total`): nothing else ran on that
//!   carrier meanwhile. And because may has no scheduler hook, a probe
//!   coroutine per carrier sleeps [`PROBE_EVERY`] and records how late it
//!   wakes (`carrier_lag_seconds`, the record the async server keeps of its
//!   event loop: `contract::lag`): it sees every stall, whoever made it.
//!
//! A route that made blocking calls on a carrier gets a warning, at most
//! one per route every `WARN_EVERY`, naming the calls and the fix.
//!
//! On platform threads nothing is set: [`on_carrier`] just runs the call.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use contract::blocking_calls::{
    while_marked, CountsByKind, Place, RouteBlockingCalls, SLOW_DEFAULT, WARN_EVERY,
};
use contract::lag::{LagRecord, PROBE_EVERY};
use contract::metrics::{append_summaries, seconds, write_family_header, SummarySeries};

/// One route's time on the carriers.
#[derive(Debug)]
pub(crate) struct RoutePins {
    route: &'static str,
    calls: &'static RouteBlockingCalls,
    held_ns: AtomicU64,
    stalls: AtomicU64,
    stall_ns: AtomicU64,
}

impl RoutePins {
    fn leak(route: &'static str) -> &'static RoutePins {
        Box::leak(Box::new(RoutePins {
            route,
            calls: RouteBlockingCalls::leak(),
            held_ns: AtomicU64::new(0),
            stalls: AtomicU64::new(0),
            stall_ns: AtomicU64::new(0),
        }))
    }

    /// A marked call held the carrier for `for_`.
    fn held(&self, for_: Duration) {
        self.held_ns.fetch_add(nanos(for_), Ordering::Relaxed);
    }

    /// The request's coroutine ran for `for_` without parking.
    fn ran(&self, for_: Duration) {
        if for_ >= SLOW_DEFAULT {
            self.stalls.fetch_add(1, Ordering::Relaxed);
            self.stall_ns.fetch_add(nanos(for_), Ordering::Relaxed);
        }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The request a coroutine is serving, and since when it has run without
/// parking.
type Serving = Option<(&'static RoutePins, Instant)>;

may::coroutine_local!(static SERVING: Cell<Serving> = Cell::new(None));

/// Runs one request's handler with its route in coroutine-local storage,
/// so that [`on_carrier`] and [`parks`] know whose time they measure; the
/// handler's last run ends when it returns. Restored afterwards, even if
/// the handler panics.
pub(crate) fn serving<T>(route: &'static RoutePins, handler: impl FnOnce() -> T) -> T {
    struct Restore(Serving);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some((route, since)) = SERVING.with(Cell::get) {
                route.ran(since.elapsed());
            }
            SERVING.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SERVING.with(|s| s.replace(Some((route, Instant::now())))));
    handler()
}

/// Runs `call`, which may park the coroutine (a may sleep, a read on may's
/// TcpStream, a wait on may's semaphore): the run before it ends here, and
/// a new one starts when the coroutine is resumed. Outside a request it
/// just runs the call.
pub(crate) fn parks<T>(call: impl FnOnce() -> T) -> T {
    let Some((route, since)) = SERVING.with(Cell::get) else {
        return call();
    };
    route.ran(since.elapsed());
    let out = call();
    SERVING.with(|s| s.set(Some((route, Instant::now()))));
    out
}

/// Runs `call`, which holds the thread until it returns. On a carrier,
/// while a request is being served, it is marked and timed for that route
/// (see the module comment); anywhere else it just runs.
pub(crate) fn on_carrier<T>(call: impl FnOnce() -> T) -> T {
    if !may::coroutine::is_coroutine() {
        return call();
    }
    let Some((route, _)) = SERVING.with(Cell::get) else {
        return call();
    };
    let started = Instant::now();
    let out = while_marked(route.calls, call);
    route.held(started.elapsed());
    out
}

/// The detector of one virtual-thread server: every route's pins and the
/// carriers' lag.
pub(crate) struct Pins {
    routes: Vec<&'static RoutePins>,
    lag: Arc<LagRecord>,
    carriers: usize,
}

impl Pins {
    /// The counters of every `route` label the server uses
    /// (`contract::routes::blocking_server_labels`), with the carrier probes
    /// and the warning thread started.
    pub(crate) fn start(carriers: usize) -> anyhow::Result<Arc<Pins>> {
        let lag = Arc::new(LagRecord::new(Instant::now()).map_err(anyhow::Error::msg)?);
        for carrier in 0..carriers {
            let lag = Arc::clone(&lag);
            super::spawn::go_on(carrier, "carrier-probe", move || loop {
                let due = Instant::now() + PROBE_EVERY;
                may::coroutine::sleep(PROBE_EVERY);
                let now = Instant::now();
                lag.record(now, now.saturating_duration_since(due));
            })?;
        }
        let pins = Arc::new(Pins {
            routes: contract::routes::blocking_server_labels()
                .map(RoutePins::leak)
                .collect(),
            lag,
            carriers,
        });
        let watched = Arc::clone(&pins);
        std::thread::Builder::new()
            .name("pinning-warnings".into())
            .spawn(move || warn_forever(&watched))?;
        Ok(pins)
    }

    /// The counters of the route labelled `pattern`.
    pub(crate) fn route(&self, pattern: &str) -> Option<&'static RoutePins> {
        self.routes.iter().copied().find(|r| r.route == pattern)
    }

    /// The detector's lines of `/metrics`.
    pub(crate) fn render(&self, out: &mut String, server: &str) {
        write_family_header(
            out,
            "carriers",
            "Carrier threads running the virtual threads (--carriers).",
            "gauge",
        );
        let _ = writeln!(out, "carriers{{server=\"{server}\"}} {}", self.carriers);
        type Figure = fn(&RoutePins) -> String;
        let families: [(&str, &str, Figure); 4] = [
            (
                "route_blocking_calls_total",
                "Blocking calls a request of the route made on a carrier thread (pinning it).",
                |r| r.calls.total().to_string(),
            ),
            (
                "route_blocking_call_seconds_total",
                "Time the route's blocking calls held their carrier thread.",
                |r| seconds(Duration::from_nanos(r.held_ns.load(Ordering::Relaxed))),
            ),
            (
                "route_carrier_stalls_total",
                "Times a request of the route ran on its carrier for the slow threshold (5 ms) or longer without parking, marked or not.",
                |r| r.stalls.load(Ordering::Relaxed).to_string(),
            ),
            (
                "route_carrier_stall_seconds_total",
                "Time those runs held their carrier.",
                |r| seconds(Duration::from_nanos(r.stall_ns.load(Ordering::Relaxed))),
            ),
        ];
        for (name, help, figure) in families {
            write_family_header(out, name, help, "counter");
            for r in &self.routes {
                let _ = writeln!(
                    out,
                    "{name}{{server=\"{server}\",route=\"{}\"}} {}",
                    r.route,
                    figure(r)
                );
            }
        }
        append_summaries(
            out,
            "carrier_lag_seconds",
            "How late a carrier's probe coroutine woke from a 50-ms sleep; quantiles over the last minute.",
            server,
            &[SummarySeries {
                label: None,
                summary: self.lag.summary(Instant::now()),
            }],
        );
    }
}

/// Once a second, warns about each route whose blocking calls on a carrier
/// rose, at most once per route every `WARN_EVERY`.
fn warn_forever(pins: &Pins) {
    let mut reported: Vec<(CountsByKind, Option<Instant>)> =
        vec![(CountsByKind::default(), None); pins.routes.len()];
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = Instant::now();
        for (route, (last, at)) in pins.routes.iter().zip(reported.iter_mut()) {
            let counts = route.calls.counts();
            let quiet = at.is_none_or(|at| now - at >= WARN_EVERY);
            if counts != *last && quiet {
                let new = std::array::from_fn(|i| counts[i] - last[i]);
                contract::blocking_calls::warn(Place::Carrier, route.route, new);
                *last = counts;
                *at = Some(now);
            }
        }
    }
}
