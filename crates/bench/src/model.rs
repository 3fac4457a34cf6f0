//! The results of a bench run: what `results.json` holds, and what every
//! printer reads. Plain data, serialisable both ways, so a report can be
//! re-rendered from a saved run and the rendering tested from fixed inputs.
//!
//! A column is measured in several rounds (every column of a group once per
//! round, the order rotated between rounds), each on a freshly started server
//! process, so every figure of a round comes from that column alone. The
//! rounds are all kept; printers and findings summarise them with
//! [`crate::stats`].
//!
//! Times are milliseconds, memory bytes, CPU seconds; names carry their unit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// Version of this shape; bumped when a field changes meaning.
    pub schema_version: u32,
    pub started_at: String,
    pub wall_seconds: f64,
    pub machine: Machine,
    pub settings: RunSettings,
    pub groups: Vec<GroupResult>,
    /// Groups not run, and why (e.g. no Postgres could be found or started).
    pub skipped: Vec<SkippedGroup>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    pub cpu_model: String,
    pub memory_bytes: u64,
    pub os: String,
    /// The 1-minute load average when the run started. Kept for the record
    /// only: the blocking server's own 200 threads push it past 50 under load,
    /// so whether the machine was quiet is judged from CPU accounting
    /// ([`CpuUse::other_seconds`]) instead.
    pub load_average_at_start: f64,
}

/// Every setting that shapes the figures, so two reports can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub profile: String,
    /// `--cold`: no warm-up window, a fresh process per round (seed 000).
    pub cold_start: bool,
    /// Rounds per column.
    pub rounds: u32,
    pub blocking_handler_threads: u32,
    pub async_worker_threads: u32,
    pub async_blocking_threads: u32,
    pub async_rayon_threads: u32,
    pub db_pool_size: u32,
    pub redis_pool_size: u32,
    pub loadgen_threads: u32,
    pub cpu_n: u64,
    /// Where the servers ran: "started by bench" or the URLs given.
    pub targets: String,
    /// The tool that sent the load and measured it when not bench's own
    /// load generator (`bench import`), e.g. "locust 2.47.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_by: Option<String>,
    /// Where the server process rows come from when not /proc: "/metrics"
    /// for servers bench did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_figures_from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedGroup {
    pub group: String,
    pub reason: String,
}

/// One table of the report: a group of variants under the same load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Stable id ([`crate::plan::GroupId`]) used by `--groups` and by findings.
    pub id: String,
    pub title: String,
    /// The load, in words (e.g. "burst of 10000 requests at once").
    pub load: String,
    /// The warm-up before each measured window, in words, or "none (cold start)".
    pub warm_up: String,
    pub columns: Vec<ColumnResult>,
    /// The cold-start fairness probe, for a group that has one (the baseline's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_start: Option<ColdStartResult>,
    /// The idle-connection group's measurement ([`crate::plan::IdleLoad`]);
    /// that group has no load-generator columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleResult>,
    /// For a concurrency sweep: its steps and the blocking server's predicted
    /// cap. Each of its columns' rounds is then one step of one column round
    /// ([`RoundResult::step`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepInfo>,
}

/// The idle-connection group: per server, per round, the server with no
/// idle connection open and with each size open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleResult {
    /// The idle connection counts, ascending, opened in turn on one server per round.
    pub sizes: Vec<usize>,
    pub servers: Vec<IdleServer>,
}

/// One server (a column of the group) over its rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleServer {
    /// The column id, e.g. "blocking-idle-tiny-http".
    pub id: String,
    pub label: String,
    pub rounds: Vec<IdleRound>,
    /// Why it was not measured at all (e.g. a server bench did not start).
    pub failure: Option<String>,
}

impl IdleServer {
    /// Each round's step with `connections` open, where that size was measured.
    pub fn steps(&self, connections: usize) -> impl Iterator<Item = (&IdleRound, &IdleStep)> {
        self.rounds.iter().filter_map(move |r| {
            let step = r.steps.iter().find(|s| s.connections == connections)?;
            Some((r, step))
        })
    }
}

