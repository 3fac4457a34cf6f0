//! Reads k6's end-of-test summary as JSON: the `handleSummary` data the
//! exported scripts write (`metrics.<name>.values.{count, rate, avg, ...}`,
//! `state.testRunDurationMs`) or `k6 run --summary-export` (the same figures
//! directly under `metrics.<name>`). The column is the one whose scenario
//! sub-metric (`http_reqs{scenario:<column-id>}`) the export's thresholds put
//! in the summary; its figures are that scenario's, so a mixed column's
//! background load is left out.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use serde_json::Value;

use crate::plan::ColumnId;
use bench_model::{ErrorKind, Latency, LoadStats};

/// Table rows k6's summary has no figure for.
pub const NOT_MEASURED: &[&str] = &["Std. Dev. (ms)"];

/// A figure of a metric in either summary format.
fn figure(metric: &Value, key: &str) -> Option<f64> {
    metric
        .get("values")
        .and_then(|v| v.get(key))
        .or_else(|| metric.get(key))
        .and_then(Value::as_f64)
}

/// Every column's load in one k6 summary file.
pub fn read(path: &Path) -> anyhow::Result<Vec<(ColumnId, LoadStats)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let summary: Value = serde_json::from_str(&text)
        .map_err(|_| anyhow::anyhow!("{} is not a k6 JSON summary (not JSON)", path.display()))?;
    let Some(metrics) = summary.get("metrics").and_then(Value::as_object) else {
        bail!(
            "{} is not a k6 JSON summary (no \"metrics\")",
            path.display()
        );
    };
    let duration_ms = summary
        .get("state")
        .and_then(|s| s.get("testRunDurationMs"))
        .and_then(Value::as_f64);
    let mut out = Vec::new();
    for key in metrics.keys() {
        let Some(id) = key
            .strip_prefix("http_reqs{scenario:")
            .and_then(|rest| rest.strip_suffix('}'))
            .and_then(ColumnId::parse)
        else {
            continue;
        };
        out.push((id, scenario_load(metrics, id, duration_ms)));
    }
    if out.is_empty() {
        bail!(
            "{} has no scenario named after a bench column (no http_reqs{{scenario:<column-id>}} metric)",
            path.display()
        );
    }
    Ok(out)
}
/// The load of scenario `id` in a summary's `metrics`.
fn scenario_load(
    metrics: &serde_json::Map<String, Value>,
    id: ColumnId,
    duration_ms: Option<f64>,
) -> LoadStats {
    let key = format!("http_reqs{{scenario:{}}}", id.as_str());
    let sub = |name: &str| metrics.get(&format!("{name}{{scenario:{}}}", id.as_str()));
    let reqs = &metrics[&key];
    let total = figure(reqs, "count").unwrap_or(0.0) as u64;
    let rate = figure(reqs, "rate").unwrap_or(0.0);
    // A k6 Rate counts "passes" as true values: failed requests here.
    let errors = sub("http_req_failed")
        .and_then(|m| figure(m, "passes"))
        .unwrap_or(0.0) as u64;
    let duration_seconds = match duration_ms {
        Some(ms) => ms / 1000.0,
        None if rate > 0.0 => total as f64 / rate,
        None => 0.0,
    };
    let d = |k: &str| {
        sub("http_req_duration")
            .and_then(|m| figure(m, k))
            .unwrap_or(0.0)
    };
    let ok = total - errors.min(total);
    let per_second = |n: u64| {
        if duration_seconds > 0.0 {
            n as f64 / duration_seconds
        } else {
            0.0
        }
    };
    let mut errors_by_kind = BTreeMap::new();
    if errors > 0 {
        // The summary does not say which statuses failed.
        errors_by_kind.insert(ErrorKind::Other, errors);
    }
    LoadStats {
        total_requests: total,
        ok_requests: ok,
        errors,
        errors_by_kind,
        duration_seconds,
        throughput_rps: per_second(total),
        successful_throughput_rps: per_second(ok),
        latency_ms: Latency {
            avg: d("avg"),
            min: d("min"),
            max: d("max"),
            stdev: 0.0,
            p50: d("med"),
            p95: d("p(95)"),
            p99: d("p(99)"),
            p99_9: None,
        },
        timeline: Vec::new(),
        client_cpu_seconds: 0.0,
        connect_ms: None,
    }
}
