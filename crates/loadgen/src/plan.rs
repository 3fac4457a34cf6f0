//! A load plan: what to request (target and request), how to load it (the
//! load model), and the limits (timeout, threads, thresholds). Built by the
//! CLI or by library users through [`PlanBuilder`]; validated before any
//! connection is opened.

use std::time::Duration;

use bytes::Bytes;

use crate::request_bytes::{parse_header, validate_method, RequestSpec};
use crate::stages::Stage;
use crate::target::Target;
use crate::thresholds::Threshold;

/// When a closed or open run stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopAt {
    /// After this much time (requests in flight then may still finish).
    Duration(Duration),
    /// After exactly this many requests.
    Requests(u64),
}

pub use crate::burst_connect::BurstConnect;

/// The load models of the seeds.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadModel {
    /// `connections` connections, each sending its next request when the
    /// previous one answered (JMeter threads, k6 VUs, wrk).
    Closed { connections: usize, stop: StopAt },
    /// One request on each of `connections` connections, all released at
    /// the same instant (seed 000), the connections opened before the
    /// release or by each request ([`BurstConnect`]). Latency and the timed
    /// window count from the release either way.
    Burst {
        connections: usize,
        connect: BurstConnect,
    },
    /// Active connections ramp linearly to each stage's target (k6 ramping VUs).
    Stages { stages: Vec<Stage> },
    /// Requests arrive at `rate_rps` whatever the responses do (wrk2, vegeta).
    /// The pool starts with `initial_connections` and grows when every
    /// connection is busy, up to `max_connections`.
    Open {
        rate_rps: f64,
        stop: StopAt,
        initial_connections: usize,
        max_connections: usize,
    },
}

impl LoadModel {
    /// The most connections the model may hold open at once.
    pub fn peak_connections(&self) -> usize {
        match self {
            LoadModel::Closed { connections, .. } | LoadModel::Burst { connections, .. } => {
                *connections
            }
            LoadModel::Stages { stages } => crate::stages::peak_connections(stages),
            LoadModel::Open {
                max_connections, ..
            } => *max_connections,
        }
    }
}

/// A validated plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: Target,
    pub request: RequestSpec,
    pub load: LoadModel,
    /// A request without a complete response after this long is a timeout error.
    pub timeout: Duration,
    /// Worker threads of the runtime `run_blocking` builds.
    pub threads: usize,
    pub thresholds: Vec<Threshold>,
    /// Closed loop stopped by duration only: at the deadline, requests still
    /// in flight are abandoned (their connections closed) instead of waited
    /// for, and counted as `errors.unfinished`. The run then lasts exactly its
    /// duration, whatever the server does; a concurrency sweep needs that.
    pub abandon_in_flight: bool,
    /// With `abandon_in_flight`: the loop runs this long before its
    /// duration starts, and requests that end within it are not recorded. The
    /// same connections warm the server up and stay open into the measured
    /// window, which is the duration; throughput divides by the window only.
    pub unrecorded_lead: Duration,
}

/// Why a plan could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub String);

/// The builder's plain setters: `field(value)` sets `field` to `value`
/// (the doc comments given with each are its own).
macro_rules! setters {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        $(
            $(#[$doc])*
            pub fn $field(mut self, $field: $ty) -> Self {
                self.$field = $field;
                self
            }
        )*
    };
}

/// Builds a [`Plan`] step by step; `build` validates it.
#[derive(Debug, Clone)]
pub struct PlanBuilder {
    url: String,
    method: String,
    headers: Vec<String>,
    body: Bytes,
    keep_alive: bool,
    load: LoadModel,
    timeout: Duration,
    threads: usize,
    thresholds: Vec<String>,
    abandon_in_flight: bool,
    unrecorded_lead: Duration,
}

