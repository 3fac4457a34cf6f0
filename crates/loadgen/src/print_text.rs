//! The human-readable report: a pure function from [`Report`] to text, laid
//! out like the seed tables (totals, throughput, bytes, error split, latency
//! row, per-second timeline) so that figures can be compared with them
//! directly; an interrupted run says so on its first line.

use std::fmt::Write;

use crate::latency_stats::LatencySummary;
use crate::plan::BurstConnect;
use crate::report::{LoadInfo, ModelName, Report};

/// Timelines longer than this many seconds are left to `--json`.
const MAX_TIMELINE_ROWS: usize = 60;

/// Renders the report as text.
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_report(&mut out, report);
    out
}

fn write_report(out: &mut String, r: &Report) -> std::fmt::Result {
    if r.interrupted {
        writeln!(
            out,
            "INTERRUPTED: the run was stopped early; these are the requests that ended before"
        )?;
    }
    writeln!(out, "Target      {} {}", r.target.method, r.target.url)?;
    writeln!(
        out,
        "Load        {}; {} threads, keep-alive {}, timeout {}",
        describe_load(&r.load),
        r.threads,
        if r.target.keep_alive { "on" } else { "off" },
        seconds(r.target.timeout_ms)
    )?;
    writeln!(out, "Elapsed     {:.2} s", r.elapsed_ms / 1000.0)?;
    if let Some(b) = &r.burst {
        match b.connect {
            BurstConnect::First => writeln!(
                out,
                "Burst       {} of {} connections open at release, after {:.0} ms of connecting",
                b.connected_before_release, b.connections, b.connect_phase_ms
            )?,
            BurstConnect::InRequest => writeln!(
                out,
                "Burst       {} requests released at once, each opening its connection (inside its latency)",
                b.connections
            )?,
        }
    }
    writeln!(out)?;
    write_counts(out, r)?;
    writeln!(out)?;
    write_latency(out, r)?;
    writeln!(out)?;
    writeln!(
        out,
        "Client CPU  {:.2} s, user + system ({:.2} cores busy on average)",
        r.client_cpu.cpu_ms / 1000.0,
        r.client_cpu.cores_used
    )?;
    if !r.thresholds.is_empty() {
        writeln!(out)?;
        for t in &r.thresholds {
            writeln!(
                out,
                "Threshold   {:<16} {} (actual {:.2})",
                t.expression,
                if t.passed { "passed" } else { "FAILED" },
                t.actual
            )?;
        }
    }
    writeln!(out)?;
    write_timeline(out, r)
}

/// The load model in words.
fn describe_load(load: &LoadInfo) -> String {
    match load.model {
        ModelName::Closed => match (load.duration_ms, load.requests) {
            (Some(d), _) => format!(
                "closed loop, {} connections, {}",
                load.connections,
                seconds(d)
            ),
            (_, Some(n)) => format!(
                "closed loop, {} connections, {n} requests",
                load.connections
            ),
            _ => format!("closed loop, {} connections", load.connections),
        },
        ModelName::Burst => match load.burst_connect {
            Some(BurstConnect::InRequest) => format!(
                "burst of {} requests, each opening its connection (as JMeter)",
                load.connections
            ),
            _ => format!(
                "burst of {} connections opened first, one request each",
                load.connections
            ),
        },
        ModelName::Stages => {
            let stages = load
                .stages
                .iter()
                .flatten()
                .map(|s| format!("{}:{}", seconds(s.duration_ms), s.target))
                .collect::<Vec<_>>()
                .join(",");
            format!("stages {stages} (peak {} connections)", load.connections)
        }
        ModelName::Open => format!(
            "open loop, {} req/s, up to {} connections",
            load.rate_rps.unwrap_or(0.0),
            load.max_connections.unwrap_or(0)
        ),
    }
}

