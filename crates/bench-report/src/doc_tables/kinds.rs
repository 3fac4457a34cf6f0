//! The kinds of generated table, most a function of one saved run:
//!
//! - `findings PATH`: every finding as saved, its verdict, claim and
//!   evidence (whole, or the short evidence the finding gives for a table;
//!   never cut), the predictions counted and the design checks apart;
//! - `findings-rejudged PATH`: the same, the findings judged again by this
//!   build from the run's saved rounds, with the thresholds it saved;
//! - `glance PATH`: the run at a glance (which model for which workload,
//!   what goes wrong), with the predictions counted, its verdicts as saved;
//! - `glance-rejudged PATH`: the same, the findings judged again by this
//!   build (each workload links to its section of the report.md beside
//!   the run, relative to the workspace root, where README.md is);
//! - `summary PATH`: what the run found, in sentences whose every claim is
//!   the run's ([`super::summary`]), its verdicts as saved;
//! - `kinds`: every finding of this build, its kind and why;
//! - `models PATH`: the models side by side, with the run's threads and
//!   memory per idle connection (its idle group);
//! - `runs`: every saved run under docs/results, its date, commit, machine,
//!   profile and verdicts;
//! - `group PATH GROUP`: a group's compact table;
//! - `sweep PATH GROUP`: a sweep's throughput and latency per step;
//! - `idle PATH`: the idle group's table;
//! - `profiles` and `loads`: what each profile sets, and each group's load
//!   in it; `thresholds` and `flags`: every threshold, and the main job's
//!   flags; all four from bench's code ([`super::CodeTables`]).

use crate::headline::{counts_words, split, DESIGN_CHECKS, PREDICTIONS};
use crate::idle_table::idle_table;
use crate::markdown::render_table;
use crate::sweep_table::sweep_tables;
use crate::table::compact_table;
use bench_model::GroupResult;
use bench_model::SavedRun;
use bench_model::{ColumnId, Finding, GroupId};

use super::{CodeTables, Sources};

/// The kinds whose second word is the results.json they are made of.
const OF_A_RUN: &[&str] = &[
    "findings",
    "findings-rejudged",
    "glance",
    "glance-rejudged",
    "summary",
    "models",
    "group",
    "sweep",
    "idle",
];

/// The results.json `spec` names, for a kind made of one.
pub(super) fn run_path(spec: &str) -> Option<&str> {
    let mut words = spec.split_whitespace();
    let kind = words.next()?;
    OF_A_RUN.contains(&kind).then(|| words.next()).flatten()
}

/// Whether `spec` is the table of every saved run.
pub(super) fn wants_saved_runs(spec: &str) -> bool {
    spec.split_whitespace().next() == Some("runs")
}

/// The report.md beside a run's results.json, which a glance of the run
/// links to where it exists.
pub fn report_beside(results_json: &str) -> Option<String> {
    results_json
        .strip_suffix("results.json")
        .map(|dir| format!("{dir}report.md"))
}

