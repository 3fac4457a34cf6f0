//! What goes wrong on every model: /cpu saturating the cores beside
//! /health, a row per model (the thread pool, the event loop with the work
//! inline, virtual threads), each next to the same model's /health beside a
//! light neighbour, so that a reader sees the event loop is not alone. The
//! columns and the finding of each row are the saturated-cores findings'
//! ([`bench_analysis::findings::neighbour_columns`]).

use bench_analysis::findings::neighbour_columns;
use bench_analysis::stats::column_spread;
use bench_model::figures::{p99_is_lower_bound, p99_ms};
use bench_model::{ColumnId, ColumnResult, Finding, GroupId, RunResults};

use super::columns::Model;
use super::wrong::{Wrong, WrongKind};
use super::RowVerdict;

/// A row per model whose /health the run measured next to /cpu, in the
/// matrix's order of models.
pub(super) fn saturated_cores(results: &RunResults, findings: &[Finding]) -> Vec<Wrong> {
    let measured = |id: ColumnId| {
        results.groups.iter().find_map(|g| {
            let c = g
                .columns
                .iter()
                .find(|c| c.id == id && !c.rounds.is_empty())?;
            Some((g.id, c))
        })
    };
    let median_p99 = |c: &ColumnResult| column_spread(c, p99_ms).map(|s| s.median);
    let mut rows: Vec<(Model, Wrong)> = neighbour_columns()
        .filter_map(|(finding, cpu, light)| {
            let (group, c): (GroupId, &ColumnResult) = measured(cpu)?;
            let model = Model::of(c.server)?;
            let right = measured(light).and_then(|(_, l)| Some((l.id, median_p99(l)?)));
            let row = Wrong {
                kind: WrongKind::SaturatedCores,
                group,
                column: cpu,
                what: match model {
                    Model::VirtualThreads => "/cpu on virtual threads".to_owned(),
                    other => format!("/cpu on the {}", other.name()),
                },
                p99_ms: median_p99(c),
                p99_lower_bound: c.rounds.iter().any(p99_is_lower_bound),
                right,
                threads: None,
                unanswered: None,
                verdict: findings
                    .iter()
                    .find(|f| f.id == finding)
                    .map(RowVerdict::of),
            };
            Some((model, row))
        })
        .collect();
    rows.sort_by_key(|(model, _)| Model::ALL.iter().position(|m| m == model));
    rows.into_iter().map(|(_, row)| row).collect()
}