/// Default number of runtime threads: one per core, like wrk's advice.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Plan {
    /// Starts a plan for `url`: by default 10 s closed loop on 50 connections,
    /// `GET`, keep-alive, 10 s timeout.
    pub fn builder(url: impl Into<String>) -> PlanBuilder {
        PlanBuilder {
            url: url.into(),
            method: "GET".to_string(),
            headers: Vec::new(),
            body: Bytes::new(),
            keep_alive: true,
            load: LoadModel::Closed {
                connections: 50,
                stop: StopAt::Duration(Duration::from_secs(10)),
            },
            timeout: Duration::from_secs(10),
            threads: default_threads(),
            thresholds: Vec::new(),
            abandon_in_flight: false,
            unrecorded_lead: Duration::ZERO,
        }
    }
}

impl PlanBuilder {
    pub fn method(mut self, method: impl Into<String>) -> Self {
        self.method = method.into();
        self
    }
    /// Adds a header written as `Name: value`.
    pub fn header(mut self, header: impl Into<String>) -> Self {
        self.headers.push(header.into());
        self
    }
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = body.into();
        self
    }
    setters! {
        keep_alive: bool,
        load: LoadModel,
        timeout: Duration,
        threads: usize,
        /// See [`Plan::abandon_in_flight`]; only for a closed loop stopped by duration.
        abandon_in_flight: bool,
        /// See [`Plan::unrecorded_lead`]; needs `abandon_in_flight`.
        unrecorded_lead: Duration,
    }
    /// Adds a threshold written like `p95<200ms`.
    pub fn threshold(mut self, threshold: impl Into<String>) -> Self {
        self.thresholds.push(threshold.into());
        self
    }

    /// Validates everything and resolves the target's address.
    pub fn build(self) -> Result<Plan, PlanError> {
        let target = Target::parse(&self.url).map_err(PlanError)?;
        let method = validate_method(&self.method).map_err(PlanError)?;
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(PlanError)?;
        let thresholds = self
            .thresholds
            .iter()
            .map(|t| Threshold::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(PlanError)?;
        validate_load(&self.load)?;
        if self.abandon_in_flight
            && !matches!(
                self.load,
                LoadModel::Closed {
                    stop: StopAt::Duration(_),
                    ..
                }
            )
        {
            return Err(PlanError(
                "abandoning requests in flight needs a closed loop stopped by duration".into(),
            ));
        }
        if !self.unrecorded_lead.is_zero() && !self.abandon_in_flight {
            return Err(PlanError(
                "an unrecorded lead needs abandon_in_flight".into(),
            ));
        }
        if self.timeout.is_zero() {
            return Err(PlanError("timeout must be longer than zero".into()));
        }
        if self.threads == 0 {
            return Err(PlanError("threads must be at least 1".into()));
        }
        Ok(Plan {
            target,
            request: RequestSpec {
                method,
                headers,
                body: self.body,
                keep_alive: self.keep_alive,
            },
            load: self.load,
            timeout: self.timeout,
            threads: self.threads,
            thresholds,
            abandon_in_flight: self.abandon_in_flight,
            unrecorded_lead: self.unrecorded_lead,
        })
    }
}

fn validate_load(load: &LoadModel) -> Result<(), PlanError> {
    let fail = |m: &str| Err(PlanError(m.to_string()));
    let check_stop = |stop: &StopAt| match stop {
        StopAt::Duration(d) if d.is_zero() => fail("duration must be longer than zero"),
        StopAt::Requests(0) => fail("request count must be at least 1"),
        _ => Ok(()),
    };
    match load {
        LoadModel::Closed { connections, stop } => {
            if *connections == 0 {
                return fail("connections must be at least 1");
            }
            check_stop(stop)
        }
        LoadModel::Burst { connections, .. } => {
            if *connections == 0 {
                return fail("burst size must be at least 1");
            }
            Ok(())
        }
        LoadModel::Stages { stages } => {
            if crate::stages::total_duration(stages).is_zero() {
                return fail("stages last no time at all");
            }
            if crate::stages::peak_connections(stages) == 0 {
                return fail("stages never ask for a connection");
            }
            Ok(())
        }
        LoadModel::Open {
            rate_rps,
            stop,
            max_connections,
            ..
        } => {
            if !(rate_rps.is_finite() && *rate_rps > 0.0) {
                return fail("rate must be a positive number of requests per second");
            }
            if *max_connections == 0 {
                return fail("max connections must be at least 1");
            }
            check_stop(stop)
        }
    }
}
