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

use std::path::Path;

use crate::headline::{counts_words, split, DESIGN_CHECKS, PREDICTIONS};
use crate::idle_table::idle_table;
use crate::markdown::render_table;
use crate::sweep_table::sweep_tables;
use crate::table::compact_table;
use bench_model::SavedRun;
use bench_model::Spread;
use bench_model::{ColumnId, Finding, GroupId};
use bench_model::{GroupResult, IdleCell, IdleServer};

/// The table `spec` ("KIND [PATH] [GROUP]") names, in Markdown.
pub(super) fn make(spec: &str, root: &Path, code: &super::CodeTables) -> Result<String, String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    let run = |i: usize| -> Result<SavedRun, String> {
        let path = words.get(i).ok_or("no results.json named")?;
        crate::saved::read(&root.join(path))
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
            Ok(glance(&run, &run.findings, words[1], root))
        }
        Some("glance-rejudged") => {
            let run = run(1)?;
            let findings = bench_analysis::findings::check(&run.results, &run.thresholds);
            Ok(glance(&run, &findings, words[1], root))
        }
        Some("kinds") => Ok(kinds()),
        Some("models") => Ok(models(&run(1)?)),
        Some("runs") => runs(root),
        Some("profiles") => Ok(code.profiles.clone()),
        Some("loads") => Ok(code.loads.clone()),
        Some("thresholds") => Ok(code.thresholds.clone()),
        Some("flags") => Ok(code.flags.clone()),
        Some("group") => {
            let run = run(1)?;
            let g = find_group(&run, group(2)?)?;
            Ok(render_table(&compact_table(g)))
        }
        Some("sweep") => {
            let run = run(1)?;
            let g = find_group(&run, group(2)?)?;
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
            "unknown kind; expected findings, findings-rejudged, glance, glance-rejudged, kinds, models, runs, group, sweep, idle, profiles, loads, thresholds or flags"
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
fn glance(run: &SavedRun, findings: &[Finding], path: &str, root: &Path) -> String {
    let (predictions, checks) = split(findings);
    let report = path
        .strip_suffix("results.json")
        .map(|dir| format!("{dir}report.md"))
        .filter(|r| root.join(r).is_file());
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

fn runs(root: &Path) -> Result<String, String> {
    let dir = root.join("docs/results");
    let mut folders: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("results.json").is_file())
        .collect();
    folders.sort();
    let mut out = String::from("| run | started | commit | machine | profile, groups | verdicts | CPU split |\n|---|---|---|---|---|---|---|\n");
    for folder in folders {
        let run = crate::saved::read(&folder.join("results.json"))?;
        let r = &run.results;
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
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
            verdict_counts(&run),
            md(&r.cpu_split_words())
        ));
    }
    Ok(out)
}

/// A server's median threads and KiB above idle per connection with
/// `size` idle connections open.
fn per_connection(server: &IdleServer, size: usize) -> Option<(f64, f64)> {
    let IdleCell::Measured(steps) = server.cell(size) else {
        return None;
    };
    let threads = Spread::of(
        steps
            .iter()
            .filter_map(|(r, s)| s.threads_per_connection(&r.idle)),
    )?;
    let kib = Spread::of(
        steps
            .iter()
            .filter_map(|(r, s)| s.kib_per_connection(&r.idle)),
    )?;
    Some((threads.median, kib.median))
}

/// The models side by side: what a waiting request holds and when each is
/// the choice are this project's reading; the threads and memory per idle
/// connection are the run's (its idle group at its largest size each opened).
fn models(run: &SavedRun) -> String {
    let idle = run.results.groups.iter().find_map(|g| g.idle.as_ref());
    let figures = |id: ColumnId| -> String {
        let Some(idle) = idle else {
            return "not measured".to_owned();
        };
        let Some(server) = idle.servers.iter().find(|s| s.id == id) else {
            return "not measured".to_owned();
        };
        let Some(size) = server.largest_measured(&idle.sizes) else {
            return "not measured".to_owned();
        };
        match per_connection(server, size) {
            Some((threads, kib)) => format!("{threads:.2} threads, {kib:.1} KiB (at {size} open)"),
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
