//! How a group is loaded: the load shapes (bursts, closed loops, stages,
//! the mixed group's paced probe, the idle group, concurrency sweeps), how
//! each is described in a report, and the warm-up each gets.

use std::time::Duration;

use loadgen::BurstConnect;

/// How a group is loaded.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// Seed 000: `requests` connections, one request each, all at once; the
    /// connections opened first, or each by its request as JMeter's threads
    /// open theirs ([`BurstConnect`]).
    Burst {
        requests: usize,
        connect: BurstConnect,
    },
    /// JMeter threads / k6 VUs for a fixed time.
    Closed {
        connections: usize,
        duration: Duration,
    },
    /// Closed loop for a fixed number of requests.
    ClosedCount { connections: usize, requests: u64 },
    /// k6 stages: (duration, target connections).
    Stages(Vec<(Duration, usize)>),
    /// Mixed group: `background` connections loop on the background route while
    /// /health is sent at `probe_rps` (open model, so a stall cannot hide).
    Mixed {
        background: usize,
        probe_rps: f64,
        duration: Duration,
    },
    /// Idle-connection group: idle keep-alive connections held open while
    /// /health is probed ([`IdleLoad`]); not a load tool's shape.
    Idle(IdleLoad),
    /// A concurrency sweep ([`Sweep`]): a closed loop at each of `steps`
    /// connections in turn.
    Sweep(Sweep),
}

/// The idle-connection group's measurement, on each column's fresh server:
/// /health probed with none open; then for each size in turn, connections
/// opened (each makes one `GET /health`, reads the answer and stays open,
/// idle) until that many are open, the server's threads, RSS and open files
/// sampled and /health probed again beside them; then every connection
/// closed and the server checked to have closed its side.
#[derive(Debug, Clone, PartialEq)]
pub struct IdleLoad {
    /// Idle connection counts, ascending. Opened cumulatively: the next size
    /// adds connections to those already open.
    pub sizes: Vec<usize>,
    /// The /health probe: a closed loop of this many connections ...
    pub probe_connections: usize,
    /// ... for this long.
    pub probe_for: Duration,
    /// The longest opening one size's connections may take.
    pub open_within: Duration,
}

impl IdleLoad {
    pub fn describe(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|n| n.to_string()).collect();
        format!(
            "on each fresh server, /health probed by {} connections in a closed loop for {} s with no idle connection open, then with {} idle keep-alive connections open in turn (each made one GET /health and read the answer); then all closed",
            self.probe_connections,
            self.probe_for.as_secs_f64(),
            sizes.join(", then ")
        )
    }
}

/// A concurrency sweep: per column round, one server process (started fresh
/// for the round, as every column round) takes the steps in ascending order.
/// Each step is one closed loop at the step's connections: `warm_up`
/// unrecorded, then `window` measured on the same connections; at the
/// window's end the requests still in flight are abandoned and counted as
/// unfinished errors (`loadgen`'s `abandon_in_flight`), so a step lasts
/// exactly `warm_up + window` whatever the server does, and a request that
/// never came back is an error, not a hole in the percentiles.
///
/// An abandoned request is still in the server: a blocking handler thread
/// will sleep through it. Before the next step bench waits up to `settle`
/// for the server to be idle (its `/metrics` answers with nothing else in
/// flight); a server that is not, such as the async server whose two
/// workers sleep through hundreds of queued `/posts/1/blocking` calls, is
/// replaced by a fresh process for the next step (the step records it), so
/// no step inherits the last one's backlog.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// Connections per step, ascending.
    pub steps: Vec<usize>,
    /// The measured window of each step. On `/posts/1` it is a whole number
    /// of the route's 300 ms: a closed loop on a fixed-time route finishes
    /// its requests in bursts, one per period (200 at once on the blocking
    /// server), and a window of whole periods counts each burst once
    /// whatever its phase, where 0.7 s would count two or three bursts of
    /// 200 (up to 28% off the rate; seen in a first run).
    pub window: Duration,
    /// The unrecorded lead of each step, on the same connections (0 with `--cold`).
    pub warm_up: Duration,
    /// How long to wait for the server to be idle between steps before
    /// starting a fresh one instead.
    pub settle: Duration,
    /// Column rounds, when not the profile's (quick: 1, to fit its budget;
    /// `--rounds` overrides both).
    pub rounds: Option<u32>,
}

impl Sweep {
    /// Wall time of the steps of one column round, without settling and server starts.
    pub fn steps_time(&self) -> Duration {
        (self.warm_up + self.window) * self.steps.len() as u32
    }
}

