//! The server process's figures read from its own `/metrics` instead of
//! `/proc`, for servers bench did not start (`--blocking-url`, `--async-url`,
//! possibly on another host) and for `bench watch` beside an external tool.
//!
//! A [`RemoteSampler`] polls `/metrics` on a thread during the window, the way
//! `process_stats::PeakSampler` polls `/proc`; [`server_stats`] turns the
//! readings into the same [`ServerStats`] a native run has. Its own polls are
//! requests too: they are counted by the server under the route `/metrics`,
//! which [`MetricsReading::requests`] leaves out, so the request count of the
//! window is the load's alone.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::servers::http_get;
use bench_model::ServerStats;

/// How often a remote server is polled: often enough to see a burst's peak
/// of threads, rarely enough that the polls cost the server next to nothing.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// One `/metrics` answer, the parts bench reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricsReading {
    pub threads: u64,
    pub rss_bytes: u64,
    pub cpu_seconds: f64,
    /// `http_requests_total` summed over every route but `/metrics`.
    pub requests: u64,
}

/// The value of the first sample of `name` (with or without labels).
fn sample(text: &str, name: &str) -> Option<f64> {
    value(text, name, &[])
}

/// Every sample of `name` in `text`, in order: its labels and the text of
/// its value. A line of another name that starts with `name` (`_total` of
/// `_total_x`) is not one. This is bench's one reader of a Prometheus text
/// line: the process figures below, the stall detector's per-route
/// counters ([`crate::measure::detector`]) and a JVM's figures
/// ([`crate::measure::jvm_readings`]) all go through it.
pub fn samples<'a>(
    text: &'a str,
    name: &'a str,
) -> impl Iterator<Item = (Vec<(&'a str, &'a str)>, &'a str)> + 'a {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(move |l| {
            let rest = l.strip_prefix(name)?;
            let (label_text, number) = match rest.strip_prefix('{') {
                Some(inside) => inside.rsplit_once("} ")?,
                None => ("", rest.strip_prefix(' ')?),
            };
            let labels = label_text
                .split("\",")
                .filter_map(|pair| pair.split_once('='))
                .map(|(k, v)| (k.trim(), v.trim_matches('"')))
                .collect();
            Some((labels, number.trim()))
        })
}

/// The value of the first sample of `name` whose labels include every
/// `(label, value)` pair of `labels` (`&[]`: any sample of `name`). A
/// value that is not a number, or `NaN` (an empty summary window), is
/// `None`.
pub fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples(text, name)
        .filter(|(have, _)| labels.iter().all(|want| have.contains(want)))
        .find_map(|(_, number)| number.parse::<f64>().ok().filter(|x| !x.is_nan()))
}

/// Parses a `/metrics` text; says which figure is missing when one is.
pub fn parse(text: &str) -> Result<MetricsReading, String> {
    let need = |name: &str| sample(text, name).ok_or_else(|| format!("no {name} in /metrics"));
    let requests = text
        .lines()
        .filter(|l| l.starts_with("http_requests_total{"))
        .filter(|l| !l.contains("route=\"/metrics\""))
        .filter_map(|l| l.rsplit(' ').next()?.trim().parse::<u64>().ok())
        .sum();
    Ok(MetricsReading {
        threads: need("process_threads")? as u64,
        rss_bytes: need("process_resident_memory_bytes")? as u64,
        cpu_seconds: need("process_cpu_seconds_total")?,
        requests,
    })
}

/// Reads `/metrics` of the server at `addr` once.
pub fn read(addr: SocketAddr) -> Result<MetricsReading, String> {
    match http_get(addr, "/metrics") {
        Ok((200, body)) => parse(&body),
        Ok((status, _)) => Err(format!("http://{addr}/metrics answered {status}")),
        Err(e) => Err(format!("cannot read http://{addr}/metrics: {e}")),
    }
}

/// Polls a server's `/metrics` on a thread until stopped.
pub struct RemoteSampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<MetricsReading>>,
    addr: SocketAddr,
}

