//! What differs between two runs besides the code: each a reason a change
//! of figures or verdicts may not be the change the reader made. The
//! machine (cores, CPU model, memory, kernel), the profile, every other
//! setting that shapes the figures, the thresholds the findings were
//! judged with, and a run stopped before its end. The source commits are
//! not here: a different commit is usually the point of comparing, so the
//! labels show them instead ([`super::RunLabel`]).

use bench_model::SavedRun;
use bench_model::{Machine, RunResults};

/// Every warning for comparing `old` with `new`, one line each.
pub fn warnings(old: &SavedRun, new: &SavedRun) -> Vec<String> {
    let (o, n) = (&old.results, &new.results);
    let mut out = Vec::new();
    let machine = machine_differences(&o.machine, &n.machine);
    if !machine.is_empty() {
        out.push(format!("the machine differs: {}", machine.join("; ")));
    }
    if o.settings.profile != n.settings.profile {
        out.push(format!(
            "the profile differs: {} -> {}",
            o.settings.profile, n.settings.profile
        ));
    }
    let settings = field_differences(&o.settings, &n.settings, &["profile"]);
    if !settings.is_empty() {
        out.push(format!("the settings differ: {}", settings.join("; ")));
    }
    let thresholds = field_differences(&old.thresholds, &new.thresholds, &[]);
    if !thresholds.is_empty() {
        out.push(format!(
            "the findings were judged with different thresholds: {}",
            thresholds.join("; ")
        ));
    }
    for (side, r) in [("OLD", o), ("NEW", n)] {
        if r.interrupted {
            out.push(interrupted(side, r));
        }
    }
    out
}

fn interrupted(side: &str, r: &RunResults) -> String {
    format!(
        "the {side} run was interrupted before its last column (started {}): what it did not measure is missing or NOT MEASURED",
        r.started_at
    )
}

/// "CPU model AMD EPYC -> Intel Xeon", one per differing part. Memory is
/// compared as the report prints it, to 0.1 GiB: the kernel's total moves
/// by some KiB between boots of the same machine. The load average is not
/// compared: it says nothing about the machine (see [`Machine`]).
fn machine_differences(a: &Machine, b: &Machine) -> Vec<String> {
    let gib = |m: &Machine| format!("{:.1} GiB", m.memory_bytes as f64 / f64::from(1u32 << 30));
    let parts = [
        ("cores", a.cores.to_string(), b.cores.to_string()),
        ("CPU model", a.cpu_model.clone(), b.cpu_model.clone()),
        ("memory", gib(a), gib(b)),
        ("OS", a.os.clone(), b.os.clone()),
    ];
    parts
        .into_iter()
        .filter(|(_, x, y)| x != y)
        .map(|(name, x, y)| format!("{name} {x} -> {y}"))
        .collect()
}

/// Each field of `a` and `b` (serialised as results.json has them, so
/// every field counts, also one added later) whose value differs, as
/// "rounds 3 -> 5"; a field one side lacks reads "none".
fn field_differences<T: serde::Serialize>(a: &T, b: &T, except: &[&str]) -> Vec<String> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        // Not reached: both are plain structs of numbers and strings.
        return Vec::new();
    };
    let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    let null = serde_json::Value::Null;
    names
        .into_iter()
        .filter(|name| !except.contains(&name.as_str()))
        .filter_map(|name| {
            let (x, y) = (a.get(name).unwrap_or(&null), b.get(name).unwrap_or(&null));
            (x != y).then(|| format!("{name} {} -> {}", shown(x), shown(y)))
        })
        .collect()
}

/// A setting's value as a reader reads it: strings unquoted, null as "none".
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "none".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
