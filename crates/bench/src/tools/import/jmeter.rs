//! Reads a JMeter JTL in CSV (JMeter's default result format, with its header
//! line: `timeStamp,elapsed,label,responseCode,...,success,...`). A JTL keeps
//! every sample, so every figure bench reports is computed here, standard
//! deviation and per-second timeline included; samples are mapped to columns
//! by `label`, the sampler name the export gave them.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};

use crate::plan::ColumnId;
use crate::tools::import::locust::split_csv;
use bench_model::{ErrorKind, Latency, LoadStats, Second};

/// An error kind in bench's words from a JTL responseCode.
pub fn error_kind(code: &str) -> ErrorKind {
    let status = (code.len() == 3).then(|| code.parse().ok()).flatten();
    if let Some(status) = status {
        ErrorKind::Status(status)
    } else if code.contains("ConnectException") {
        ErrorKind::Connect
    } else if code.contains("Timeout") {
        ErrorKind::Timeout
    } else {
        ErrorKind::Other
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// One sample: start (ms since the epoch), elapsed ms, success, code.
struct Sample {
    start_ms: u64,
    elapsed_ms: f64,
    success: bool,
    code: String,
}

/// Every column's load in one JTL.
pub fn read(path: &Path) -> anyhow::Result<Vec<(ColumnId, LoadStats)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().unwrap_or_default());
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(ts), Some(el), Some(lb), Some(rc), Some(ok)) = (
        col("timeStamp"),
        col("elapsed"),
        col("label"),
        col("responseCode"),
        col("success"),
    ) else {
        bail!(
            "{} is not a JMeter CSV JTL (its header needs timeStamp, elapsed, label, responseCode and success)",
            path.display()
        );
    };
    let mut by_column: BTreeMap<ColumnId, Vec<Sample>> = BTreeMap::new();
    let mut rows = 0usize;
    for (n, line) in lines.enumerate() {
        rows += 1;
        let f = split_csv(line);
        let get = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
        let Some(id) = ColumnId::parse(get(lb)) else {
            continue;
        };
        let (Ok(start_ms), Ok(elapsed_ms)) = (get(ts).parse::<u64>(), get(el).parse::<f64>())
        else {
            bail!(
                "{} line {}: timeStamp and elapsed must be numbers",
                path.display(),
                n + 2
            );
        };
        by_column.entry(id).or_default().push(Sample {
            start_ms,
            elapsed_ms,
            success: get(ok) == "true",
            code: get(rc).to_owned(),
        });
    }
    if rows == 0 {
        bail!("{} has no samples (a header and no rows)", path.display());
    }
    if by_column.is_empty() {
        bail!(
            "{} has no sample labelled with a bench column id (export names each sampler by its column)",
            path.display()
        );
    }
    Ok(by_column
        .into_iter()
        .map(|(id, s)| (id, stats(&s)))
        .collect())
}

fn stats(samples: &[Sample]) -> LoadStats {
    let total = samples.len() as u64;
    let errors = samples.iter().filter(|s| !s.success).count() as u64;
    let mut errors_by_kind: BTreeMap<ErrorKind, u64> = BTreeMap::new();
    for s in samples.iter().filter(|s| !s.success) {
        *errors_by_kind.entry(error_kind(&s.code)).or_default() += 1;
    }
    let first = samples.iter().map(|s| s.start_ms).min().unwrap_or(0);
    let last = samples
        .iter()
        .map(|s| s.start_ms as f64 + s.elapsed_ms)
        .fold(first as f64, f64::max);
    let duration_seconds = (last - first as f64) / 1000.0;
    let mut sorted: Vec<f64> = samples.iter().map(|s| s.elapsed_ms).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len().max(1) as f64;
    let avg = sorted.iter().sum::<f64>() / n;
    let stdev = (sorted.iter().map(|v| (v - avg).powi(2)).sum::<f64>() / n).sqrt();
    // Per second of the run, by when each sample ended.
    let mut seconds: BTreeMap<u64, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        let end = s.start_ms as f64 + s.elapsed_ms;
        seconds
            .entry(((end - first as f64) / 1000.0).max(0.0) as u64)
            .or_default()
            .push(s);
    }
    let timeline = seconds
        .into_iter()
        .map(|(second, ss)| {
            let mut v: Vec<f64> = ss.iter().map(|s| s.elapsed_ms).collect();
            v.sort_by(f64::total_cmp);
            Second {
                second,
                requests: ss.len() as u64,
                errors: ss.iter().filter(|s| !s.success).count() as u64,
                p50_ms: percentile(&v, 0.50),
                p99_ms: percentile(&v, 0.99),
            }
        })
        .collect();
    let per_second = |k: u64| {
        if duration_seconds > 0.0 {
            k as f64 / duration_seconds
        } else {
            0.0
        }
    };
    LoadStats {
        total_requests: total,
        ok_requests: total - errors,
        errors,
        errors_by_kind,
        duration_seconds,
        throughput_rps: per_second(total),
        successful_throughput_rps: per_second(total - errors),
        latency_ms: Latency {
            avg,
            min: sorted.first().copied().unwrap_or(0.0),
            max: sorted.last().copied().unwrap_or(0.0),
            stdev,
            p50: percentile(&sorted, 0.50),
            p95: percentile(&sorted, 0.95),
            p99: percentile(&sorted, 0.99),
            p99_9: None,
        },
        timeline,
        client_cpu_seconds: 0.0,
        connect_ms: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_codes_become_bench_error_kinds() {
        assert_eq!(error_kind("500"), ErrorKind::Status(500));
        assert_eq!(
            error_kind("Non HTTP response code: java.net.ConnectException"),
            ErrorKind::Connect
        );
        assert_eq!(
            error_kind("Non HTTP response code: java.net.SocketTimeoutException"),
            ErrorKind::Timeout
        );
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&[7.0], 0.99), 7.0);
    }
}