/// The table `spec` ("KIND [PATH] [GROUP]") names, in Markdown.
pub(super) fn make(spec: &str, sources: &Sources, code: &CodeTables) -> Result<String, String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    let run = |i: usize| -> Result<&SavedRun, String> {
        let path = words.get(i).ok_or("no results.json named")?;
        match sources.runs.get(*path) {
            Some(Ok(run)) => Ok(run),
            Some(Err(e)) => Err(e.clone()),
            None => Err(format!("{path} was not read")),
        }
    };
    let group = |i: usize| -> Result<GroupId, String> {
        let name = words.get(i).ok_or("no group named")?;
        GroupId::parse(name).ok_or_else(|| format!("unknown group {name:?}"))
    };
    match words.first().copied() {
        Some("findings") => Ok(findings(&run(1)?.findings)),
        Some("findings-rejudged") => {
            let run = run(1)?;
            Ok(findings(&bench_analysis::findings::check(
                &run.results,
                &run.thresholds,
            )))
        }
        Some("glance") => {
            let run = run(1)?;
            Ok(glance(run, &run.findings, words[1], sources))
        }
        Some("glance-rejudged") => {
            let run = run(1)?;
            let findings = bench_analysis::findings::check(&run.results, &run.thresholds);
            Ok(glance(run, &findings, words[1], sources))
        }
        Some("summary") => {
            let run = run(1)?;
            Ok(super::summary::summary(run, &run.findings))
        }
        Some("kinds") => Ok(kinds()),
        Some("models") => Ok(models(run(1)?)),
        Some("runs") => runs(sources),
        Some("profiles") => Ok(code.profiles.clone()),
        Some("loads") => Ok(code.loads.clone()),
        Some("thresholds") => Ok(code.thresholds.clone()),
        Some("flags") => Ok(code.flags.clone()),
        Some("group") => {
            let run = run(1)?;
            let g = find_group(run, group(2)?)?;
            Ok(render_table(&compact_table(g)))
        }
        Some("sweep") => {
            let run = run(1)?;
            let g = find_group(run, group(2)?)?;
            let tables: Vec<String> = sweep_tables(g)
                .into_iter()
                .take(2)
                .map(|(title, t)| format!("{title}:\n\n{}", render_table(&t)))
                .collect();
            Ok(tables.join("\n"))
        }
        Some("idle") => {
            let run = run(1)?;
            let idle = run
                .results
                .groups
                .iter()
                .find_map(|g| g.idle.as_ref())
                .ok_or("the run has no idle group")?;
            Ok(render_table(&idle_table(idle)))
        }
        _ => Err(
            "unknown kind; expected findings, findings-rejudged, glance, glance-rejudged, summary, kinds, models, runs, group, sweep, idle, profiles, loads, thresholds or flags"
                .to_owned(),
        ),
    }
}

/// The group `id` of a saved run.
fn find_group(run: &SavedRun, id: GroupId) -> Result<&GroupResult, String> {
    run.results
        .groups
        .iter()
        .find(|g| g.id == id)
        .ok_or_else(|| "the run has no such group".to_owned())
}

fn md(cell: &str) -> String {
    cell.replace('|', "\\|")
}

/// One table of findings: verdict, claim, evidence whole (or the short
/// evidence made for tables).
fn findings_table(findings: &[&Finding]) -> String {
    let mut out = String::from("| verdict | claim | evidence |\n|---|---|---|\n");
    for f in findings {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            f.verdict.word(),
            md(&f.claim),
            md(f.table_evidence())
        ));
    }
    out
}

/// The predictions counted and tabled, then the design checks apart.
fn findings(all: &[Finding]) -> String {
    let (predictions, checks) = split(all);
    let mut out = format!(
        "**{PREDICTIONS}**: {}.\n\n{}",
        counts_words(&predictions),
        findings_table(&predictions)
    );
    if !checks.is_empty() {
        out.push_str(&format!(
            "\n**{DESIGN_CHECKS}** (design checks, not counted above): {}.\n\n{}",
            counts_words(&checks),
            findings_table(&checks)
        ));
    }
    out
}

/// The run at a glance with `findings`' verdicts: the predictions counted,
/// then the matrix; a workload links to the report.md beside `path` when
/// there is one.
fn glance(run: &SavedRun, findings: &[Finding], path: &str, sources: &Sources) -> String {
    let (predictions, checks) = split(findings);
    let report = report_beside(path).filter(|r| sources.reports.contains(r));
    let g = crate::glance::build(&run.results, findings, &run.thresholds);
    format!(
        "**{PREDICTIONS}**: {}; design checks apart: {}.\n\n{}",
        counts_words(&predictions),
        counts_words(&checks),
        crate::glance::markdown::render(&g, report.as_deref())
    )
}

/// Every finding of this build with its kind and why.
fn kinds() -> String {
    let mut out = String::from("| id | kind | why |\n|---|---|---|\n");
    for (id, kind, why) in bench_analysis::findings::kinds() {
        out.push_str(&format!("| `{id}` | {} | {} |\n", kind.words(), md(why)));
    }
    out
}

