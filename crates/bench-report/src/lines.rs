//! The sentences every printer of a run shares, around its tables: the
//! machine, the settings, whether the machine was quiet, the columns that
//! failed, a group's load and warm-up, a sweep's steps and cap, the
//! cold-start probe's heading.

use bench_analysis::findings::busy_windows;

use bench_model::RunResults;
use bench_model::Thresholds;

/// "2 cores, AMD EPYC, 23.5 GiB memory, Linux 6.x"
pub fn machine_line(results: &RunResults) -> String {
    let m = &results.machine;
    format!(
        "{} cores, {}, {:.1} GiB memory, {}, load average {:.2} at start (not a quietness signal: the blocking server's own threads raise it)",
        m.cores,
        m.cpu_model,
        m.memory_bytes as f64 / (1024.0 * 1024.0 * 1024.0),
        m.os,
        m.load_average_at_start
    )
}

/// Every setting that shapes the figures, in one sentence.
pub fn settings_line(results: &RunResults) -> String {
    let s = &results.settings;
    if s.measured_by.is_some() {
        // An import: the servers' sizes and bench's load generator are not in
        // the tool's output, so only what is known is said.
        return format!(
            "profile {} (imported), {} round{} per column; /cpu n = {}; servers: {}",
            s.profile,
            s.rounds,
            if s.rounds == 1 { "" } else { "s" },
            s.cpu_n,
            s.targets
        ) + &provenance(s);
    }
    let fresh = if s.blocking_url.is_some() && s.async_url.is_some() {
        ", on the servers given by URL"
    } else {
        ", each on a fresh server process"
    };
    let blocking = match &s.blocking_url {
        Some(url) => format!("blocking: the server at {url}, its settings not known to bench"),
        None => format!(
            "blocking: {} handler threads{}",
            s.blocking_handler_threads,
            match s.blocking_redis_client.as_deref() {
                Some(client) => format!(", Redis client {client}"),
                None => String::new(),
            }
        ),
    };
    let asynchronous = match &s.async_url {
        Some(url) => format!("async: the server at {url}, its settings not known to bench"),
        None => format!(
            "async: {} workers, {} blocking threads, {} rayon threads",
            s.async_worker_threads, s.async_blocking_threads, s.async_rayon_threads
        ),
    };
    let pools = match (&s.blocking_url, &s.async_url) {
        (Some(_), Some(_)) => String::new(),
        (None, None) => format!(
            "; pools: Postgres {}, Redis {}",
            s.db_pool_size, s.redis_pool_size
        ),
        _ => format!(
            "; pools of the server bench started: Postgres {}, Redis {}",
            s.db_pool_size, s.redis_pool_size
        ),
    };
    format!(
        "profile {}{}, {} round{} per column{fresh}; {blocking}; {asynchronous}{pools}; load generator: {} threads; /cpu n = {}; servers: {}",
        s.profile,
        if s.cold_start == Some(true) { " (cold start: no warm-up)" } else { "" },
        s.rounds,
        if s.rounds == 1 { "" } else { "s" },
        s.loadgen_threads,
        s.cpu_n,
        s.targets
    ) + &provenance(s)
}

/// "; load sent and measured by locust 2.47.0; server rows from /metrics",
/// the JVM of the calibration servers when the run had any, or nothing for
/// a native run on servers bench started.
fn provenance(s: &bench_model::RunSettings) -> String {
    let mut out = String::new();
    if let Some(tool) = &s.measured_by {
        out.push_str(&format!("; load sent and measured by {tool}"));
    }
    if let Some(from) = &s.server_figures_from {
        out.push_str(&format!("; server rows from {from}"));
    }
    if let Some(jvm) = &s.jvm {
        out.push_str(&format!("; calibration servers on {}", jvm.words()));
    }
    out
}

/// Whether the machine was quiet while the run measured: a headline, and
/// the windows that were not (column and round), for a printer to list.
pub struct Quiet {
    pub headline: String,
    pub affected: Vec<String>,
}

/// Whether every measured window was quiet: what "quiet" means, and, when
/// it was not, how many windows were disturbed and which.
pub fn quiet(results: &RunResults, t: &Thresholds) -> Quiet {
    let busy = busy_windows(results, t);
    let windows = results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .any(|c| !c.rounds.is_empty());
    if !windows {
        // The idle group's rounds have no load window and no CPU accounting.
        return Quiet {
            headline: "Whether the machine was quiet was not checked: no load window was measured in this run.".to_owned(),
            affected: Vec::new(),
        };
    }
    let host = busy_host(results, t) + &cpu_split_sentence(results);
    if busy.is_empty() {
        return Quiet {
            headline: format!(
                "The machine was quiet: in every measured window, programs other than the server, bench, Postgres and Redis used at most {:.0}% of one core.{host}",
                t.quiet_other_cores * 100.0
            ),
            affected: Vec::new(),
        };
    }
    let worst = busy.iter().map(|b| b.2).fold(0.0, f64::max);
    let mut affected: Vec<String> = Vec::new();
    for (id, round, _) in &busy {
        let entry = format!("{id} (round {round})");
        if !affected.contains(&entry) {
            affected.push(entry);
        }
    }
    Quiet {
        headline: format!(
            "WARNING: the machine was not quiet: other programs used more than {:.0}% of one core (up to {:.0}%) in {} of the measured windows. Figures of those columns include the interference.{host}",
            t.quiet_other_cores * 100.0,
            worst * 100.0,
            busy.len()
        ),
        affected,
    }
}