impl Load {
    /// About how long one column round of this load lasts, warm-up
    /// (`warm_up`) included, start and stop of its server not: what bench's
    /// estimate of the time left is made of. A burst or a counted load
    /// lasts as long as the server takes: a second is the guess, twice
    /// with the whole load once as its warm-up (none for a burst with the
    /// connect in the request).
    pub fn planned_round(&self, warm_up: Duration) -> Duration {
        let second = Duration::from_secs(1);
        match self {
            Load::Burst {
                connect: BurstConnect::InRequest,
                ..
            } => second,
            Load::Burst { .. } | Load::ClosedCount { .. } => second * 2,
            Load::Closed { duration, .. } => warm_up + *duration,
            Load::Stages(stages) => warm_up + stages.iter().map(|s| s.0).sum::<Duration>(),
            Load::Mixed { duration, .. } => warm_up + *duration + warm_up.min(second / 4),
            Load::Idle(idle) => idle.probe_for * (idle.sizes.len() as u32 + 1) + second,
            Load::Sweep(sweep) => sweep.steps_time() + sweep.settle,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Load::Burst { requests, connect: BurstConnect::First } => format!("burst of {requests} requests at once, one per connection, every connection opened first"),
            Load::Burst { requests, connect: BurstConnect::InRequest } => format!("burst of {requests} requests at once, each opening its own connection (as JMeter's threads do: the connect inside its latency)"),
            Load::Closed { connections, duration } => format!("{connections} connections, closed loop, {} s", duration.as_secs_f64()),
            Load::ClosedCount { connections, requests } => format!("{connections} connections, closed loop, {requests} requests"),
            Load::Stages(st) => format!(
                "stages {}",
                st.iter().map(|(d, n)| format!("{}s:{n}", d.as_secs_f64())).collect::<Vec<_>>().join(",")
            ),
            Load::Mixed { background, probe_rps, duration } => format!(
                "{background} connections loop on the background route; /health sent at {probe_rps} req/s (open model, latency from intended send time) for {} s",
                duration.as_secs_f64()
            ),
            Load::Idle(idle) => idle.describe(),
            Load::Sweep(sw) => format!(
                "closed loop at {} connections in turn (ascending, one server process per column round); per step {} s measured, requests still in flight at its end counted as unfinished",
                sw.steps.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
                sw.window.as_secs_f64()
            ),
        }
    }

    /// The unrecorded window before each measured one: the same load, with
    /// timed loads cut to `length` (a ramp warms up at its peak). A burst
    /// with the connect in the request has none: it is seed 000's burst as
    /// JMeter sent it, on a cold server, and a second burst of CPU-bound
    /// requests would double its group's time. The mixed
    /// group has no separate one: its background runs alone for `length`
    /// before the probe starts ([`super::LoadOptions::mixed_lead`]),
    /// which warms the server at the same load without a second window. A
    /// closed warm-up abandons what is still in flight at its end
    /// ([`crate::measure::load::run_warm_up`]).
    pub fn warm_up(&self, length: Duration) -> Option<Load> {
        match self {
            Load::Burst {
                connect: BurstConnect::InRequest,
                ..
            } => None,
            Load::Burst { .. } | Load::ClosedCount { .. } => Some(self.clone()),
            Load::Closed { connections, .. } => Some(Load::Closed {
                connections: *connections,
                duration: length,
            }),
            Load::Stages(stages) => Some(Load::Closed {
                connections: stages.iter().map(|s| s.1).max().unwrap_or(1).max(1),
                duration: length,
            }),
            Load::Mixed { .. } | Load::Idle(_) | Load::Sweep(_) => None,
        }
    }

    /// How results.json and the report name the warm-up before each window.
    pub fn describe_warm_up(&self, warm_up: Option<&Load>, mixed_lead: Duration) -> String {
        match (self, warm_up) {
            (_, Some(w @ Load::Closed { .. })) => format!(
                "{}; requests still in flight at its end are abandoned, not waited for",
                w.describe()
            ),
            (_, Some(w)) => w.describe(),
            (Load::Sweep(sw), None) if !sw.warm_up.is_zero() => format!(
                "none of its own: each step's first {} s on the same connections are not recorded",
                sw.warm_up.as_secs_f64()
            ),
            (Load::Mixed { .. }, None) => format!(
                "none of its own: the background load runs alone for {} s before the probe starts",
                mixed_lead.as_secs_f64()
            ),
            (Load::Idle(_), None) => {
                "none of its own: the /health probe with no idle connection open runs first".into()
            }
            (
                Load::Burst {
                    connect: BurstConnect::InRequest,
                    ..
                },
                None,
            ) => "none (cold start, as seed 000 measured with JMeter)".into(),
            (_, None) => "none (cold start)".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn warm_up_is_the_same_load_cut_short() {
        let d = Duration::from_millis(250);
        let closed = Load::Closed {
            connections: 7,
            duration: secs(9),
        };
        assert_eq!(
            closed.warm_up(d),
            Some(Load::Closed {
                connections: 7,
                duration: d
            })
        );
        let ramp = Load::Stages(vec![(secs(1), 5), (secs(1), 40), (secs(1), 0)]);
        assert_eq!(
            ramp.warm_up(d),
            Some(Load::Closed {
                connections: 40,
                duration: d
            })
        );
        let burst = Load::Burst {
            requests: 10,
            connect: BurstConnect::First,
        };
        assert_eq!(burst.warm_up(d), Some(burst.clone()));
        // Seed 000's burst as JMeter sent it, on a cold server.
        let jmeter = Load::Burst {
            requests: 10,
            connect: BurstConnect::InRequest,
        };
        assert_eq!(jmeter.warm_up(d), None);
        assert_eq!(
            jmeter.describe_warm_up(None, d),
            "none (cold start, as seed 000 measured with JMeter)"
        );
        // The mixed group's warm-up is its background's lead, not a window.
        let mixed = Load::Mixed {
            background: 16,
            probe_rps: 100.0,
            duration: secs(1),
        };
        assert_eq!(mixed.warm_up(d), None);
        assert_eq!(
            mixed.describe_warm_up(None, d),
            "none of its own: the background load runs alone for 0.25 s before the probe starts"
        );
        assert_eq!(burst.describe_warm_up(None, d), "none (cold start)");
    }
}
