//! `bench import --tool ... FILES... --out DIR`: an external tool's results
//! turned into the same [`RunResults`] a native run makes, so the same
//! report.md, results.json, tables, charts and findings follow. Each result
//! is mapped to its column by the column id the export named it after; a
//! `<column-id>.watch.json` beside a file (from `bench watch`) adds the
//! server rows. Figures the tool does not give print "not measured".

pub mod jmeter;
pub mod k6;
pub mod locust;

use std::path::Path;

use anyhow::Context;

use crate::plan::{groups, ColumnId, Profile};
use crate::tools::export::Tool;
use crate::tools::watch::{record_path, WatchRecord};
use bench_model::{
    ColumnResult, GroupResult, LoadStats, RoundResult, RunResults, RunSettings, ServerStats,
    SCHEMA_VERSION,
};

/// One measured run of one column by the tool, with its watch if there was one.
#[derive(Debug, Clone)]
pub struct Imported {
    pub column: ColumnId,
    pub load: LoadStats,
    pub watch: Option<WatchRecord>,
    /// Table rows the tool does not measure.
    pub not_measured: &'static [&'static str],
}

/// Reads every file; rounds of the same column follow the order of the files.
pub fn read(tool: Tool, files: &[std::path::PathBuf]) -> anyhow::Result<Vec<Imported>> {
    let mut out = Vec::new();
    for f in files {
        let loads = match tool {
            Tool::Locust => locust::read(f)?,
            Tool::K6 => k6::read(f)?,
            Tool::Jmeter => jmeter::read(f)?,
        };
        let dir = f.parent().unwrap_or(Path::new("."));
        for (column, load) in loads {
            let watch_file = record_path(dir, column.as_str());
            let watch = if watch_file.exists() {
                let text = std::fs::read_to_string(&watch_file)
                    .with_context(|| format!("cannot read {}", watch_file.display()))?;
                Some(serde_json::from_str(&text).with_context(|| {
                    format!("{} is not a bench watch record", watch_file.display())
                })?)
            } else {
                None
            };
            out.push(Imported {
                column,
                load,
                watch,
                not_measured: match tool {
                    Tool::Locust => locust::NOT_MEASURED,
                    Tool::K6 => k6::NOT_MEASURED,
                    Tool::Jmeter => &[],
                },
            });
        }
    }
    Ok(out)
}

/// The figures a tool names itself by in the report.
pub fn tool_name(tool: Tool) -> &'static str {
    match tool {
        Tool::Locust => "Locust (--csv stats)",
        Tool::K6 => "k6 (JSON summary)",
        Tool::Jmeter => "JMeter (CSV JTL)",
    }
}

/// The results of an import, in the matrix's group and column order.
pub fn results(tool: Tool, profile: &Profile, imported: &[Imported]) -> anyhow::Result<RunResults> {
    let out_groups: Vec<GroupResult> = groups()
        .iter()
        .filter_map(|g| imported_group(tool, profile, g, imported))
        .collect();
    let rounds = out_groups
        .iter()
        .flat_map(|g| &g.columns)
        .map(|c| c.rounds.len() as u32)
        .max()
        .unwrap_or(0);
    let any_watch = imported.iter().any(|i| i.watch.is_some());
    let targets: Vec<String> = {
        let mut urls: Vec<String> = imported
            .iter()
            .filter_map(|i| i.watch.as_ref().map(|w| w.url.clone()))
            .collect();
        urls.sort();
        urls.dedup();
        urls
    };
    Ok(RunResults {
        schema_version: SCHEMA_VERSION,
        started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        wall_seconds: 0.0,
        machine: crate::measure::machine::describe(),
        // The tool measured the run; the commit of this import is not its.
        source: None,
        interrupted: false,
        // No window's CPU was split: the tool measured the load.
        cpu_accounting: None,
        settings: RunSettings {
            profile: profile.name.to_owned(),
            cold_start: None,
            rounds,
            // The servers' own settings are not in a tool's output.
            blocking_handler_threads: 0,
            async_worker_threads: 0,
            async_blocking_threads: 0,
            async_rayon_threads: 0,
            db_pool_size: 0,
            redis_pool_size: 0,
            blocking_redis_client: None,
            virtual_carriers: None,
            remote_db_round_trip_ms: None,
            loadgen_threads: 0,
            cpu_n: profile.cpu_n,
            targets: if targets.is_empty() {
                "not recorded (no bench watch beside the files)".into()
            } else {
                targets.join(", ")
            },
            blocking_url: None,
            async_url: None,
            measured_by: Some(tool_name(tool).to_owned()),
            server_figures_from: any_watch.then(|| "/metrics, sampled by bench watch".to_owned()),
            jvm: None,
        },
        groups: out_groups,
        skipped: Vec::new(),
    })
}

/// The columns of group `g` that the tool measured, or `None` if none.
fn imported_group(
    tool: Tool,
    profile: &Profile,
    g: &crate::plan::Group,
    imported: &[Imported],
) -> Option<GroupResult> {
    let mut columns = Vec::new();
    for c in &g.columns {
        let rounds: Vec<RoundResult> = imported
            .iter()
            .filter(|i| i.column == c.id)
            .enumerate()
            .map(|(n, i)| round(n as u32 + 1, i))
            .collect();
        if rounds.is_empty() {
            continue;
        }
        let mut column: ColumnResult = c.empty_result(profile.path_values());
        column.rounds = rounds;
        columns.push(column);
    }
    if columns.is_empty() {
        return None;
    }
    Some(GroupResult {
        sweep: None,
        equal_load: None,
        id: g.id,
        title: g.title.to_owned(),
        load: match profile.load(g.id) {
            Some(l) => format!(
                "{} (profile {}), sent by {}",
                l.describe(),
                profile.name,
                tool_name(tool)
            ),
            None => format!("sent by {}", tool_name(tool)),
        },
        warm_up: "none (an imported run)".into(),
        columns,
        // A cold start needs a server bench starts itself, and so does
        // the idle group (its figures come from the server's /proc).
        cold_start: None,
        idle: None,
    })
}

fn round(n: u32, i: &Imported) -> RoundResult {
    let unmeasured = ServerStats::default();
    RoundResult {
        round: n,
        position: 0,
        load: i.load.clone(),
        background_load: None,
        server_process: i.watch.as_ref().map_or(unmeasured, |w| w.server_process),
        cpu: bench_model::CpuUse::default(),
        server_counted_requests: i.watch.as_ref().and_then(|w| w.server_counted_requests),
        machine_cpu_measured: false,
        not_measured: i.not_measured.iter().map(|s| s.to_string()).collect(),
        // `bench watch` keeps the process figures only, not the detector's.
        detector: None,
        step: None,
        postgres_proxy: None,
        jvm: None,
    }
}
