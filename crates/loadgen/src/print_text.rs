//! The human-readable report: a pure function from [`Report`] to text, laid
//! out like the seed tables (totals, throughput, error split, latency row,
//! per-second timeline) so that figures can be compared with them directly.

use std::fmt::Write;

use crate::latency_stats::LatencySummary;
use crate::report::Report;

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
    let load = &r.load;
    writeln!(out, "Target      {} {}", r.target.method, r.target.url)?;
    let model = match load.model.as_str() {
        "closed" => match (load.duration_ms, load.requests) {
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
        "burst" => format!(
            "burst of {} connections, one request each",
            load.connections
        ),
        "stages" => {
            let stages = load
                .stages
                .iter()
                .flatten()
                .map(|s| format!("{}:{}", seconds(s.duration_ms), s.target))
                .collect::<Vec<_>>()
                .join(",");
            format!("stages {stages} (peak {} connections)", load.connections)
        }
        _ => format!(
            "open loop, {} req/s, up to {} connections",
            load.rate_rps.unwrap_or(0.0),
            load.max_connections.unwrap_or(0)
        ),
    };
    writeln!(
        out,
        "Load        {model}; {} threads, keep-alive {}, timeout {}",
        r.threads,
        if r.target.keep_alive { "on" } else { "off" },
        seconds(r.target.timeout_ms)
    )?;
    writeln!(out, "Elapsed     {:.2} s", r.elapsed_ms / 1000.0)?;
    if let Some(b) = &r.burst {
        writeln!(
            out,
            "Burst       {} of {} connections open at release, after {:.0} ms of connecting",
            b.connected_before_release, b.connections, b.connect_phase_ms
        )?;
    }
    writeln!(out)?;
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
    let statuses = r
        .status_codes
        .iter()
        .map(|(code, n)| format!("{code}: {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    writeln!(
        out,
        "Statuses    {}",
        if statuses.is_empty() {
            "none"
        } else {
            &statuses
        }
    )?;
    if r.requests.errors > 0 {
        writeln!(
            out,
            "Errors      status >= 400: {}, connect: {}, timeout: {}, other: {}{}",
            r.errors.status,
            r.errors.connect,
            r.errors.timeout,
            r.errors.other,
            if r.errors.unfinished > 0 {
                format!(", unfinished at the deadline: {}", r.errors.unfinished)
            } else {
                String::new()
            }
        )?;
    }
    writeln!(out)?;
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
    if let Some(o) = &r.open_loop {
        writeln!(
            out,
            "Open loop   {} scheduled at {} req/s, {} sent more than {} ms late, pool cap hit {} times, {} connections used",
            o.scheduled, o.rate_rps, o.late_sends, o.late_threshold_ms, o.pool_cap_hits, o.connections_used
        )?;
    }
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
