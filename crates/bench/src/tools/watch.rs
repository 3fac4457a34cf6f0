//! `bench watch --column ID --blocking-url U --async-url U --out DIR -- CMD...`:
//! runs an external load tool's command while sampling the column's server
//! `/metrics`, and writes `DIR/<column-id>.watch.json` for `bench import`, so
//! an imported report has the server rows (threads, memory, CPU) and the
//! server's own request count for exactly the tool's run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::measure::remote_metrics::{self, RemoteSampler, SAMPLE_EVERY};
use crate::plan::{groups, ColumnId, Target};
use crate::servers::parse_base_url;
use bench_model::ServerStats;

/// What one watch saw: the file `bench import` reads beside a tool's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchRecord {
    pub column: String,
    /// The server's base URL.
    pub url: String,
    /// Idle figures from before the command, peaks and CPU over its run.
    pub server_process: ServerStats,
    /// Requests the server answered while the command ran, its /metrics polls left out.
    pub server_counted_requests: Option<u64>,
    pub window_seconds: f64,
    pub command: Vec<String>,
}

/// The file a watch of `column` writes in `dir`.
pub fn record_path(dir: &Path, column: &str) -> PathBuf {
    dir.join(format!("{column}.watch.json"))
}

/// The server a column targets.
pub fn target_of(column: ColumnId) -> Option<Target> {
    groups()
        .into_iter()
        .flat_map(|g| g.columns)
        .find(|c| c.id == column)
        .map(|c| c.target)
}

/// Runs `command` with the column's server sampled; writes the record and
/// returns it with the command's exit code.
pub fn watch(
    column: ColumnId,
    url: &str,
    command: &[String],
    dir: &Path,
) -> anyhow::Result<(WatchRecord, i32)> {
    let addr = parse_base_url(url).map_err(anyhow::Error::msg)?;
    let (program, args) = command
        .split_first()
        .context("no command to run after --")?;
    let idle = remote_metrics::read(addr).map_err(anyhow::Error::msg)?;
    let sampler = RemoteSampler::start(addr, SAMPLE_EVERY).map_err(anyhow::Error::msg)?;
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .status()
        .with_context(|| format!("cannot run {program}"));
    let window_seconds = started.elapsed().as_secs_f64();
    let readings = sampler.stop().map_err(anyhow::Error::msg)?;
    let status = status?;
    let record = WatchRecord {
        column: column.as_str().to_owned(),
        url: url.to_owned(),
        server_process: remote_metrics::server_stats(&idle, &readings),
        server_counted_requests: remote_metrics::requests_in(&readings),
        window_seconds,
        command: command.to_vec(),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = record_path(dir, column.as_str());
    std::fs::write(&path, serde_json::to_string_pretty(&record)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((record, status.code().unwrap_or(1)))
}
