//! Command lines and the plans they must produce, as a table: each line
//! of the profile and the flags, and what the run will then do, group by
//! group (rounds, warm-up, how far Postgres and Redis are, the cold-start
//! probe), with the run-wide leads and what is skipped and why.

use std::fmt::Write as _;
use std::time::Duration;

use clap::Parser;

use super::Cli;
use crate::plan::{Load, Network, RunPlan};

/// The plan of `line` (bench's flags), or what is wrong with them.
fn plan(line: &str) -> Result<RunPlan, String> {
    let cli = Cli::try_parse_from(std::iter::once("bench").chain(line.split_whitespace()))
        .map_err(|e| e.to_string())?;
    RunPlan::new(&cli.run.request())
}

fn ms(d: Duration) -> String {
    format!("{d:?}")
}

/// The plan in the table's words: a line per group, then the run-wide
/// warm-ups, then each skip's first words.
fn summary(plan: &RunPlan) -> String {
    let mut out = String::new();
    for g in &plan.groups {
        let warm_up = match (&g.load, g.warm_up) {
            (Load::Sweep(sweep), _) => format!("step lead {}", ms(sweep.warm_up)),
            (Load::Idle(_), _) => "probe first".to_owned(),
            (Load::Mixed { .. }, _) => "lead".to_owned(),
            (_, None) => "cold".to_owned(),
            (_, Some(d)) => format!("warm-up {}", ms(d)),
        };
        let network = match g.group.network {
            Network::Local => String::new(),
            Network::RoundTrip(d) => format!(", {} away", ms(d)),
        };
        let probe = g.cold_start.map_or(String::new(), |p| {
            format!(", {} cold starts", p.cold_starts)
        });
        let _ = writeln!(
            out,
            "{}: {} rounds, {warm_up}{network}{probe}",
            g.group.id, g.rounds
        );
    }
    let _ = writeln!(
        out,
        "mixed lead {}, jvm {}, rounds {}",
        ms(plan.load.mixed_lead),
        plan.load.jvm_warm_up.map_or("none".to_owned(), |w| format!(
            "{} to {} (planned {})",
            ms(w.window),
            ms(w.limit),
            ms(w.expected)
        )),
        plan.settings.rounds
    );
    for s in &plan.skipped {
        let words: Vec<&str> = s.reason.split_whitespace().take(6).collect();
        let _ = writeln!(out, "skipped {}: {}", s.group, words.join(" "));
    }
    out
}