impl RemoteSampler {
    /// Takes the first reading now (so the window's start is exact), then
    /// polls every `every` until [`RemoteSampler::stop`].
    pub fn start(addr: SocketAddr, every: Duration) -> Result<RemoteSampler, String> {
        let first = read(addr)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("bench-metrics-sampler".into())
            .spawn(move || {
                let mut readings = vec![first];
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(every);
                    // A failed poll (server busy past the timeout) loses one
                    // sample, not the window.
                    if let Ok(r) = read(addr) {
                        readings.push(r);
                    }
                }
                readings
            })
            .map_err(|e| format!("cannot start the /metrics sampler: {e}"))?;
        Ok(RemoteSampler { stop, handle, addr })
    }

    /// Stops polling and takes a last reading (so the window's end is exact).
    pub fn stop(self) -> Result<Vec<MetricsReading>, String> {
        self.stop.store(true, Ordering::Relaxed);
        let mut readings = self
            .handle
            .join()
            .map_err(|_| "the /metrics sampler panicked".to_owned())?;
        readings.push(read(self.addr)?);
        Ok(readings)
    }
}

/// The window's [`ServerStats`]: idle figures from `idle` (read before any
/// load), peaks over `readings`, CPU from the first to the last reading.
/// `samples` is the number of readings, so the report prints the rows.
pub fn server_stats(idle: &MetricsReading, readings: &[MetricsReading]) -> ServerStats {
    let (first, last) = match (readings.first(), readings.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => (idle, idle),
    };
    ServerStats {
        idle_threads: idle.threads,
        peak_threads: readings.iter().map(|r| r.threads).max().unwrap_or(0),
        idle_rss_bytes: idle.rss_bytes,
        peak_rss_bytes: readings.iter().map(|r| r.rss_bytes).max().unwrap_or(0),
        cpu_seconds: (last.cpu_seconds - first.cpu_seconds).max(0.0),
        samples: readings.len() as u64,
    }
}

/// Requests the server answered between the first and the last reading,
/// its own `/metrics` polls left out.
pub fn requests_in(readings: &[MetricsReading]) -> Option<u64> {
    Some(
        readings
            .last()?
            .requests
            .saturating_sub(readings.first()?.requests),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# HELP process_threads Live OS threads.\n# TYPE process_threads gauge\nprocess_threads{server=\"async\"} 7\nprocess_resident_memory_bytes{server=\"async\"} 1048576\nprocess_cpu_seconds_total{server=\"async\"} 1.250\nhttp_requests_in_flight{server=\"async\"} 1\nhttp_requests_total{server=\"async\",route=\"/users/{id}\",status=\"200\"} 40\nhttp_requests_total{server=\"async\",route=\"/metrics\",status=\"200\"} 9\nhttp_requests_total{server=\"async\",route=\"/health\",status=\"200\"} 2\n";

    #[test]
    fn a_figure_is_read_by_its_exact_name() {
        let text = "# HELP x\nhttp_requests_in_flight_max 9\nhttp_requests_in_flight 3\n";
        assert_eq!(value(text, "http_requests_in_flight", &[]), Some(3.0));
        assert_eq!(value(text, "nope", &[]), None);
        let labelled = "# TYPE g gauge\nhttp_requests_in_flight{server=\"async\"} 1\n";
        assert_eq!(value(labelled, "http_requests_in_flight", &[]), Some(1.0));
    }

    #[test]
    fn reads_the_process_figures_and_leaves_its_own_polls_out() {
        let r = parse(TEXT).unwrap();
        assert_eq!(
            r,
            MetricsReading {
                threads: 7,
                rss_bytes: 1_048_576,
                cpu_seconds: 1.25,
                requests: 42
            }
        );
    }

    #[test]
    fn a_missing_figure_is_named() {
        let e = parse("process_threads{server=\"x\"} 3\n").unwrap_err();
        assert_eq!(e, "no process_resident_memory_bytes in /metrics");
    }

    #[test]
    fn peaks_and_cpu_span_the_window() {
        let at = |threads, rss_bytes, cpu_seconds, requests| MetricsReading {
            threads,
            rss_bytes,
            cpu_seconds,
            requests,
        };
        let idle = at(5, 100, 0.5, 0);
        let w = [
            at(5, 100, 1.0, 10),
            at(9, 300, 1.5, 60),
            at(6, 200, 2.25, 110),
        ];
        let s = server_stats(&idle, &w);
        assert_eq!((s.idle_threads, s.peak_threads), (5, 9));
        assert_eq!((s.idle_rss_bytes, s.peak_rss_bytes), (100, 300));
        assert_eq!(s.cpu_seconds, 1.25);
        assert_eq!(s.samples, 3);
        assert_eq!(requests_in(&w), Some(100));
    }
}
