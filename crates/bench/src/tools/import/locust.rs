//! Reads Locust's `--csv` output: `<prefix>_stats.csv` (one row per request
//! name, plus "Aggregated"), and beside it, when present,
//! `<prefix>_stats_history.csv` (the per-second timeline) and
//! `<prefix>_failures.csv` (errors by kind). Each row named after a bench
//! column becomes one round of that column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::plan::ColumnId;
use bench_model::{ErrorKind, Latency, LoadStats, Second};

/// Table rows Locust's output has no figure for.
pub const NOT_MEASURED: &[&str] = &["Std. Dev. (ms)"];

/// Splits one CSV line (RFC 4180 quoting, as Python's csv module writes).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

/// A CSV file as header and rows, each row a map from header to value.
struct Csv {
    header: Vec<String>,
    rows: Vec<BTreeMap<String, String>>,
}

fn read_csv(path: &Path) -> anyhow::Result<Csv> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().unwrap_or_default());
    let rows = lines
        .map(|l| header.iter().cloned().zip(split_csv(l)).collect())
        .collect();
    Ok(Csv { header, rows })
}

fn num(row: &BTreeMap<String, String>, key: &str) -> Option<f64> {
    row.get(key)?.trim().parse::<f64>().ok()
}

/// The sibling file `<prefix><suffix>` of a `<prefix>_stats.csv`.
fn sibling(stats: &Path, suffix: &str) -> Option<PathBuf> {
    let name = stats.file_name()?.to_str()?;
    let prefix = name.strip_suffix("_stats.csv")?;
    let p = stats.with_file_name(format!("{prefix}{suffix}"));
    p.exists().then_some(p)
}