/// How the windows' CPU was split, and whether the named parts added up
/// to at most the machine's busy time in every window (two ticks per part
/// allowed for the instants they were read), as a sentence or two after a
/// space; nothing for a run whose CPU no window split (an import).
pub fn cpu_split_sentence(results: &RunResults) -> String {
    let rounds: Vec<(&bench_model::ColumnResult, &bench_model::RoundResult)> = results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .flat_map(|c| c.rounds.iter().map(move |r| (c, r)))
        .filter(|(_, r)| r.machine_cpu_measured && r.cpu.window_seconds > 0.0)
        .collect();
    if rounds.is_empty() {
        return String::new();
    }
    let split = format!(" CPU split: {}.", results.cpu_split_words());
    let with_ticks: Vec<_> = rounds
        .iter()
        .filter_map(|(c, r)| Some((c, r, r.cpu.ticks?)))
        .collect();
    if with_ticks.is_empty() {
        return split
            + " The windows' ticks were not saved, so whether the parts add up cannot be checked.";
    }
    let over: Vec<String> = with_ticks
        .iter()
        .filter_map(|(c, r, t)| {
            let by = t.excess()?;
            let step = r.step.map_or(String::new(), |s| {
                format!(", {} connections", s.connections)
            });
            Some(format!(
                "{} (round {}{step}: {} ticks in the parts but steal, of {} busy, {by} beyond the allowance)",
                c.id,
                r.round,
                t.in_busy(),
                t.busy
            ))
        })
        .collect();
    if over.is_empty() {
        split + &format!(
            " In every one of the {} windows the named parts but steal (which can fall in idle time) summed to at most the machine's busy time (two ticks per part allowed).",
            with_ticks.len()
        )
    } else {
        split + &format!(
            " WARNING: in {} of {} windows the named parts but steal summed to more than the machine's busy time (two ticks per part allowed): {}.",
            over.len(),
            with_ticks.len(),
            over.join(", ")
        )
    }
}

/// A sentence on the host when the hypervisor took more than the quiet
/// line from this machine in some window (steal: every process of the
/// machine waited alike, so it is not counted as another program), or
/// nothing.
fn busy_host(results: &RunResults, t: &Thresholds) -> String {
    let mut stolen: Vec<f64> = results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .flat_map(|c| &c.rounds)
        .filter(|r| r.cpu.window_seconds > 0.0)
        .map(|r| r.cpu.stolen_cores())
        .collect();
    stolen.sort_by(f64::total_cmp);
    let (Some(&worst), Some(&median)) = (stolen.last(), stolen.get(stolen.len() / 2)) else {
        return String::new();
    };
    if worst <= t.quiet_other_cores {
        return String::new();
    }
    format!(
        " The host was busy: the hypervisor took up to {:.0}% of one core from this virtual machine in a window ({:.0}% in the median window), time in which none of its processes ran.",
        worst * 100.0,
        median * 100.0
    )
}

/// [`quiet`] in one sentence, the affected windows listed in it.
pub fn quiet_line(results: &RunResults, t: &Thresholds) -> String {
    let q = quiet(results, t);
    if q.affected.is_empty() {
        return q.headline;
    }
    q.headline.replacen(
        " windows. Figures",
        &format!(" windows; affected: {}. Figures", q.affected.join(", ")),
        1,
    )
}

/// One line per column that failed, with its cause.
pub fn failure_lines(results: &RunResults) -> Vec<String> {
    results
        .groups
        .iter()
        .flat_map(|g| &g.columns)
        .filter_map(|c| {
            c.failure
                .as_ref()
                .map(|f| format!("{} ({}) failed: {f}", c.label, c.id))
        })
        .collect()
}

/// The heading of a group's cold-start probe table.
pub fn cold_start_line(probe: &bench_model::ColdStartResult) -> String {
    format!(
        "Cold-start fairness probe: on each freshly started server, {} keep-alive connections opened at once, each sending GET /health in a loop until every connection has had an answer ({:.1} s at the most; a connection never answered counts as that long).",
        probe.connections,
        probe.run_for_ms / 1000.0
    )
}

/// "Load: ... Warm-up: ..." for a group heading.
pub fn group_load_line(g: &bench_model::GroupResult) -> String {
    format!(
        "Load: {}. Warm-up before each measured window: {}.",
        g.load, g.warm_up
    )
}

/// A sweep group's lines under its heading: rounds and steps, the cap (or
/// why there is none), the steps that needed a fresh server; `None` for
/// other groups.
pub fn sweep_lines(g: &bench_model::GroupResult) -> Option<Vec<String>> {
    let info = g.sweep.as_ref()?;
    let mut lines = vec![
        format!(
            "{} round{} per column, each a fresh server taking the steps in ascending order; per step {} s unrecorded on the same connections, then {} s measured.",
            info.rounds,
            if info.rounds == 1 { "" } else { "s" },
            info.warm_up_seconds,
            info.window_seconds
        ),
        format!("{}.", info.cap_note),
    ];
    lines.extend(crate::jvm_cells::sweep_lines(g));
    let fresh = crate::sweep_table::sweep_fresh_servers(g);
    if !fresh.is_empty() {
        lines.push(format!(
            "Steps on a fresh server (the one before was not idle within the settle time): {}.",
            fresh.join("; ")
        ));
    }
    Some(lines)
}