/// Requests, throughput, bytes, statuses and errors.
fn write_counts(out: &mut String, r: &Report) -> std::fmt::Result {
    writeln!(
        out,
        "Requests    {} total, {} ok, {} errors ({:.2}%)",
        r.requests.total, r.requests.ok, r.requests.errors, r.error_rate_percent
    )?;
    writeln!(
        out,
        "Throughput  {:.1} req/s total, {:.1} req/s successful (status < 400)",
        r.throughput_rps, r.successful_throughput_rps
    )?;
    let t = &r.transfer;
    writeln!(
        out,
        "Transfer    {}/s received, {}/s sent ({} and {} in all)",
        bytes(t.received_bytes_per_second),
        bytes(t.sent_bytes_per_second),
        bytes(t.received_bytes as f64),
        bytes(t.sent_bytes as f64)
    )?;
    let statuses = r
        .status_codes
        .iter()
        .map(|(code, n)| format!("{code}: {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let statuses = if statuses.is_empty() {
        "none"
    } else {
        &statuses
    };
    writeln!(out, "Statuses    {statuses}")?;
    if r.requests.errors > 0 {
        let unfinished = if r.errors.unfinished > 0 {
            format!(", unfinished at the deadline: {}", r.errors.unfinished)
        } else {
            String::new()
        };
        writeln!(
            out,
            "Errors      status >= 400: {}, connect: {}, timeout: {}, other: {}{unfinished}",
            r.errors.status, r.errors.connect, r.errors.timeout, r.errors.other
        )?;
    }
    Ok(())
}

/// The latency table, and the open model's sending figures.
fn write_latency(out: &mut String, r: &Report) -> std::fmt::Result {
    writeln!(
        out,
        "Latency (ms)  {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "avg", "stdev", "min", "p50", "p90", "p95", "p99", "p99.9", "max"
    )?;
    let label = if r.latency_uncorrected_ms.is_some() {
        "corrected"
    } else {
        ""
    };
    latency_row(out, label, &r.latency_ms)?;
    if let Some(u) = &r.latency_uncorrected_ms {
        latency_row(out, "uncorrected", u)?;
    }
    // A burst's connects: before the release, or inside the row above.
    if let Some(c) = r.burst.as_ref().and_then(|b| b.connect_ms.as_ref()) {
        latency_row(out, "connect", c)?;
    }
    if let Some(o) = &r.open_loop {
        writeln!(
            out,
            "Open loop   {} scheduled at {} req/s, {} sent more than {} ms late, pool cap hit {} times, {} connections used",
            o.scheduled, o.rate_rps, o.late_sends, o.late_threshold_ms, o.pool_cap_hits, o.connections_used
        )?;
    }
    Ok(())
}

fn write_timeline(out: &mut String, r: &Report) -> std::fmt::Result {
    if r.timeline.len() > MAX_TIMELINE_ROWS {
        writeln!(
            out,
            "Timeline    {} seconds; see --json for every second",
            r.timeline.len()
        )?;
    } else if !r.timeline.is_empty() {
        writeln!(
            out,
            "Timeline  {:>6} {:>10} {:>8} {:>9} {:>9}",
            "second", "requests", "errors", "p50 ms", "p99 ms"
        )?;
        for row in &r.timeline {
            writeln!(
                out,
                "          {:>6} {:>10} {:>8} {:>9.2} {:>9.2}",
                row.second, row.requests, row.errors, row.p50_ms, row.p99_ms
            )?;
        }
    }
    Ok(())
}

/// A byte count in binary units, as wrk prints its Transfer/sec.
fn bytes(n: f64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

fn latency_row(out: &mut String, label: &str, l: &LatencySummary) -> std::fmt::Result {
    writeln!(
        out,
        "  {label:<11} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
        l.mean, l.stdev, l.min, l.p50, l.p90, l.p95, l.p99, l.p99_9, l.max
    )
}

/// `2000` as `2s`, `1500` as `1500ms`: how plans spell durations.
pub(crate) fn seconds(ms: f64) -> String {
    if ms >= 1000.0 && (ms / 1000.0).fract() == 0.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_are_in_binary_units() {
        assert_eq!(bytes(0.0), "0 B");
        assert_eq!(bytes(1023.0), "1023 B");
        assert_eq!(bytes(1536.0), "1.50 KiB");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0), "3.00 MiB");
    }
}
