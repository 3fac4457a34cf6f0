//! The tables of `bench doc-tables` made from bench's code rather than a
//! saved run: what each profile sets and the load each group gets in it
//! (`profiles`, `loads`, from the profiles' own tables, [`super::profile`]),
//! every threshold of the findings (`thresholds`, from bench-model's
//! [`THRESHOLDS`]) and the main job's flags (`flags`, made by the command
//! line from its own help), so the docs cannot drift from the code.

use std::time::Duration;

use super::{doubling, profile, BurstConnect, GroupId, Load, Profile, PROFILE_NAMES};
use bench_model::THRESHOLDS;

fn all() -> Vec<Profile> {
    PROFILE_NAMES.iter().filter_map(|n| profile(n)).collect()
}

/// `n` with its thousands grouped: 10000 -> "10,000".
fn grouped(n: impl ToString) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "0.5 s", "250 ms", "10 s".
fn time(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs_f64())
    }
}

/// One load in a table cell.
fn brief(load: &Load) -> String {
    match load {
        Load::Burst {
            requests,
            connect: BurstConnect::First,
        } => format!(
            "burst of {} requests at once, connections opened first",
            grouped(requests)
        ),
        Load::Burst {
            requests,
            connect: BurstConnect::InRequest,
        } => format!(
            "burst of {} requests at once, the connect in each request (as JMeter)",
            grouped(requests)
        ),
        Load::Closed {
            connections,
            duration,
        } => format!("{connections} connections, {}", time(*duration)),
        Load::ClosedCount {
            connections,
            requests,
        } => format!("{connections} connections, {} requests", grouped(requests)),
        Load::Stages(stages) => {
            let s: Vec<String> = stages
                .iter()
                .map(|(d, n)| format!("{}:{n}", time(*d)))
                .collect();
            format!("stages {}", s.join(", "))
        }
        Load::Mixed {
            background,
            probe_rps,
            duration,
        } => format!(
            "{background} background connections, `/health` at {probe_rps} req/s, {}",
            time(*duration)
        ),
        Load::Idle(idle) => {
            let sizes: Vec<String> = idle.sizes.iter().map(grouped).collect();
            format!("{} idle connections", sizes.join(", then "))
        }
        Load::Sweep(sweep) => {
            let (first, last) = (sweep.steps[0], sweep.steps[sweep.steps.len() - 1]);
            let steps = if sweep.steps.len() > 3 && sweep.steps == doubling(first, last) {
                format!("{} to {}, doubling", grouped(first), grouped(last))
            } else {
                let s: Vec<String> = sweep.steps.iter().map(grouped).collect();
                s.join(", ")
            };
            let rounds = sweep.rounds.map_or(String::new(), |r| {
                format!(", {r} round{}", if r == 1 { "" } else { "s" })
            });
            format!(
                "{steps} connections; {} windows{rounds}",
                time(sweep.window)
            )
        }
    }
}

/// Every table made from the code, for bench-report's doc tables; `flags`
/// is the main job's flags' table, which the command line makes.
pub fn code_tables(flags: String) -> bench_report::doc_tables::CodeTables {
    bench_report::doc_tables::CodeTables {
        profiles: profiles(),
        loads: loads(),
        thresholds: thresholds(),
        flags,
    }
}

/// What each threshold means, in [`THRESHOLDS`]' order: the line it
/// draws, in a reader's words (every report prints the figures).
const MEANINGS: &[(&str, &str)] = &[
    ("margin", "the margin either side of every line"),
    ("offload_within", "\"close to blocking\": within this fraction of its throughput"),
    ("thread_fraction", "\"far fewer threads\": at most this fraction of blocking's peak"),
    ("mixed_p99_factor", "\"stalls everyone\": `/health` p99 at least this many times its p99 next to the non-blocking version"),
    ("quiet_other_cores", "a window is quiet when everything else used at most this share of one core"),
    ("cold_start_answer_within_ms", "a probed connection with no answer within this many milliseconds was starved"),
    ("cold_start_refute_starts", "clean cold starts of tiny_http needed to call its unfairness refuted"),
    ("detector_slow_poll_share", "timing flags a route with slow polls on at least this share of its polls"),
    ("detector_blocking_calls_per_poll", "the counter flags a route with at least this many blocking calls per poll"),
    ("idle_threads_per_connection", "\"a thread per idle connection\": at least this many above idle per connection"),
    ("idle_threads_allowance", "\"no threads for idle connections\": at most this many above idle"),
    ("sweep_cap_within", "the blocking plateau is \"at its cap\" within this fraction of Little's law's figure"),
    ("sweep_plateau_steps", "the plateau is the median over this many of the highest steps, when they agree within the margin (else the sweep is still rising, or falling, there)"),
    ("virtual_plateau_factor", "virtual threads \"pass the cap\": a plateau at least this many times it"),
    ("pool_bound_fraction", "the yielding driver \"reaches the pool\": this fraction of pool size / round trip"),
    ("carrier_cap_within", "the pinning driver \"caps at the carriers\": within this fraction of carriers / query time"),
    ("pinning_share_of_yielding", "... and at most this fraction of the yielding driver's throughput"),
    ("detector_blocking_calls_per_request", "the pinning detector's marks flag a route at this many blocking calls on a carrier per request"),
    ("detector_carrier_stalls_per_request", "its timing flags a route with carrier stalls on this share of its requests"),
    ("round_trips_within", "round trips per request \"two on sqlx, one on the others\" within this fraction of that"),
    ("pool_queue_within", "\"the pool is the queue\": within this fraction of pool / (round trips per request x delivered round trip)"),
    ("pipelined_over_blocking", "the pipelined driver \"passes the pool's bound\": at least this many times the blocking server"),
    ("pool_sweep_pipelined_within", "the pool sweep: two pipelined clients within this fraction of their best ..."),
    ("pool_sweep_small_pool_share", "... and each pooled driver below this fraction of its best at pool 2"),
    ("calibration_within", "a calibration \"matches\" a Java server within this fraction of its throughput, its failed requests above the Java server's by at most this share of the step's"),
    ("loom_carrier_cap_within", "Tomcat on virtual threads on Java 21 \"caps at the carriers\": within this fraction of carriers / the delivered round trip"),
    ("loom_pins_per_request", "... pinning at least this many times per `/users/{id}` request"),
    ("loom_unpinned_pins_per_request", "... and on Java 25 fewer than this many per request"),
];

