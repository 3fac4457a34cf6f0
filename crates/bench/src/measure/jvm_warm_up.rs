//! A fresh JVM's warm-up before a Java column's window: short windows of
//! its column's route, each timed and its JIT's compile time and compiler
//! CPU read from the server's `/metrics`, until bench-analysis' rule
//! ([`bench_analysis::warm_up::judge`]) says the JIT is quiet and the
//! throughput no longer climbing, or gives up at its bound. Nothing of it is recorded as a
//! measurement; what each window got and how it ended are kept with the
//! round ([`bench_model::JvmWarmUp`]), the rule's note when it never
//! settled, so that a window measured on a JVM still compiling says so.

use std::net::SocketAddr;

use bench_analysis::warm_up::{judge, WarmUpRule, WarmUpVerdict, WarmUpWindow};
use bench_model::{JvmWarmUp, WarmUpWindowFigures};

use super::jvm_readings::{compile_seconds, compiler_cpu_seconds, rise};
use super::load::{run_warm_up, ColumnError};
use crate::plan::{Column, Load, LoadOptions, JVM_WARM_UP_CONNECTIONS};
use crate::servers::http_get;

/// Warms up the JVM of a Java column's server at `addr` as the run's
/// options say ([`LoadOptions::jvm_warm_up`]); `None` for our servers and
/// with `--cold`.
pub fn warm_up_jvm(
    addr: SocketAddr,
    column: &Column,
    o: &LoadOptions,
) -> Result<Option<JvmWarmUp>, ColumnError> {
    let (Some(plan), Some(_)) = (o.jvm_warm_up, column.target.java()) else {
        return Ok(None);
    };
    let load = Load::Closed {
        connections: JVM_WARM_UP_CONNECTIONS,
        duration: plan.window,
    };
    // (the JIT's elapsed compile time, its compiler threads' CPU) so far.
    let jit = || match http_get(addr, "/metrics") {
        Ok((200, body)) => (compile_seconds(&body), compiler_cpu_seconds(&body)),
        _ => (None, None),
    };
    until_settled(&plan.rule(), || {
        let before = jit();
        let got = run_warm_up(addr, column, &load, o)?;
        let after = jit();
        Ok(WarmUpWindow {
            duration: std::time::Duration::from_secs_f64(got.duration_seconds),
            throughput_rps: got.successful_throughput_rps,
            jit_seconds: rise(before.0, after.0),
            jit_cpu_seconds: rise(before.1, after.1),
        })
    })
    .map(Some)
}

/// Runs `window` until `rule` says settled or gives up, and what it got.
pub fn until_settled(
    rule: &WarmUpRule,
    mut window: impl FnMut() -> Result<WarmUpWindow, ColumnError>,
) -> Result<JvmWarmUp, ColumnError> {
    let mut windows = Vec::new();
    loop {
        windows.push(window()?);
        let (settled_rps, note) = match judge(rule, &windows) {
            WarmUpVerdict::KeepGoing => continue,
            WarmUpVerdict::Settled { throughput_rps, .. } => (Some(throughput_rps), None),
            WarmUpVerdict::GaveUp { note, .. } => (None, Some(note)),
        };
        return Ok(JvmWarmUp {
            windows: windows.iter().map(figures).collect(),
            settled_rps,
            note,
        });
    }
}

fn figures(w: &WarmUpWindow) -> WarmUpWindowFigures {
    WarmUpWindowFigures {
        seconds: w.duration.as_secs_f64(),
        throughput_rps: w.throughput_rps,
        compile_seconds: w.jit_seconds,
        compiler_cpu_seconds: w.jit_cpu_seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Crafted one-second windows, served in turn: (throughput, JIT seconds).
    fn crafted(all: &[(f64, f64)]) -> impl FnMut() -> Result<WarmUpWindow, ColumnError> + '_ {
        let mut next = all.iter();
        move || {
            let &(throughput_rps, jit) = next.next().expect("asked for a window past the bound");
            Ok(WarmUpWindow {
                duration: Duration::from_secs(1),
                throughput_rps,
                jit_seconds: Some(jit),
                jit_cpu_seconds: None,
            })
        }
    }

    #[test]
    fn a_jvm_that_compiles_then_holds_settles_and_stops_asking() {
        let rule = WarmUpRule::default();
        // The JIT busy for four windows (more than 5% of each), then quiet,
        // and the throughput climbing until the ninth.
        let warm = until_settled(
            &rule,
            crafted(&[
                (800.0, 0.9),
                (2000.0, 0.7),
                (5000.0, 0.5),
                (9000.0, 0.2),
                (9900.0, 0.01),
                (10000.0, 0.0),
                (10100.0, 0.02),
                (10000.0, 0.0),
                (9950.0, 0.01),
            ]),
        )
        .unwrap();
        assert_eq!(warm.windows.len(), 9);
        assert_eq!(warm.settled_rps, Some(10000.0));
        assert_eq!(warm.note, None);
        assert_eq!(warm.windows[3].compile_seconds, Some(0.2));
    }

    #[test]
    fn a_jvm_that_never_settles_gives_up_at_the_bound_with_the_rules_note() {
        let rule = WarmUpRule {
            max_windows: 5,
            max_time: Duration::from_secs(5),
            ..WarmUpRule::default()
        };
        // Steady throughput, but the JIT never quiet.
        let warm = until_settled(&rule, crafted(&[(9000.0, 0.3); 5])).unwrap();
        assert_eq!(warm.windows.len(), 5);
        assert!(!warm.settled());
        let note = warm.note.clone().unwrap();
        assert!(
            note.starts_with(
                "never settled, gave up after 5 windows (5.0 s): the JIT still compiling"
            ),
            "{note}"
        );
        // The note is what results.json keeps with the round.
        let mut round = bench_model::fixtures::bench_round(1, 9000.0);
        round.jvm = Some(bench_model::JvmWindow {
            version: "21.0.8+9-LTS".into(),
            warm_up: Some(warm),
            ..Default::default()
        });
        let mut run = bench_model::fixtures::results(Vec::new());
        run.groups.push(bench_model::fixtures::group(
            "calibration-loom",
            vec![bench_model::fixtures::column_of(
                bench_model::ColumnId::TomcatVirtualUsersJava21,
                bench_model::Target::Java(bench_model::JavaServer::TomcatVirtual),
                "/users/1",
                vec![round],
            )],
        ));
        let text = bench_model::results_file::to_json(&run, &bench_model::THRESHOLDS, &[]).unwrap();
        assert!(text.contains(&format!("\"note\": \"{note}\"")), "{text}");
        let saved = bench_model::SavedRun::from_json(&text, "results.json").unwrap();
        let kept = saved.results.groups[0].columns[0].rounds[0]
            .jvm
            .clone()
            .unwrap();
        assert_eq!(kept.warm_up.unwrap().note.as_deref(), Some(note.as_str()));
    }
}