/// What became of one size on one server over its rounds.
#[derive(Debug, Clone, PartialEq)]
pub enum IdleCell<'a> {
    /// The rounds that opened all of it, each with its idle line.
    Measured(Vec<(&'a IdleRound, &'a IdleStep)>),
    /// No round opened all of it: the first failure, in one line.
    Failed(String),
    /// No round tried it: why (an open-file limit, a smaller size failed,
    /// the server failed).
    NotTried(String),
}

impl IdleServer {
    /// What became of `connections` on this server.
    pub fn cell(&self, connections: usize) -> IdleCell<'_> {
        let measured: Vec<_> = self
            .steps(connections)
            .filter(|(_, s)| s.failure.is_none())
            .collect();
        if !measured.is_empty() {
            return IdleCell::Measured(measured);
        }
        if let Some((_, s)) = self.steps(connections).next() {
            return IdleCell::Failed(s.failure.clone().unwrap_or_default());
        }
        let why = self
            .rounds
            .iter()
            .find_map(|r| r.stopped.clone())
            .or_else(|| self.failure.clone())
            .unwrap_or_else(|| "not measured".to_owned());
        IdleCell::NotTried(why)
    }

    /// The largest of `sizes` measured in at least one round.
    pub fn largest_measured(&self, sizes: &[usize]) -> Option<usize> {
        sizes
            .iter()
            .rev()
            .copied()
            .find(|&n| matches!(self.cell(n), IdleCell::Measured(_)))
    }
}

/// A server process's figures at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessFigures {
    pub threads: u64,
    pub rss_bytes: u64,
    /// Open files, its sockets included.
    pub open_fds: u64,
}

/// What a /health probe saw.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeStats {
    pub requests: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// One round of one server: a fresh process, its baseline, each size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleRound {
    /// 1-based round number.
    pub round: u32,
    /// 0-based position of the server in the round's order.
    pub position: u32,
    /// The server with no idle connection open, after the first probe had
    /// closed its connections: the line every "above idle" is taken from.
    pub idle: ProcessFigures,
    /// /health with no idle connection open.
    pub probe_none_open: ProbeStats,
    /// One per size tried, ascending; a size not tried is absent (see `stopped`).
    pub steps: Vec<IdleStep>,
    /// Why the larger sizes were not tried: one line (a size that does not
    /// fit under an open-file limit, or a smaller size that failed).
    pub stopped: Option<String>,
    /// The server once every connection was closed, when its open files came
    /// back to the idle count (plus the slack of [`IDLE_FDS_SLACK`]) in time.
    pub after_close: Option<ProcessFigures>,
    /// How long that took, in ms; `None`: not back within the bound.
    pub closed_within_ms: Option<f64>,
}

/// Open files a server may hold beyond its idle count and still count as
/// "back" once every idle connection is closed (a probe connection in
/// TIME_WAIT is not a file; a lazily opened log or pool connection is).
pub const IDLE_FDS_SLACK: u64 = 8;

/// One size on one server: the figures with `opened` idle connections open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleStep {
    /// The size asked for.
    pub connections: usize,
    /// Connections open that made their request and got its answer.
    pub opened: usize,
    /// Seconds the opening of this size's new connections took.
    pub open_seconds: f64,
    /// The server with them open (sampled after they settled).
    pub server: ProcessFigures,
    /// /health beside them; `None` when the probe could not run.
    pub probe: Option<ProbeStats>,
    /// Of `opened`, how many the client still saw open after the probe
    /// (the server had not closed them).
    pub still_open: usize,
    /// Why fewer than `connections` were opened, in one line.
    pub failure: Option<String>,
}

impl IdleStep {
    /// Threads above the idle line (negative when the server has fewer).
    pub fn threads_above(&self, idle: &ProcessFigures) -> i64 {
        self.server.threads as i64 - idle.threads as i64
    }