/// An error kind in bench's words from a Locust failure text:
/// `BadStatusCode(..., code=500)` or `HTTPError('500 Server Error ...')` -> `Status(500)`.
pub fn error_kind(error: &str) -> ErrorKind {
    let code = error
        .split("code=")
        .nth(1)
        .map(|rest| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .filter(|c| c.len() == 3)
        .and_then(|c| c.parse().ok())
        .or_else(|| {
            let rest = error.split("HTTPError(").nth(1)?;
            let digits: String = rest
                .trim_start_matches(['\'', '"'])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (digits.len() == 3).then(|| digits.parse().ok()).flatten()
        });
    match code {
        Some(c) => ErrorKind::Status(c),
        None if error.to_lowercase().contains("timeout") || error.contains("timed out") => {
            ErrorKind::Timeout
        }
        None if error.contains("ConnectionRefused") || error.contains("onnection refused") => {
            ErrorKind::Connect
        }
        None => ErrorKind::Other,
    }
}

/// Every column's load in one `_stats.csv`, with its siblings.
pub fn read(stats: &Path) -> anyhow::Result<Vec<(ColumnId, LoadStats)>> {
    let csv = read_csv(stats)?;
    for needed in [
        "Name",
        "Request Count",
        "Failure Count",
        "Average Response Time",
    ] {
        if !csv.header.iter().any(|h| h == needed) {
            bail!(
                "{} is not a Locust --csv stats file (no {needed:?} column)",
                stats.display()
            );
        }
    }
    let failures = match sibling(stats, "_failures.csv") {
        Some(p) => read_csv(&p)?.rows,
        None => Vec::new(),
    };
    let history = match sibling(stats, "_stats_history.csv") {
        Some(p) => read_csv(&p)?.rows,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for row in &csv.rows {
        let Some(id) = row.get("Name").and_then(|n| ColumnId::parse(n.trim())) else {
            continue;
        };
        let total = num(row, "Request Count").unwrap_or(0.0) as u64;
        let errors = num(row, "Failure Count").unwrap_or(0.0) as u64;
        let rps = num(row, "Requests/s").unwrap_or(0.0);
        let mut errors_by_kind: BTreeMap<ErrorKind, u64> = BTreeMap::new();
        for f in failures.iter().filter(|f| f.get("Name") == row.get("Name")) {
            let kind = error_kind(f.get("Error").map_or("", String::as_str));
            *errors_by_kind.entry(kind).or_default() += num(f, "Occurrences").unwrap_or(0.0) as u64;
        }
        let listed: u64 = errors_by_kind.values().sum();
        if listed < errors {
            *errors_by_kind.entry(ErrorKind::Other).or_default() += errors - listed;
        }
        let duration_seconds = if rps > 0.0 { total as f64 / rps } else { 0.0 };
        let pct = |k: &str| num(row, k).unwrap_or(0.0);
        out.push((
            id,
            LoadStats {
                total_requests: total,
                ok_requests: total - errors.min(total),
                errors,
                errors_by_kind,
                duration_seconds,
                throughput_rps: rps,
                successful_throughput_rps: if duration_seconds > 0.0 {
                    (total - errors.min(total)) as f64 / duration_seconds
                } else {
                    0.0
                },
                latency_ms: Latency {
                    avg: pct("Average Response Time"),
                    min: pct("Min Response Time"),
                    max: pct("Max Response Time"),
                    // Locust does not report a standard deviation.
                    stdev: 0.0,
                    p50: pct("50%"),
                    p95: pct("95%"),
                    p99: pct("99%"),
                    p99_9: None,
                },
                timeline: timeline(&history, row.get("Name").map_or("", String::as_str)),
                // Locust's own CPU is not in its output.
                client_cpu_seconds: 0.0,
                connect_ms: None,
            },
        ));
    }
    if out.is_empty() {
        bail!(
            "{} has no request named after a bench column (export names each request by its column id)",
            stats.display()
        );
    }
    Ok(out)
}

/// Per-second requests from the history's cumulative counts: the rows of
/// `name` when Locust wrote them (`--csv-full-history`), else "Aggregated"
/// (one column per exported file, so the same requests).
fn timeline(history: &[BTreeMap<String, String>], name: &str) -> Vec<Second> {
    let named: Vec<_> = history
        .iter()
        .filter(|r| r.get("Name").map(String::as_str) == Some(name))
        .collect();
    let rows: Vec<_> = if named.is_empty() {
        history
            .iter()
            .filter(|r| r.get("Name").map(String::as_str) == Some("Aggregated"))
            .collect()
    } else {
        named
    };
    let Some(t0) = rows.first().and_then(|r| num(r, "Timestamp")) else {
        return Vec::new();
    };
    let (mut prev_n, mut prev_e) = (0.0, 0.0);
    let mut out = Vec::new();
    for r in rows {
        let n = num(r, "Total Request Count").unwrap_or(prev_n);
        let e = num(r, "Total Failure Count").unwrap_or(prev_e);
        out.push(Second {
            second: (num(r, "Timestamp").unwrap_or(t0) - t0).max(0.0) as u64,
            requests: (n - prev_n).max(0.0) as u64,
            errors: (e - prev_e).max(0.0) as u64,
            p50_ms: num(r, "50%").unwrap_or(0.0),
            p99_ms: num(r, "99%").unwrap_or(0.0),
        });
        (prev_n, prev_e) = (n, e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_with_quotes_and_commas() {
        assert_eq!(
            split_csv(r#"GET,"a,b","say ""hi""",3"#),
            vec!["GET", "a,b", "say \"hi\"", "3"]
        );
    }

    #[test]
    fn failure_texts_become_bench_error_kinds() {
        assert_eq!(
            error_kind("BadStatusCode('http://x/posts/10', code=500)"),
            ErrorKind::Status(500)
        );
        assert_eq!(
            error_kind("HTTPError('500 Server Error: x')"),
            ErrorKind::Status(500)
        );
        assert_eq!(
            error_kind("ConnectionRefusedError(111, 'Connection refused')"),
            ErrorKind::Connect
        );
        assert_eq!(error_kind("something odd"), ErrorKind::Other);
    }
}