/// Every threshold with its value and meaning.
fn thresholds() -> String {
    let values = serde_json::to_value(THRESHOLDS).unwrap_or_default();
    let mut out = String::from("| threshold | value | meaning |\n|---|---|---|\n");
    for (name, meaning) in MEANINGS {
        // 5, not 5.0: a whole number reads as one, whatever its type.
        let value = values
            .get(name)
            .and_then(serde_json::Value::as_f64)
            .map_or("?".to_owned(), |v| v.to_string());
        out.push_str(&format!("| `{name}` | {value} | {meaning} |\n"));
    }
    out
}

fn row(out: &mut String, head: &str, cells: impl Iterator<Item = String>) {
    let cells: Vec<String> = cells.collect();
    out.push_str(&format!("| {head} | {} |\n", cells.join(" | ")));
}

/// A table's head: the first cell (`first`, spaces included), then a
/// column per profile.
fn header(first: &str, all: &[Profile]) -> String {
    let names: Vec<String> = all.iter().map(|p| format!("`{}`", p.name)).collect();
    format!(
        "|{first}| {} |\n|---|{}\n",
        names.join(" | "),
        "---|".repeat(all.len())
    )
}

/// What each profile sets, a column per profile.
fn profiles() -> String {
    let all = all();
    let mut out = header(" ", &all);
    row(
        &mut out,
        "rounds per column",
        all.iter().map(|p| p.rounds.to_string()),
    );
    row(
        &mut out,
        "warm-up of timed loads",
        all.iter().map(|p| time(p.warm_up)),
    );
    row(
        &mut out,
        "cold starts per probed server",
        all.iter().map(|p| p.cold_start.cold_starts.to_string()),
    );
    row(
        &mut out,
        "`/cpu?n=` (stalls group)",
        all.iter()
            .map(|p| format!("{} ({})", grouped(p.cpu_n), grouped(p.stall_cpu_n))),
    );
    row(
        &mut out,
        "per-request timeout",
        all.iter().map(|p| time(p.timeout)),
    );
    out
}

/// The load of every group, a column per profile.
fn loads() -> String {
    let all = all();
    let mut out = header(" group ", &all);
    for group in GroupId::ALL {
        row(
            &mut out,
            &format!("`{}`", group.as_str()),
            all.iter()
                .map(|p| p.load(*group).map_or("not run".to_owned(), brief)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_times_read_as_the_docs_write_them() {
        for (n, words) in [(10_000, "10,000"), (200, "200"), (1_000_000, "1,000,000")] {
            assert_eq!(grouped(n), words);
        }
        for (ms, words) in [(500, "500 ms"), (2100, "2.1 s")] {
            assert_eq!(time(Duration::from_millis(ms)), words);
        }
    }

    #[test]
    fn every_threshold_has_a_row_with_its_value() {
        let values = serde_json::to_value(THRESHOLDS).unwrap();
        let names: Vec<&str> = MEANINGS.iter().map(|(n, _)| *n).collect();
        let mut fields: Vec<&str> = values
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed = names.clone();
        listed.sort_unstable();
        fields.sort_unstable();
        assert_eq!(
            listed, fields,
            "a threshold without a meaning, or a meaning of none"
        );
        let table = thresholds();
        assert!(table.contains("| `margin` | 0.05 | the margin"), "{table}");
        assert!(table.contains("| `calibration_within` | 0.05 |"), "{table}");
        assert!(!table.contains(" ? "), "{table}");
    }

    #[test]
    fn every_group_of_every_profile_has_a_cell() {
        let table = loads();
        assert_eq!(table.lines().count(), 2 + GroupId::ALL.len());
        assert!(!table.contains("| - |"), "{table}");
    }
}
