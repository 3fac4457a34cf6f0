//! `loadgen`: an HTTP/1.1 load generator that speaks the seeds' load models
//! (closed loop, burst, k6-style stages, open constant-arrival) and reports
//! what the seed tables report, without becoming the bottleneck itself.
//!
//! The pipeline, one module per step: options ([`cli`]) or
//! [`Plan::builder`] give a validated [`Plan`] (target, request, load model,
//! timeout); [`run`] / [`run_blocking`] start one worker loop per connection,
//! paced by the load model; each request yields a record carrying its
//! intended send time; records are folded into fixed-size state (HDR
//! histograms, error counts, a per-second timeline); the result is a
//! [`Report`], which [`render_text`] prints for people and `serde_json`
//! prints for programs. The library never prints. An [`Interrupt`] stops a
//! run early and still gives its report ([`run_blocking_interruptible`]);
//! [`main_with_args`] is the whole binary.
//! [`Report::no_success_cause`] says, in one line, why a run in which no
//! request succeeded failed (the CLI exits 3 with it), and
//! [`parse_duration`] is the duration syntax every tool of the workspace
//! accepts.
//!
//! ```no_run
//! use std::time::Duration;
//! use loadgen::{LoadModel, Plan, StopAt};
//!
//! let plan = Plan::builder("http://127.0.0.1:8080/health")
//!     .load(LoadModel::Closed { connections: 50, stop: StopAt::Duration(Duration::from_secs(30)) })
//!     .threshold("p99<50ms")
//!     .build()?;
//! let report = loadgen::run_blocking(&plan)?;
//! println!("{:.0} req/s, p99 {:.2} ms", report.throughput_rps, report.latency_ms.p99);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # JSON schema (`--json`, `schema_version` 2)
//!
//! `--json` prints [`Report`] exactly. Durations are milliseconds as
//! floats and their names end in `_ms`; rates end in `_rps`; fields that do
//! not apply to the load model are `null`. New fields may be added without
//! changing `schema_version`; renaming or removing one bumps it.
//!
//! ```text
//! schema_version           integer, 2 (1 had user_ms and system_ms as the split of the CPU time)
//! interrupted              bool, stopped early (an Interrupt: the CLI's Ctrl-C or SIGTERM)
//! target.url               string, as given (placeholders included)
//! target.method            string
//! target.keep_alive        bool
//! target.timeout_ms        float
//! load.model               "closed" | "burst" | "stages" | "open"
//! load.connections         integer (closed/burst: connections; stages: peak; open: initial pool)
//! load.duration_ms         float | null
//! load.requests            integer | null
//! load.rate_rps            float | null   (open)
//! load.max_connections     integer | null (open)
//! load.stages              [{duration_ms, target}] | null (stages)
//! load.burst_connect       "first" | "in_request" | null (burst: connections
//!                          opened first, or each request opens its own)
//! threads                  integer, client runtime threads
//! elapsed_ms               float, load phase wall time (burst: from the release
//!                          to the last answer)
//! requests.total|ok|errors integer (ok = response status < 400)
//! throughput_rps           float, requests.total / elapsed
//! successful_throughput_rps  float, requests.ok / elapsed (status < 400 only)
//! error_rate_percent       float, 0..100
//! transfer.{sent_bytes,received_bytes}  integer, bytes written and read
//! transfer.{sent_bytes_per_second,received_bytes_per_second}  float
//! errors.status            integer, responses with status >= 400
//! errors.by_status         {"503": n, ...}
//! errors.connect|timeout|other  integer
//! errors.unfinished        integer, in flight at the deadline of a plan with
//!                          `abandon_in_flight` (closed loop by duration): not
//!                          waited for, counted in requests.total and .errors
//! status_codes             {"200": n, ...} every response by status
//! latency_ms.{count,min,max,mean,stdev,p50,p90,p95,p99,p99_9}
//!                          float (count integer); from the intended send time
//! latency_uncorrected_ms   same shape | null; open mode: from the actual send
//! latency_lower_bound_ms   same shape | null; runs cut at their deadline: answered
//!                          requests, timed-out ones at the timeout and unfinished
//!                          ones at their age at the deadline (lower bounds)
//! open_loop                {rate_rps, scheduled, late_sends, late_threshold_ms,
//!                           pool_cap_hits, connections_used} | null
//! burst                    {connections, connect, connected_before_release,
//!                           connect_phase_ms, connect_ms} | null; connect_ms
//!                          is the latency shape, each connect's time (before
//!                          the release, or inside each request's latency)
//! timeline                 [{second, requests, errors, p50_ms, p99_ms}], one per second
//! client_cpu               {cpu_ms, cores_used}; cpu_ms = user + system
//! thresholds               [{expression, actual, passed}]
//! ```
//!
//! Latency counts only requests that received a complete response (errors
//! with a status included); connect failures, timeouts and other failures
//! are counted in `errors` but carry no latency. Percentiles are
//! nearest-rank over an HDR histogram of microseconds with three
//! significant digits (exact below 2.048 ms, within 0.1 % above).

mod aggregate;
mod burst_connect;
pub mod cli;
mod command;
mod drive;
mod duration_text;
mod fd_limit;
#[doc(hidden)]
pub mod fuzzing;
mod http1;
mod interrupt;
mod latency_stats;
mod no_success;
mod plan;
mod print_text;
mod record;
mod report;
mod report_assembly;
mod request_bytes;
mod runner;
mod stages;
mod target;
mod thresholds;
mod ticket_queue;
mod worker;

pub use aggregate::LATE_SEND_THRESHOLD;
pub use command::main_with_args;
pub use duration_text::parse_duration;
pub use fd_limit::{ensure_fd_capacity, FdLimitError, RESERVED_FDS};
pub use interrupt::{Interrupt, INTERRUPT_GRACE};
pub use latency_stats::{error_rate_percent, summarize, LatencySummary};
pub use plan::{default_threads, BurstConnect, LoadModel, Plan, PlanBuilder, PlanError, StopAt};
pub use print_text::render_text;
pub use report::{
    BurstInfo, ClientCpu, ErrorCounts, LoadInfo, ModelName, OpenLoopInfo, Report, RequestCounts,
    StageInfo, TargetInfo, ThresholdResult, TimelineRow, TransferInfo, SCHEMA_VERSION,
};
pub use request_bytes::RequestSpec;
pub use runner::{
    run, run_blocking, run_blocking_interruptible, run_blocking_with_progress, run_interruptible,
    run_with_progress, Progress, RunError,
};
pub use stages::{active_connections_at, parse_stages, peak_connections, total_duration, Stage};
pub use target::Target;
pub use thresholds::{Comparison, LatencyFigure, Metric, Threshold};
