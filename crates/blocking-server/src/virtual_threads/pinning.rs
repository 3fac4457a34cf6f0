//! The pinning detector: which route holds a carrier thread, the analog of
//! JFR's `jdk.VirtualThreadPinned` event and `-Djdk.tracePinnedThreads`.
//!
//! Two halves that do not lean on each other, as on the async server's
//! event loop (docs/event-loop.md):
//!
//! Each request's handler runs with a [`Run`] of its own ([`Pins::serving`],
//! called by the executor seam, crate::executor), reached through the
//! request's `Waits`: it lives on the coroutine's stack, so it follows the
//! coroutine across parks, where a thread-local would not.
//!
//! - **Marked calls** say what the code declares. The pinning driver
//!   (crate::driver) and `/cpu` make each call that holds the carrier
//!   through `Waits::blocking` ([`Run::pinned`]), which sets the
//!   contract's thread-local marker around that one call
//!   (`server_metrics::blocking_calls::while_marked`: set and cleared on the
//!   carrier, never held across a park, since the call does not park), and
//!   times it. The sync clients mark their calls themselves
//!   (`server_metrics::blocking_calls::mark`), exactly as on the async server.
//! - **Timing** says what happened, marked or not. A request's coroutine
//!   holds its carrier from the moment it is resumed until it parks again;
//!   every wait that parks takes the request's `Waits` (`Waits::sleep`, and
//!   the parking types of crate::virtual_threads::parking, which are the
//!   only may waits outside this module) and so ends a run here
//!   ([`Run::parked`]): the time between two parks (a "run", the
//!   coroutine's analog of a poll) is measured. A run of the slow threshold
//!   or longer is a carrier stall of that route
//!   (`route_carrier_stalls_total`): nothing else ran on that carrier
//!   meanwhile. And because may has no scheduler hook, a probe coroutine
//!   per carrier sleeps [`PROBE_EVERY`] and records how late it wakes
//!   (`carrier_lag_seconds`, the record the async server keeps of its event
//!   loop: `server_metrics::lag`): it sees every stall, whoever made it.
//!
//! A route that made blocking calls on a carrier gets a warning, at most
//! one per route every `WARN_EVERY`, naming the calls and the fix.
//!
//! On platform threads there is no `Run`: `Waits` just runs the call.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use server_metrics::blocking_calls::{
    while_marked, CountsByKind, Place, RouteBlockingCalls, SLOW_DEFAULT, WARN_EVERY,
};
use server_metrics::lag::{LagRecord, PROBE_EVERY};
use server_metrics::metrics::{append_summaries, seconds, write_family_header, SummarySeries};

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

/// One request's time on its carrier: its route's counters (`None`
/// outside a request: nothing is timed) and since when it has run without
/// parking. It lives on the coroutine's stack for the request and is
/// reached through the request's `Waits` (crate::executor), so it follows
/// the coroutine across parks, whichever carrier resumes it.
pub(crate) struct Run {
    route: Option<&'static RoutePins>,
    since: Cell<Instant>,
}

impl Run {
    /// Waits `for_` parked (may's sleep): the carrier serves others.
    pub(crate) fn sleep(&self, for_: Duration) {
        #[allow(
            clippy::disallowed_methods,
            reason = "a handler's sleep on a virtual thread, through its Waits"
        )]
        self.parked(|| may::coroutine::sleep(for_));
    }

    /// Runs `call`, which may park the coroutine: the run before it ends
    /// here, and a new one starts when the coroutine is resumed.
    pub(crate) fn parked<T>(&self, call: impl FnOnce() -> T) -> T {
        let Some(route) = self.route else {
            return call();
        };
        route.ran(self.since.get().elapsed());
        let out = call();
        self.since.set(Instant::now());
        out
    }

    /// Runs `call`, which holds the carrier until it returns: marked and
    /// timed for the request's route (see the module comment).
    pub(crate) fn pinned<T>(&self, call: impl FnOnce() -> T) -> T {
        let Some(route) = self.route else {
            return call();
        };
        let started = Instant::now();
        let out = while_marked(route.calls, call);
        route.held(started.elapsed());
        out
    }
}

/// Runs `f` with the waits of a coroutine outside any request: nothing is
/// timed, and a wait still parks (the yielding driver's tests).
#[cfg(test)]
pub(crate) fn untimed<T>(f: impl FnOnce(&crate::executor::Waits<'_>) -> T) -> T {
    let run = Run {
        route: None,
        since: Cell::new(Instant::now()),
    };
    f(&crate::executor::Waits::on_virtual_thread(&run))
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
                #[allow(
                    clippy::disallowed_methods,
                    reason = "the probe's own sleep, in no request: how late it wakes is the figure"
                )]
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

    /// Runs one request's handler on this coroutine with its [`Run`],
    /// timed for the route labelled `route`: from here to the handler's
    /// return, a run ending at every park; the last one ends when it
    /// returns, or panics.
    pub(crate) fn serving<T>(&self, route: &str, handler: impl FnOnce(&Run) -> T) -> T {
        struct LastRun(Run);
        impl Drop for LastRun {
            fn drop(&mut self) {
                if let Some(route) = self.0.route {
                    route.ran(self.0.since.get().elapsed());
                }
            }
        }
        let run = LastRun(Run {
            route: self.routes.iter().copied().find(|r| r.route == route),
            since: Cell::new(Instant::now()),
        });
        handler(&run.0)
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
        #[allow(
            clippy::disallowed_methods,
            reason = "a thread of its own that looks once a second, in no request"
        )]
        std::thread::sleep(Duration::from_secs(1));
        let now = Instant::now();
        for (route, (last, at)) in pins.routes.iter().zip(reported.iter_mut()) {
            let counts = route.calls.counts();
            let quiet = at.is_none_or(|at| now - at >= WARN_EVERY);
            if counts != *last && quiet {
                let new = std::array::from_fn(|i| counts[i] - last[i]);
                server_metrics::blocking_calls::warn(Place::Carrier, route.route, new);
                *last = counts;
                *at = Some(now);
            }
        }
    }
}