    /// Threads above idle per open connection; `None` with none open.
    pub fn threads_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        (self.opened > 0).then(|| self.threads_above(idle) as f64 / self.opened as f64)
    }

    /// Resident memory above idle per open connection, in KiB.
    pub fn kib_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        let above = self.server.rss_bytes as f64 - idle.rss_bytes as f64;
        (self.opened > 0).then(|| above / 1024.0 / self.opened as f64)
    }

    /// Open files above idle per open connection (1 when the server holds
    /// exactly one socket per connection).
    pub fn fds_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        let above = self.server.open_fds as f64 - idle.open_fds as f64;
        (self.opened > 0).then(|| above / self.opened as f64)
    }
}

/// A concurrency sweep group ([`crate::plan::Sweep`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepInfo {
    /// Connections per step, ascending.
    pub steps: Vec<usize>,
    /// Column rounds (each a fresh server taking every step).
    pub rounds: u32,
    pub window_seconds: f64,
    pub warm_up_seconds: f64,
    /// The blocking server's throughput cap by Little's law, where the
    /// route's time per request is fixed; `None` with the reason in
    /// `cap_note` otherwise.
    pub cap: Option<LittleCap>,
    /// How the cap was found, or why there is none.
    pub cap_note: String,
}

/// Little's law for the blocking server: at most `handler_threads` requests
/// are served at once, each for `latency_ms`, so at most
/// `handler_threads / latency` complete per second, whatever the load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LittleCap {
    pub handler_threads: u32,
    pub latency_ms: f64,
    pub rps: f64,
}

/// One step of a sweep, on one column round ([`RoundResult::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepStep {
    /// The step's connections.
    pub connections: usize,
    /// Whether the step ran on a fresh server process because the one before
    /// was not idle within the settle time ([`crate::plan::Sweep::settle`]).
    pub fresh_server: bool,
    /// Latency over every request of the window: answered ones, timed-out
    /// ones at the time they were given up and those still in flight at the
    /// window's end at their age then; lower bounds where any went unanswered.
    pub latency_lower_bound_ms: Latency,
    /// Requests still in flight at the window's end (also in `errors_by_kind` as "unfinished").
    pub unfinished: u64,
    /// Timed-out requests (also in `errors_by_kind` as "timeout").
    pub timeouts: u64,
}

/// The cold-start fairness probe of a group ([`crate::plan::ColdStartProbe`]):
/// on each fresh server, many connections at once, each one's first answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdStartResult {
    /// Connections opened at once on each cold start.
    pub connections: usize,
    /// How long each connection kept sending requests.
    pub run_for_ms: f64,
    /// One entry per probed column, in the group's probe order.
    pub servers: Vec<ColdStartServer>,
}

/// One probed column's server over its cold starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdStartServer {
    /// The column whose server (and server flags) was probed, e.g. "blocking-health-tiny-http".
    pub id: String,
    /// Its label, e.g. "blocking /health (tiny_http)".
    pub label: String,
    /// One entry per cold start: every connection's first answer, in ms
    /// after the start signal; `None`: no answer within the run.
    pub starts: Vec<Vec<Option<f64>>>,
    /// Why it could not be probed (e.g. a server bench did not start).
    pub failure: Option<String>,
}

impl ColdStartServer {
    /// Per cold start, how many connections had no answer within `within_ms`.
    pub fn late_per_start(&self, within_ms: f64) -> Vec<usize> {
        self.starts
            .iter()
            .map(|start| {
                start
                    .iter()
                    .filter(|first| first.is_none_or(|ms| ms > within_ms))
                    .count()
            })
            .collect()
    }
}

