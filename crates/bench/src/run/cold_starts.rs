//! The cold-start fairness probe of a group's probed columns (the
//! baseline's: tiny_http against our connector), after the group's rounds.

use std::time::Duration;

use anyhow::Context;

use super::Ctx;
use crate::plan::{ColdStartProbe, Column, Group};
use bench_model::{ColdStartResult, ColdStartServer};

/// The cold-start fairness probe of `group`'s probed columns, if it has
/// any: `probe.cold_starts` rounds, each starting a fresh server per column
/// (the columns interleaved, so drift hits them alike), probing it at once
/// and stopping it. A column whose server bench did not start cannot be
/// cold-started: it is reported as not probed.
pub(super) fn measure_cold_starts(
    group: &Group,
    probe: &ColdStartProbe,
    cx: &Ctx<'_>,
) -> anyhow::Result<Option<ColdStartResult>> {
    let (launch, progress) = (cx.launch, cx.progress);
    let columns: Vec<&Column> = group
        .cold_start_probe
        .iter()
        .filter_map(|id| group.columns.iter().find(|c| c.id == *id))
        .collect();
    if columns.is_empty() || probe.cold_starts == 0 {
        return Ok(None);
    }
    let mut servers: Vec<ColdStartServer> = columns
        .iter()
        .map(|c| ColdStartServer {
            id: c.id,
            label: c.label(),
            starts: Vec::new(),
            failure: launch.external(c.target).map(|addr| {
                format!("not probed: the server at http://{addr} was not started by bench, so it cannot be cold-started")
            }),
        })
        .collect();
    progress.say(&format!(
        "  cold-start probe: {} connections at once on {} fresh servers per column",
        probe.connections, probe.cold_starts
    ));
    for start in 1..=probe.cold_starts {
        for (column, server) in columns.iter().zip(&mut servers) {
            if server.failure.is_some() {
                continue;
            }
            progress.measuring(format!(
                "the cold-start probe of {}, start {start}/{}",
                server.label, probe.cold_starts
            ));
            let fresh = launch.start(column)?;
            let report =
                net_tools::cold_start::probe(fresh.addr(), probe.connections, probe.run_for)
                    .with_context(|| format!("cold-start probe of {}", server.label))?;
            fresh.kill();
            let firsts: Vec<Option<f64>> = report
                .first_answer
                .iter()
                .map(|f| f.map(|d| d.as_secs_f64() * 1000.0))
                .collect();
            let within = bench_model::THRESHOLDS.cold_start_answer_within_ms;
            progress.say(&format!(
                "  [{start}/{}] {}: {} of {} connections without an answer within {within:.0} ms",
                probe.cold_starts,
                server.label,
                report.late(Duration::from_secs_f64(within / 1000.0)),
                probe.connections
            ));
            server.starts.push(firsts);
            progress.between();
        }
    }
    Ok(Some(ColdStartResult {
        connections: probe.connections,
        run_for_ms: probe.run_for.as_secs_f64() * 1000.0,
        servers,
    }))
}
