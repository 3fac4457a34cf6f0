//! The report of one run: the struct the library returns and exactly what
//! `--json` prints. Field names are part of the crate's stable interface
//! (see the schema in the crate docs); durations are milliseconds as floats
//! and say so in their names.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize, Serializer};

use crate::burst_connect::BurstConnect;
use crate::latency_stats::LatencySummary;

/// Version of the JSON shape; bumped only when a field changes meaning or
/// disappears (adding fields does not bump it).
pub const SCHEMA_VERSION: u32 = 2;

/// Everything measured in one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    /// True when the run was stopped early (the CLI: Ctrl-C or SIGTERM):
    /// every figure is of the requests that ended before the stop.
    #[serde(default)]
    pub interrupted: bool,
    pub target: TargetInfo,
    pub load: LoadInfo,
    /// Client runtime worker threads.
    pub threads: usize,
    /// Wall time of the load phase, which throughput divides by (for a burst:
    /// from the release instant to the last answer; with connections opened
    /// first, the connects are before it).
    pub elapsed_ms: f64,
    pub requests: RequestCounts,
    /// Requests that ended, successfully or not, per second of `elapsed_ms`.
    pub throughput_rps: f64,
    /// Responses with a status below 400 (`requests.ok`) per second of
    /// `elapsed_ms`: the throughput a dead port or a failing server cannot fake.
    #[serde(default)]
    pub successful_throughput_rps: f64,
    pub error_rate_percent: f64,
    /// Bytes written and read, in all and per second of `elapsed_ms`.
    #[serde(default)]
    pub transfer: TransferInfo,
    pub errors: ErrorCounts,
    /// Responses by status code, as strings (`"200"`), errors included.
    pub status_codes: BTreeMap<String, u64>,
    /// Latency of responses that arrived, from the intended send time.
    pub latency_ms: LatencySummary,
    /// Open mode only: latency from the actual send time, as a tool without
    /// coordinated-omission correction would report it. `null` otherwise.
    pub latency_uncorrected_ms: Option<LatencySummary>,
    /// Runs cut at their deadline (`abandon_in_flight`) only, `null`
    /// otherwise: every request of the measured window, the answered ones at
    /// their latency, timed-out ones at the time they were given up, and
    /// those still in flight at the deadline at their age then. Nothing
    /// unanswered drops out, so where any was, these percentiles are lower
    /// bounds, never flattered by survivors.
    #[serde(default)]
    pub latency_lower_bound_ms: Option<LatencySummary>,
    /// Open mode only, `null` otherwise.
    pub open_loop: Option<OpenLoopInfo>,
    /// Burst mode only, `null` otherwise.
    pub burst: Option<BurstInfo>,
    /// One row per second since the start of the run.
    pub timeline: Vec<TimelineRow>,
    pub client_cpu: ClientCpu,
    /// Thresholds given with the plan, each with its outcome.
    pub thresholds: Vec<ThresholdResult>,
}

impl Report {
    /// Whether every threshold passed (true when there were none).
    pub fn thresholds_passed(&self) -> bool {
        self.thresholds.iter().all(|t| t.passed)
    }
}

/// What was loaded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetInfo {
    pub url: String,
    pub method: String,
    pub keep_alive: bool,
    pub timeout_ms: f64,
}

/// The load model a report was made under, spelled in the JSON as
/// `closed`, `burst`, `stages` or `open`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelName {
    /// A fixed number of connections, each sending its next request when
    /// its answer arrives.
    Closed,
    /// One request on each of N connections at once; `load.burst_connect`
    /// says whether the connections were opened first or by each request.
    Burst,
    /// A closed loop whose connections follow k6-style stages.
    Stages,
    /// Requests sent at a fixed rate whatever the answers do.
    Open,
}

/// How it was loaded; fields that do not apply to the model are `null`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadInfo {
    pub model: ModelName,
    /// Closed and burst: connections; stages: the peak; open: the initial pool.
    pub connections: usize,
    pub duration_ms: Option<f64>,
    pub requests: Option<u64>,
    pub rate_rps: Option<f64>,
    pub max_connections: Option<usize>,
    pub stages: Option<Vec<StageInfo>>,
    /// Burst only, `null` otherwise: `"first"` (connections opened first)
    /// or `"in_request"` (each request opens its connection, as JMeter).
    #[serde(default)]
    pub burst_connect: Option<BurstConnect>,
}

/// One stage of a ramp.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StageInfo {
    pub duration_ms: f64,
    pub target: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct RequestCounts {
    /// Requests that ended, successfully or not.
    pub total: u64,
    /// Responses with a status below 400.
    pub ok: u64,
    pub errors: u64,
}

/// Bytes on the wire, as wrk's `Transfer/sec` counts them: every byte
/// written (requests, retries included) and read (heads and bodies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TransferInfo {
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub sent_bytes_per_second: f64,
    pub received_bytes_per_second: f64,
}

/// Errors split by kind; `status` is the sum of `by_status`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorCounts {
    /// Responses with status >= 400.
    pub status: u64,
    pub by_status: BTreeMap<String, u64>,
    pub connect: u64,
    pub timeout: u64,
    pub other: u64,
    /// Requests still in flight when a run with `abandon_in_flight` reached
    /// its deadline: not waited for, no latency, counted in `requests.total`
    /// and `requests.errors`.
    #[serde(default)]
    pub unfinished: u64,
}

/// Open (constant arrival rate) details.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct OpenLoopInfo {
    pub rate_rps: f64,
    /// Requests scheduled by the arrival clock.
    pub scheduled: u64,
    /// Sends that started more than `late_threshold_ms` after their intended time.
    pub late_sends: u64,
    pub late_threshold_ms: f64,
    /// Times a send found every connection busy and the pool at its cap.
    pub pool_cap_hits: u64,
    /// Connections the pool grew to.
    pub connections_used: usize,
}

/// Burst details.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct BurstInfo {
    pub connections: usize,
    /// When the connections were opened (reports saved before it existed
    /// read as `"first"`, the only burst there was).
    #[serde(default)]
    pub connect: BurstConnect,
    /// Connections open when the requests were released (0 with the
    /// connect in the request).
    pub connected_before_release: usize,
    /// Time before the release: opening every connection, or with the
    /// connect in the request starting the workers.
    pub connect_phase_ms: f64,
    /// How long each connect took, from `connect()` to connected: before
    /// the release with connections opened first (outside any latency),
    /// inside each request's latency with the connect in the request.
    /// Failed connects are not in it. `null` in reports saved before.
    #[serde(default)]
    pub connect_ms: Option<LatencySummary>,
}

/// One second of the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimelineRow {
    /// Seconds since the start of the run (row 0 covers [0 s, 1 s)).
    pub second: u64,
    /// Requests that ended in this second.
    pub requests: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// CPU time the load generator itself used (user + system, all threads).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct ClientCpu {
    /// User plus system CPU time during the run (schema 1 had them apart as
    /// `user_ms` and `system_ms`; `process-stats`, the workspace's one /proc
    /// reader, gives their sum).
    pub cpu_ms: f64,
    /// CPU time divided by elapsed time: 1.0 means one core fully busy.
    pub cores_used: f64,
}

/// One threshold and whether the run met it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThresholdResult {
    /// As written, e.g. `p95<200ms`.
    pub expression: String,
    /// The measured value in the threshold's unit (ms, percent or req/s).
    pub actual: f64,
    pub passed: bool,
}

/// Serialises a duration as milliseconds (float).
pub(crate) fn serialize_duration_ms<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(ms(*d))
}

/// Milliseconds as a float.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
