//! A Java column's JVM in the report, from each round's readings
//! ([`bench_model::JvmWindow`]): the runtime it says it is, how its
//! warm-up went (settled, or the rule's note when it never did), the JIT's
//! compile time and the collectors' time in the measured windows (a window
//! measured on a JVM still compiling shows here), and its pinned virtual
//! threads per request. Cells for the group's table (`-` for a column that
//! is no JVM) and a line per Java column for a sweep, whose steps keep the
//! warm-up only.

use bench_model::{ColumnResult, GroupResult, JvmWarmUp, JvmWindow, Spread};

/// The JVM windows of `c`'s rounds.
fn windows(c: &ColumnResult) -> impl Iterator<Item = &JvmWindow> {
    c.rounds.iter().filter_map(|r| r.jvm.as_ref())
}

/// Whether some column of `g` ran on a JVM that said so.
pub fn any(g: &GroupResult) -> bool {
    g.columns.iter().any(|c| windows(c).next().is_some())
}

/// "21.0.8+9-LTS": the versions its rounds' JVMs said, each once.
pub fn runtime(c: &ColumnResult) -> Option<String> {
    let mut versions: Vec<&str> = windows(c)
        .map(|w| w.version.as_str())
        .filter(|v| !v.is_empty())
        .collect();
    versions.dedup();
    (!versions.is_empty()).then(|| versions.join(", "))
}

/// "settled in 3 of 3 rounds (7 windows, 7.0 s, median)", or with the
/// rule's note of the first round that gave up: "settled in 1 of 3
/// rounds; gave up: never settled, ...".
pub fn warm_up(c: &ColumnResult) -> Option<String> {
    let all: Vec<&JvmWarmUp> = windows(c).filter_map(|w| w.warm_up.as_ref()).collect();
    if all.is_empty() {
        return None;
    }
    let settled = all.iter().filter(|w| w.settled()).count();
    let count = Spread::of(all.iter().map(|w| w.windows.len() as f64))?;
    let seconds = Spread::of(all.iter().map(|w| w.seconds()))?;
    let mut out = format!(
        "settled in {settled} of {} rounds ({:.0} windows, {:.1} s, median)",
        all.len(),
        count.median,
        seconds.median
    );
    if let Some(note) = all.iter().find_map(|w| w.note.as_deref()) {
        out.push_str(&format!("; gave up: {note}"));
    }
    Some(out)
}

/// "0.02 (max 0.31)": the JIT's compile time in the window, seconds,
/// median and most over the rounds.
pub fn compile(c: &ColumnResult) -> Option<String> {
    let s = Spread::of(windows(c).filter_map(|w| w.compile_seconds))?;
    Some(format!("{:.2} (max {:.2})", s.median, s.max))
}

/// "0.01 (max 0.12)": the CPU the JIT's compiler threads used in the
/// window, seconds, median and most over the rounds; unlike the compile
/// time, no wait for a core is in it.
pub fn compiler_cpu(c: &ColumnResult) -> Option<String> {
    let s = Spread::of(windows(c).filter_map(|w| w.compiler_cpu_seconds))?;
    Some(format!("{:.2} (max {:.2})", s.median, s.max))
}

/// "2, 0.15 s": collections and their time in the window, medians.
pub fn gc(c: &ColumnResult) -> Option<String> {
    let n = Spread::of(windows(c).filter_map(|w| w.gc_collections.map(|n| n as f64)))?;
    let s = Spread::of(windows(c).filter_map(|w| w.gc_seconds))?;
    Some(format!("{:.0}, {:.2} s", n.median, s.median))
}

/// "1.04 (1262)": pinned virtual threads on the column's route per
/// successful request and in all, medians; "not counted" where the JVM
/// counts none (platform threads, `--no-pin-events`).
pub fn pins(c: &ColumnResult) -> Option<String> {
    let route = contract::routes::label_of(&c.path)?;
    let counted: Vec<(f64, f64)> = c
        .rounds
        .iter()
        .filter_map(|r| {
            let w = r.jvm.as_ref().filter(|w| w.pins_watched)?;
            let n = w.pins_of(route) as f64;
            Some((n, n / r.load.ok_requests.max(1) as f64))
        })
        .collect();
    if counted.is_empty() {
        return windows(c).next().map(|_| "not counted".to_owned());
    }
    let total = Spread::of(counted.iter().map(|p| p.0))?;
    let per = Spread::of(counted.iter().map(|p| p.1))?;
    Some(format!("{:.2} ({:.0})", per.median, total.median))
}

/// A sweep's Java columns, a line each: "tomcat /posts/1: Java
/// 17.0.15+6; its JVM's warm-up settled in 3 of 3 rounds ...".
pub fn sweep_lines(g: &GroupResult) -> Vec<String> {
    g.columns
        .iter()
        .filter_map(|c| {
            let warm = warm_up(c)?;
            let runtime = runtime(c).map_or(String::new(), |v| format!("Java {v}; "));
            Some(format!("{}: {runtime}its JVM's warm-up {warm}.", c.label))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::fixtures::{bench_round, column_of};
    use bench_model::{ColumnId, JavaServer, Target, WarmUpWindowFigures};

    fn window(settled: bool, pins: u64) -> JvmWindow {
        let one = WarmUpWindowFigures {
            seconds: 1.0,
            throughput_rps: 900.0,
            compile_seconds: Some(0.4),
            compiler_cpu_seconds: Some(0.1),
        };
        JvmWindow {
            version: "21.0.8+9-LTS".into(),
            compile_seconds: Some(0.25),
            compiler_cpu_seconds: Some(0.05),
            gc_collections: Some(2),
            gc_seconds: Some(0.1),
            pins_watched: true,
            pinned: [("/users/{id}".to_owned(), pins)].into(),
            warm_up: Some(JvmWarmUp {
                windows: vec![one; 8],
                settled_rps: settled.then_some(900.0),
                note: (!settled).then(|| {
                    "never settled, gave up after 8 windows (8.0 s): the JIT still compiling".into()
                }),
            }),
        }
    }

    #[test]
    fn a_java_columns_cells_say_its_runtime_warm_up_jit_gc_and_pins() {
        let rounds = (1..=3)
            .map(|n| {
                let mut r = bench_round(n, 500.0);
                r.load.ok_requests = 1000;
                r.jvm = Some(window(n != 2, 1050));
                r
            })
            .collect();
        let c = column_of(
            ColumnId::TomcatVirtualUsersJava21,
            Target::Java(JavaServer::TomcatVirtual),
            "/users/1",
            rounds,
        );
        assert_eq!(runtime(&c).as_deref(), Some("21.0.8+9-LTS"));
        assert_eq!(
            warm_up(&c).as_deref(),
            Some("settled in 2 of 3 rounds (8 windows, 8.0 s, median); gave up: never settled, gave up after 8 windows (8.0 s): the JIT still compiling")
        );
        assert_eq!(compile(&c).as_deref(), Some("0.25 (max 0.25)"));
        assert_eq!(compiler_cpu(&c).as_deref(), Some("0.05 (max 0.05)"));
        assert_eq!(gc(&c).as_deref(), Some("2, 0.10 s"));
        assert_eq!(pins(&c).as_deref(), Some("1.05 (1050)"));
        // Our servers have none of it.
        let ours = column_of(
            ColumnId::BlockingUsersLoom,
            Target::Blocking,
            "/users/1",
            vec![bench_round(1, 9.0)],
        );
        assert_eq!(
            (
                runtime(&ours),
                warm_up(&ours),
                pins(&ours),
                compiler_cpu(&ours)
            ),
            (None, None, None, None)
        );
    }
}