/// One variant: a server and a route under the group's load, in every round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnResult {
    /// Stable id ([`crate::plan::ColumnId`]) used by findings, e.g. "async-cpu-rayon".
    pub id: String,
    /// Header in the table, e.g. "async /cpu/rayon".
    pub label: String,
    /// "blocking" or "async".
    pub server: String,
    pub method: String,
    pub path: String,
    /// For the mixed group: the route loaded in the background while `path` is measured.
    pub background_path: Option<String>,
    /// One entry per round that measured something, in round order.
    pub rounds: Vec<RoundResult>,
    /// Why the column failed, when a round could not be measured (for
    /// example "no request succeeded: every connection was refused"). A
    /// failed column keeps the rounds measured before the failure.
    pub failure: Option<String>,
}

/// One measured window of one column, on a server process started for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundResult {
    /// 1-based round number.
    pub round: u32,
    /// 0-based position of this column in the round's order (the order rotates
    /// between rounds, so drift over a run hits every column alike).
    pub position: u32,
    pub load: LoadStats,
    /// For the mixed group: what the background load itself got.
    pub background_load: Option<LoadStats>,
    pub server_process: ServerStats,
    /// Where the machine's CPU went during the measured window.
    pub cpu: CpuUse,
    /// Requests the server counted on /metrics during the window (None when unreadable).
    pub server_counted_requests: Option<u64>,
    /// Whether [`RoundResult::cpu`] was measured: false for a server bench
    /// did not start and for an import, whose CPU split /proc cannot give;
    /// the report then says "not measured".
    #[serde(default = "measured")]
    pub machine_cpu_measured: bool,
    /// Table rows (by name, e.g. "Std. Dev. (ms)") whose figure the tool that
    /// measured this round does not give; the report prints "not measured".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<String>,
    /// What the server's own stall detector said about this window
    /// ([`crate::detector`]); `None` when its `/metrics` has no detector
    /// figures (detector off, another connector, an import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detector: Option<DetectorWindow>,
    /// In a sweep group: which step this round is; a sweep column has one
    /// entry per step per round, `round` being the column round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<SweepStep>,
}

/// The server's stall detector (issue 9) over one measured window, read from
/// its `/metrics` just before the window starts (for the mixed group: when
/// the /health probe starts, after the background's lead) and just after it
/// ends. Counters are deltas over the window; the quantiles are the
/// server's own summaries read at the window's end, which cover the last
/// minute before that reading: on a server started for this column round,
/// its warm-up and the window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DetectorWindow {
    /// Async server: `event_loop_lag_seconds{quantile="0.99"}` at the
    /// window's end, in ms (how late the 50-ms lag probe woke).
    pub event_loop_lag_p99_ms: Option<f64>,
    /// The column's route, then (mixed group) its background route.
    pub routes: Vec<RouteWindow>,
}

/// One route's figures of a [`DetectorWindow`]; `None` where the server
/// does not export the figure (the other server, or tiny_http's queue).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RouteWindow {
    /// The route pattern, as the `route` label of `/metrics` spells it,
    /// e.g. "/users/{id}/blocking".
    pub route: String,
    /// Async: polls of the route's handler futures in the window.
    pub polls: Option<u64>,
    /// Async: polls at or over `--slow-poll-ms` in the window.
    pub slow_polls: Option<u64>,
    /// Async: time spent in those slow polls, in seconds.
    pub slow_poll_seconds: Option<f64>,
    /// Async: blocking calls (sync Postgres query, sync Redis GET or SET,
    /// thread sleep) the route made on an event-loop worker in the window
    /// (`route_blocking_calls_total`); `None` from a server that does not
    /// export them (and in results.json written before they existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_calls: Option<u64>,
    /// Blocking: `handler_queue_wait_seconds{quantile="0.99"}` of the route
    /// at the window's end, in ms (the wait for a free handler thread).
    pub queue_wait_p99_ms: Option<f64>,
}

impl RouteWindow {
    /// Slow polls as a share of polls (0..1); `None` without polls.
    pub fn slow_poll_share(&self) -> Option<f64> {
        match (self.slow_polls, self.polls) {
            (Some(slow), Some(polls)) if polls > 0 => Some(slow as f64 / polls as f64),
            _ => None,
        }
    }