/// (command line, the plan's summary).
const CASES: &[(&str, &str)] = &[
    (
        "--groups cpu,mixed,baseline,sweep-posts,idle,remote-db,pool-sweep",
        "cpu: 3 rounds, warm-up 70ms
baseline: 3 rounds, warm-up 70ms, 3 cold starts
mixed: 3 rounds, lead
idle: 3 rounds, probe first
sweep-posts: 1 rounds, step lead 120ms
remote-db: 3 rounds, warm-up 70ms, 2ms away
mixed lead 100ms, jvm 300ms to 3s (planned 3s), rounds 3
skipped pool-sweep: the quick profile does not run",
    ),
    (
        "--cold --groups cpu,mixed,baseline,sweep-users,calibration-health",
        "cpu: 3 rounds, cold
baseline: 3 rounds, cold, 3 cold starts
mixed: 3 rounds, lead
sweep-users: 1 rounds, step lead 0ns
calibration-health: 3 rounds, cold
mixed lead 100ms, jvm none, rounds 3
",
    ),
    (
        "--warm-up 1s --rounds 5 --groups database,sweep-posts,calibration-posts",
        "database: 5 rounds, warm-up 1s
sweep-posts: 5 rounds, step lead 120ms
calibration-posts: 5 rounds, step lead 120ms
mixed lead 1s, jvm 300ms to 3s (planned 3s), rounds 5
",
    ),
    (
        "--warm-up 20ms --groups mixed",
        "mixed: 3 rounds, lead
mixed lead 100ms, jvm 300ms to 3s (planned 3s), rounds 3
",
    ),
    (
        "--profile seed --groups cache,stalls,remote-mixed,pool-sweep,sweep-posts --db-latency 500us",
        "cache: 3 rounds, warm-up 1s
stalls: 3 rounds, warm-up 1s, 10ms away
sweep-posts: 3 rounds, step lead 1s
remote-mixed: 3 rounds, lead, 500µs away
pool-sweep: 3 rounds, warm-up 1s, 500µs away
mixed lead 1s, jvm 1s to 30s (planned 14s), rounds 3
",
    ),
    (
        "--profile seed --cold --rounds 2 --cold-starts 0 --groups baseline,pool-sweep,calibration-posts",
        "baseline: 2 rounds, cold
pool-sweep: 2 rounds, cold, 2ms away
calibration-posts: 2 rounds, step lead 0ns
mixed lead 100ms, jvm none, rounds 2
",
    ),
    (
        "--profile tiny --cold-starts 3 --groups baseline,calibration,idle",
        "baseline: 2 rounds, warm-up 100ms, 3 cold starts
idle: 2 rounds, probe first
calibration-health: 2 rounds, warm-up 100ms
calibration-posts: 2 rounds, step lead 100ms
calibration-users: 2 rounds, warm-up 100ms
calibration-loom: 2 rounds, warm-up 100ms, 2ms away
mixed lead 100ms, jvm 100ms to 600ms (planned 600ms), rounds 2
",
    ),
    (
        "--profile tiny --blocking-url http://127.0.0.1:1 --groups baseline,remote-mixed,json",
        "baseline: 2 rounds, warm-up 100ms, 1 cold starts
json: 2 rounds, warm-up 100ms
remote-mixed: 2 rounds, lead, 2ms away
mixed lead 100ms, jvm 100ms to 600ms (planned 600ms), rounds 2
skipped baseline / blocking-health-tiny-http: it measures the blocking server started
skipped baseline / virtual-health: it measures the blocking server started
skipped json / virtual-echo: it measures the blocking server started
skipped remote-mixed / virtual-pinning-health-next-to-users-remote: its server reaches Postgres and Redis
skipped remote-mixed / virtual-yielding-health-next-to-users-remote: its server reaches Postgres and Redis
",
    ),
];

#[test]
fn each_command_line_makes_its_plan() {
    for (line, expected) in CASES {
        let plan = plan(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let expected = format!("{}\n", expected.trim_end());
        assert_eq!(summary(&plan), expected, "bench {line}");
    }
}

#[test]
fn every_column_gets_the_run_sizes_then_its_mode_then_its_own_flags() {
    let plan =
        plan("--pool-size 7 --handler-threads 50 --worker-threads 3 --groups database").unwrap();
    let args = |id: &str| {
        let columns = plan.groups.iter().flat_map(|g| &g.group.columns);
        let c = columns.into_iter().find(|c| c.id.as_str() == id).unwrap();
        plan.servers.args_of(c).join(" ")
    };
    let pools = "--db-pool-size 7 --redis-pool-size 7";
    assert_eq!(
        args("blocking-users"),
        format!("{pools} --handler-threads 50")
    );
    assert_eq!(
        args("blocking-users-tiny-http"),
        format!("{pools} --handler-threads 50 --connector tiny-http")
    );
    assert_eq!(
        args("async-users-deadpool"),
        format!("{pools} --worker-threads 3 --postgres-driver deadpool")
    );
    let cores = server_settings::cores();
    assert_eq!(
        args("virtual-yielding-users"),
        format!(
            "{pools} --handler-threads 50 --carriers {cores} --threads virtual --driver yielding"
        )
    );
    let s = &plan.settings;
    assert_eq!((s.db_pool_size, s.blocking_handler_threads), (7, 50));
    assert_eq!(s.async_worker_threads, 3);
}

#[test]
fn a_bad_flag_value_is_one_line_naming_it() {
    for (line, says) in [
        ("--profile huge", "unknown profile \"huge\""),
        ("--groups cpu,gpu", "unknown group \"gpu\""),
        (
            "--connections 0",
            "--requests and --connections must be at least 1",
        ),
        (
            "--idle-connections 0",
            "--idle-connections must be counts of at least 1",
        ),
    ] {
        let e = plan(line).unwrap_err();
        assert!(e.contains(says) && !e.contains('\n'), "{line}: {e}");
    }
}