/// "predictions 8 HELD, 2 NOT HELD; design checks 10 HELD".
fn verdict_counts(run: &SavedRun) -> String {
    let (predictions, checks) = split(&run.findings);
    let mut out = format!("predictions {}", counts_words(&predictions));
    if !checks.is_empty() {
        out.push_str(&format!("; design checks {}", counts_words(&checks)));
    }
    out
}

fn runs(sources: &Sources) -> Result<String, String> {
    let saved = match &sources.saved_runs {
        Some(Ok(saved)) => saved,
        Some(Err(e)) => return Err(e.clone()),
        None => return Err("the saved runs were not read".to_owned()),
    };
    let mut out = String::from("| run | started | commit | machine | profile, groups | verdicts | CPU split |\n|---|---|---|---|---|---|---|\n");
    for (name, run) in saved {
        let r = &run.results;
        let commit = r.source.as_ref().map_or("not recorded".to_owned(), |s| {
            format!(
                "`{}`{}",
                &s.commit[..s.commit.len().min(12)],
                if s.uncommitted_changes {
                    " (with changes)"
                } else {
                    ""
                }
            )
        });
        let groups: Vec<String> = r.groups.iter().map(|g| g.id.to_string()).collect();
        out.push_str(&format!(
            "| [{name}]({name}/) | {} | {commit} | {} cores, {} | {}: {} | {} | {} |\n",
            r.started_at,
            r.machine.cores,
            md(&r.machine.cpu_model),
            r.settings.profile,
            groups.join(", "),
            verdict_counts(run),
            md(&r.cpu_split_words())
        ));
    }
    Ok(out)
}

/// The models side by side: what a waiting request holds and when each is
/// the choice are this project's reading; the threads and memory per idle
/// connection are the run's (its idle group at its largest size each opened).
fn models(run: &SavedRun) -> String {
    let idle = run.results.groups.iter().find_map(|g| g.idle.as_ref());
    // The glance's figures of an idle server: KiB (its main figure) and
    // threads per connection at the largest size it opened.
    let figures = |id: ColumnId| -> String {
        let measure = idle.and_then(|idle| {
            let server = idle.servers.iter().find(|s| s.id == id)?;
            crate::glance::measure::of_idle(server, &idle.sizes)
        });
        match measure.and_then(|m| Some((m.threads_per_connection?, m.main.median, m.open?))) {
            Some((threads, kib, size)) => {
                format!("{threads:.2} threads, {kib:.1} KiB (at {size} open)")
            }
            None => "not measured".to_owned(),
        }
    };
    let rows = [
        (
            "Thread per request (`blocking-server`, Tomcat's shape)",
            "a handler thread, blocked in the call",
            "fixed: 200 handler threads",
            figures(ColumnId::BlockingIdle),
            "short waits, blocking libraries, fewer concurrent requests than threads",
        ),
        (
            "Thread per connection (tiny_http, the design card's)",
            "its connection's reader thread, and a handler thread",
            "one per open connection",
            figures(ColumnId::BlockingIdleTinyHttp),
            "not for many clients: idle connections cost threads, bursts starve",
        ),
        (
            "Event loop (`async-server`, WebFlux's shape)",
            "nothing but its future's state: the worker serves others",
            "one per core (2 here)",
            figures(ColumnId::AsyncIdle),
            "long or many waits (slow downstreams, many connections); never block its workers",
        ),
        (
            "Virtual threads (`blocking-server --threads virtual`, Loom's shape)",
            "its coroutine's stack, parked: the carrier serves others; a driver that pins holds the carrier instead",
            "one carrier per core (2 here)",
            figures(ColumnId::VirtualIdle),
            "many waits in blocking-style code, with a driver that yields; never with one that pins",
        ),
    ];
    let mut out = String::from("| model | what a waiting request holds | threads | per idle keep-alive connection | when it is the choice |\n|---|---|---|---|---|\n");
    for (model, holds, threads, idle, when) in rows {
        out.push_str(&format!(
            "| {model} | {holds} | {threads} | {idle} | {when} |\n"
        ));
    }
    out
}