    /// Blocking calls on a worker per poll (0 or more; a request whose one
    /// poll makes two sync Redis GETs gives 2); `None` without polls or
    /// without the figure.
    pub fn blocking_calls_per_poll(&self) -> Option<f64> {
        match (self.blocking_calls, self.polls) {
            (Some(calls), Some(polls)) if polls > 0 => Some(calls as f64 / polls as f64),
            _ => None,
        }
    }
}

impl DetectorWindow {
    /// The figures of `route`, if they were recorded.
    pub fn route(&self, route: &str) -> Option<&RouteWindow> {
        self.routes.iter().find(|r| r.route == route)
    }
}

fn measured() -> bool {
    true
}

impl RoundResult {
    /// Requests the server answered in the window: the measured load plus the
    /// mixed group's background load.
    pub fn requests_served(&self) -> u64 {
        self.load.total_requests
            + self
                .background_load
                .as_ref()
                .map_or(0, |b| b.total_requests)
    }

    /// Server CPU per request in microseconds (the figure shared cores
    /// disturb least), `None` when the server was not sampled or nothing was served.
    pub fn server_cpu_us_per_request(&self) -> Option<f64> {
        let n = self.requests_served();
        (self.server_process.samples > 0 && n > 0)
            .then(|| self.server_process.cpu_seconds * 1e6 / n as f64)
    }
}

/// What the load generator saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadStats {
    pub total_requests: u64,
    /// Responses with a status below 400.
    pub ok_requests: u64,
    pub errors: u64,
    /// Errors by kind: "status_500", "connect", "timeout", "other", ...
    pub errors_by_kind: BTreeMap<String, u64>,
    pub duration_seconds: f64,
    /// Every request that ended, per second (seed 000's "Throughput").
    pub throughput_rps: f64,
    /// Requests answered with a status below 400, per second.
    pub successful_throughput_rps: f64,
    pub latency_ms: Latency,
    /// One entry per second of the run.
    pub timeline: Vec<Second>,
    /// CPU seconds the load generator itself used.
    pub client_cpu_seconds: f64,
}

