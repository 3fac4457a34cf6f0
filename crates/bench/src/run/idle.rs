//! The idle-connection group ([`crate::measure::idle_cost`]): every column's server
//! once per round (the shared round loop), each on a fresh process stopped
//! before the next starts. A server whose round fails is reported failed
//! with the cause and skipped in later rounds.

use super::rounds::{every_column_round, ColumnRound, Measured};
use super::Ctx;
use crate::measure::load::ColumnError;
use crate::plan::{GroupPlan, IdleLoad};
use bench_model::{GroupResult, IdleResult, IdleRound, IdleServer};

/// The idle group `group`, its load `idle`.
pub(super) fn measure_idle_group(
    group: &GroupPlan,
    idle: &IdleLoad,
    cx: &Ctx<'_>,
) -> anyhow::Result<GroupResult> {
    let measure = |at: &ColumnRound<'_>| {
        let column = &group.group.columns[at.column];
        let server = cx.launch.start_column(column)?;
        let outcome = match server.pid() {
            Some(pid) => crate::measure::idle_cost::measure_round(
                server.addr(),
                pid,
                column,
                idle,
                cx.options,
                (at.round, at.position),
            ),
            None => Err(anyhow::anyhow!(
                "not measured: the server at http://{} was not started by bench, so its threads and memory cannot be read",
                server.addr()
            )),
        };
        server.kill();
        let r = outcome.map_err(|e| ColumnError::Failed(format!("{e:#}")))?;
        Ok(Measured {
            lines: idle_round_lines(at, &r),
            rounds: vec![r],
        })
    };
    let result = |servers: Vec<IdleServer>| GroupResult {
        idle: Some(IdleResult {
            sizes: idle.sizes.clone(),
            servers,
        }),
        ..group.empty_result(cx.options)
    };
    let kept = |so_far: &[IdleServer]| cx.snapshot.keep(result(so_far.to_vec()));
    let mut servers: Vec<IdleServer> = group
        .group
        .columns
        .iter()
        .map(|c| IdleServer {
            id: c.id,
            label: c.label(),
            rounds: Vec::new(),
            failure: None,
        })
        .collect();
    // Raised before any server starts: the servers inherit bench's limit.
    let _ = loadgen::ensure_fd_capacity(0);
    every_column_round(&mut servers, group.rounds, (cx.progress, kept), measure)?;
    Ok(result(servers))
}

/// Progress lines of one idle round: one per size, then the close.
fn idle_round_lines(at: &ColumnRound<'_>, r: &IdleRound) -> Vec<String> {
    let ColumnRound {
        label, round, of, ..
    } = at;
    const MIB: f64 = 1024.0 * 1024.0;
    let mut lines = vec![format!(
        "  [{round}/{of}] {label}: none open: {} threads, {:.1} MiB, /health p99 {:.2} ms",
        r.idle.threads,
        r.idle.rss_bytes as f64 / MIB,
        r.probe_none_open.p99_ms
    )];
    for s in &r.steps {
        lines.push(format!(
            "      {} open ({:.2} s to open): {:+} threads ({:.3}/conn), {:+.1} MiB ({:.1} KiB/conn), /health p99 {}{}",
            s.opened,
            s.open_seconds,
            s.threads_above(&r.idle),
            s.threads_per_connection(&r.idle).unwrap_or(f64::NAN),
            (s.server.rss_bytes as f64 - r.idle.rss_bytes as f64) / MIB,
            s.kib_per_connection(&r.idle).unwrap_or(f64::NAN),
            s.probe.map_or("failed".to_owned(), |p| format!("{:.2} ms", p.p99_ms)),
            s.failure.as_ref().map_or(String::new(), |f| format!("; FAILED: {f}"))
        ));
    }
    if let Some(why) = &r.stopped {
        lines.push(format!("      {why}"));
    }
    lines.push(match r.closed_within_ms {
        Some(ms) => format!("      all closed; the server closed its side within {ms:.0} ms"),
        None => "      all closed; the server still held them after 5 s".to_owned(),
    });
    lines
}
