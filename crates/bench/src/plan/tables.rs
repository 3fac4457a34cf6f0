//! The `profiles` and `loads` tables of `bench doc-tables`: what each
//! profile sets and the load each group gets in it, made from the profiles'
//! own tables ([`super::profile`]), so the docs cannot drift from the code.

use std::time::Duration;

use super::{doubling, profile, GroupId, Load, Profile, PROFILE_NAMES};

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
        Load::Burst { requests } => format!("burst of {} requests at once", grouped(requests)),
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

/// Both tables, for bench-report's doc tables.
pub fn code_tables() -> bench_report::doc_tables::CodeTables {
    bench_report::doc_tables::CodeTables {
        profiles: profiles(),
        loads: loads(),
    }
}

fn row(out: &mut String, head: &str, cells: impl Iterator<Item = String>) {
    let cells: Vec<String> = cells.collect();
    out.push_str(&format!("| {head} | {} |\n", cells.join(" | ")));
}

/// What each profile sets, a column per profile.
fn profiles() -> String {
    let all = all();
    let mut out = String::from("| |");
    for p in &all {
        out.push_str(&format!(" `{}` |", p.name));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(all.len())));
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
    let mut out = String::from("| group |");
    for p in &all {
        out.push_str(&format!(" `{}` |", p.name));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(all.len())));
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
        assert_eq!(grouped(10_000), "10,000");
        assert_eq!(grouped(200), "200");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(time(Duration::from_millis(500)), "500 ms");
        assert_eq!(time(Duration::from_millis(2100)), "2.1 s");
    }

    #[test]
    fn every_group_of_every_profile_has_a_cell() {
        let table = loads();
        assert_eq!(table.lines().count(), 2 + GroupId::ALL.len());
        assert!(!table.contains("| - |"), "{table}");
    }
}