impl LoadStats {
    /// Errors / total requests, 0 when nothing was sent.
    pub fn error_rate(&self) -> f64 {
        if self.total_requests == 0 {
            0.0
        } else {
            self.errors as f64 / self.total_requests as f64
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    pub stdev: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Second {
    pub second: u64,
    pub requests: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// The server process in one round, sampled from /proc: idle just after it
/// started (before any warm-up), peak within the measured window. The
/// default, all zero with `samples: 0`, is a server nobody sampled: the
/// report prints "not measured" for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    pub idle_threads: u64,
    /// Seed 000's "Peak Thread Count", within the measured window.
    pub peak_threads: u64,
    pub idle_rss_bytes: u64,
    pub peak_rss_bytes: u64,
    /// CPU seconds the server used in the measured window.
    pub cpu_seconds: f64,
    /// How many /proc samples the peaks come from (0 when the server was not ours to sample).
    pub samples: u64,
}

/// Where the machine's CPU time went during one measured window, in CPU
/// seconds, from /proc/stat and each process's /proc/<pid>/stat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuUse {
    /// Wall seconds of the window.
    pub window_seconds: f64,
    /// The server process measured.
    pub server_seconds: f64,
    /// bench itself, which runs the load generator.
    pub load_generator_seconds: f64,
    /// Every process named postgres.
    pub postgres_seconds: f64,
    /// Every process named redis-server.
    pub redis_seconds: f64,
    /// The machine's busy time (/proc/stat: all but idle and iowait) minus the
    /// four above: other programs, the kernel's own threads, other servers.
    pub other_seconds: f64,
}

impl CpuUse {
    /// "Everything else" as a fraction of one core over the window.
    pub fn other_cores(&self) -> f64 {
        if self.window_seconds > 0.0 {
            self.other_seconds / self.window_seconds
        } else {
            0.0
        }
    }
}

pub const SCHEMA_VERSION: u32 = 2;

/// Whether an error kind on `path` is the seed's deliberate failure:
/// a 500 from `/posts/{id}` with id >= 10 (seed 001's error path).
pub fn is_deliberate(path: &str, kind: &str) -> bool {
    let id = path
        .strip_prefix("/posts/")
        .and_then(|rest| rest.split(['/', '?']).next())
        .and_then(|id| id.parse::<i64>().ok());
    kind == "status_500" && id.is_some_and(|id| id >= contract::posts::FIRST_FAILING_POST_ID)
}

/// Columns with errors other than deliberate ones, or that failed, as
/// (column id, "kind=count, ..." or the failure's cause), summed over rounds.
/// A sweep step's requests unfinished at its window's end are by design (a
/// closed loop always has some in flight when it is cut), not unexpected.
pub fn unexpected_errors(results: &RunResults) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for g in &results.groups {
        for c in &g.columns {
            let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
            for r in &c.rounds {
                let loads = std::iter::once((&c.path, &r.load))
                    .chain(c.background_path.as_ref().zip(r.background_load.as_ref()));
                for (path, load) in loads {
                    for (kind, n) in &load.errors_by_kind {
                        let by_design = r.step.is_some() && kind == "unfinished";
                        if !is_deliberate(path, kind) && !by_design {
                            *kinds.entry(kind.clone()).or_default() += n;
                        }
                    }
                }
            }
            let mut parts: Vec<String> = kinds.iter().map(|(k, n)| format!("{k}={n}")).collect();
            if let Some(f) = &c.failure {
                parts.push(format!("failed: {f}"));
            }
            if !parts.is_empty() {
                out.push((c.id.clone(), parts.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_costs_are_per_connection_above_the_idle_line() {
        let idle = ProcessFigures {
            threads: 206,
            rss_bytes: 10 * 1024 * 1024,
            open_fds: 12,
        };
        let step = IdleStep {
            connections: 1000,
            opened: 1000,
            open_seconds: 0.2,
            server: ProcessFigures {
                threads: 1206,
                rss_bytes: 10 * 1024 * 1024 + 1000 * 20 * 1024,
                open_fds: 1012,
            },
            probe: None,
            still_open: 1000,
            failure: None,
        };
        assert_eq!(step.threads_above(&idle), 1000);
        assert_eq!(step.threads_per_connection(&idle), Some(1.0));
        assert_eq!(step.kib_per_connection(&idle), Some(20.0));
        assert_eq!(step.fds_per_connection(&idle), Some(1.0));
        // Fewer threads than idle (a pool thread retired): negative, not wrapped.
        let fewer = IdleStep {
            opened: 500,
            server: ProcessFigures {
                threads: 205,
                rss_bytes: 10 * 1024 * 1024 - 512 * 500,
                open_fds: 512,
            },
            ..step.clone()
        };
        assert_eq!(fewer.threads_above(&idle), -1);
        assert_eq!(fewer.threads_per_connection(&idle), Some(-0.002));
        assert_eq!(fewer.kib_per_connection(&idle), Some(-0.5));
        // Nothing open: no per-connection figure.
        let none = IdleStep { opened: 0, ..step };
        assert_eq!(none.threads_per_connection(&idle), None);
        assert_eq!(none.kib_per_connection(&idle), None);
    }

    #[test]
    fn only_posts_from_ten_fail_on_purpose() {
        assert!(is_deliberate("/posts/10", "status_500"));
        assert!(is_deliberate("/posts/12/blocking", "status_500"));
        assert!(!is_deliberate("/posts/9", "status_500"));
        assert!(!is_deliberate("/posts/10", "timeout"));
        assert!(!is_deliberate("/users/10", "status_500"));
    }
}
