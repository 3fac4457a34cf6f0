//! When a JVM is warm: the rule bench's calibration step asks after each
//! warm-up window of a Java server. A JVM starts interpreting and compiles
//! the hot paths while it serves (C1, then C2), so its first seconds are
//! slower and costlier than the rest: a fixed warm-up is either too short
//! on a busy machine or wasted on a quiet one. This one warms up until the
//! JIT is quiet ([`WarmUpRule::settled_windows`] windows in a row with the
//! compiler threads' CPU under [`WarmUpRule::max_jit_share`] of each) and
//! the throughput has stopped climbing (the median of those windows no
//! more than [`WarmUpRule::tolerance`] above the median of as many before
//! them), bounded by a count and a time, after which it gives up and says
//! so in a note.
//!
//! Why not "consecutive windows within a few percent": on this project's
//! 2-core machine a JVM that had long stopped compiling still served 1-s
//! windows 15% apart (Tomcat on `/users/1` at 64 connections, 24,600 to
//! 34,100 req/s with its compiler threads idle), as our own servers do
//! beside the load generator and Postgres on the same cores; three windows
//! within 5% came by chance or never. A JVM warming up climbs (3,100 to
//! 29,000 req/s in 14 s there), which medians of three tell from that noise
//! (the probe: docs/results/calibration-2026-12-07/, and the test
//! `a_measured_tomcat_settles...` below, on its windows).
//!
//! Pure: the windows in, a verdict out; the caller runs the windows.

use std::time::Duration;

/// One warm-up window as the caller measured it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarmUpWindow {
    /// Its length.
    pub duration: Duration,
    /// Answers per second in it.
    pub throughput_rps: f64,
    /// Time the JVM's JIT compiled during it, when the server tells
    /// (`jvm_compilation_time_seconds_total`'s rise over the window): the
    /// compilers' elapsed time, which counts their waits for a core too.
    pub jit_seconds: Option<f64>,
    /// The CPU the JIT's compiler threads used during it, when the server
    /// tells (`jvm_compiler_cpu_seconds_total`'s rise): what the rule
    /// judges the JIT by, [`WarmUpWindow::jit_seconds`] where it is not told.
    pub jit_cpu_seconds: Option<f64>,
}

impl WarmUpWindow {
    /// The JIT's work in the window as the rule judges it, and whether it
    /// is the compiler threads' CPU (else their elapsed time).
    fn jit(&self) -> Option<(f64, bool)> {
        match (self.jit_cpu_seconds, self.jit_seconds) {
            (Some(cpu), _) => Some((cpu, true)),
            (None, Some(elapsed)) => Some((elapsed, false)),
            (None, None) => None,
        }
    }
}

/// How settled is settled, and how long to try.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarmUpRule {
    /// How many consecutive windows must have the JIT quiet, and how many
    /// each median of the climb test takes.
    pub settled_windows: usize,
    /// The median of the last windows at most this far above the median
    /// of as many before them (0.05: 5%): no longer climbing.
    pub tolerance: f64,
    /// The JIT's compiler threads' CPU in each of them at most this share
    /// of the window (where told): a JIT still busy compiling has not settled.
    pub max_jit_share: f64,
    /// Give up after this many windows...
    pub max_windows: usize,
    /// ...or once the windows add up to this long.
    pub max_time: Duration,
}

impl Default for WarmUpRule {
    /// Three windows with the JIT under 5% of each, their median within
    /// 5% of the three before; at most 30 windows or 30 s.
    fn default() -> Self {
        WarmUpRule {
            settled_windows: 3,
            tolerance: 0.05,
            max_jit_share: 0.05,
            max_windows: 30,
            max_time: Duration::from_secs(30),
        }
    }
}

/// What the rule says after the windows so far.
#[derive(Debug, Clone, PartialEq)]
pub enum WarmUpVerdict {
    /// Warm: the JIT quiet and the throughput no longer climbing; measure now.
    Settled {
        windows: usize,
        /// The median throughput of the last windows.
        throughput_rps: f64,
    },
    /// Not yet: run another window.
    KeepGoing,
    /// Never settled: measure anyway, and keep the note with the column.
    GaveUp { windows: usize, note: String },
}

/// The verdict on `windows`, the warm-up windows so far in order.
pub fn judge(rule: &WarmUpRule, windows: &[WarmUpWindow]) -> WarmUpVerdict {
    let k = rule.settled_windows.max(1);
    // The last k, and at least one window before them to climb from.
    let why_not = match windows.len().checked_sub(k).filter(|&from| from > 0) {
        None => format!("{} windows, {} needed", windows.len(), k + 1),
        Some(from) => match disagreement(
            rule,
            &windows[from.saturating_sub(k)..from],
            &windows[from..],
        ) {
            None => {
                return WarmUpVerdict::Settled {
                    windows: windows.len(),
                    throughput_rps: median(
                        windows[from..].iter().map(|w| w.throughput_rps).collect(),
                    ),
                }
            }
            Some(why) => why,
        },
    };
    let spent: Duration = windows.iter().map(|w| w.duration).sum();
    if windows.len() < rule.max_windows && spent < rule.max_time {
        return WarmUpVerdict::KeepGoing;
    }
    WarmUpVerdict::GaveUp {
        windows: windows.len(),
        note: format!(
            "never settled, gave up after {} windows ({:.1} s): {why_not}",
            windows.len(),
            spent.as_secs_f64()
        ),
    }
}

/// Why the `last` windows do not count as settled after the windows
/// `before` them, or None when they do.
fn disagreement(
    rule: &WarmUpRule,
    before: &[WarmUpWindow],
    last: &[WarmUpWindow],
) -> Option<String> {
    let compiling = last.iter().find_map(|w| {
        let (jit, cpu) = w.jit()?;
        (jit > rule.max_jit_share * w.duration.as_secs_f64()).then_some((jit, cpu, w.duration))
    });
    if let Some((jit, cpu, window)) = compiling {
        return Some(format!(
            "the JIT still compiling ({jit:.2} s {} in a {:.1}-s window, over {:.0}%)",
            if cpu {
                "of its compiler threads' CPU"
            } else {
                "of compile time"
            },
            window.as_secs_f64(),
            rule.max_jit_share * 100.0
        ));
    }
    let now = median(last.iter().map(|w| w.throughput_rps).collect());
    let was = median(before.iter().map(|w| w.throughput_rps).collect());
    let climb = if was > 0.0 {
        now / was - 1.0
    } else {
        f64::INFINITY
    };
    (climb > rule.tolerance).then(|| {
        format!(
            "the throughput still climbing (the last {} windows' median {now:.0} req/s, {:.0}% above the {} before, {was:.0}; over {:.0}%)",
            last.len(),
            climb * 100.0,
            before.len(),
            rule.tolerance * 100.0
        )
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-second windows of these throughputs, the JIT not told.
    fn windows(rates: &[f64]) -> Vec<WarmUpWindow> {
        rates
            .iter()
            .map(|&throughput_rps| WarmUpWindow {
                duration: Duration::from_secs(1),
                throughput_rps,
                jit_seconds: None,
                jit_cpu_seconds: None,
            })
            .collect()
    }

    /// The verdict after each window in turn, until the first that is not KeepGoing.
    fn run(rule: &WarmUpRule, all: &[WarmUpWindow]) -> (usize, WarmUpVerdict) {
        for n in 1..=all.len() {
            let verdict = judge(rule, &all[..n]);
            if verdict != WarmUpVerdict::KeepGoing {
                return (n, verdict);
            }
        }
        (all.len(), WarmUpVerdict::KeepGoing)
    }

    /// The default rule, giving up after `max_windows` windows.
    fn at_most(max_windows: usize) -> WarmUpRule {
        WarmUpRule {
            max_windows,
            ..WarmUpRule::default()
        }
    }

    /// The windows and the note of a verdict that gave up; fails on any other.
    #[track_caller]
    fn gave_up(verdict: WarmUpVerdict) -> (usize, String) {
        let WarmUpVerdict::GaveUp { windows, note } = verdict else {
            panic!("{verdict:?}");
        };
        (windows, note)
    }

    /// Fails unless the default rule settles on `all` after `after` of
    /// them, at `throughput_rps`.
    #[track_caller]
    fn assert_settles(all: &[WarmUpWindow], after: usize, throughput_rps: f64) {
        let (n, verdict) = run(&WarmUpRule::default(), all);
        assert_eq!(
            verdict,
            WarmUpVerdict::Settled {
                windows: after,
                throughput_rps
            }
        );
        assert_eq!(n, after);
    }

    #[test]
    fn a_jvm_that_climbs_then_holds_settles_once_three_windows_stop_climbing() {
        let climb = [
            900.0, 1800.0, 2600.0, 3000.0, 3050.0, 2990.0, 3020.0, 3000.0,
        ];
        // After 7 the last three (median 3020) are still 16% above the three before (2600).
        assert_settles(&windows(&climb), 8, 3000.0);
    }

    #[test]
    fn a_jvm_that_keeps_climbing_gives_up_at_the_bound_with_a_note() {
        let climbing = windows(&[1000.0, 1200.0, 1440.0, 1728.0, 2074.0, 2488.0, 2986.0]);
        let (n, verdict) = run(&at_most(6), &climbing);
        assert_eq!(n, 6);
        let (windows, note) = gave_up(verdict);
        assert_eq!(windows, 6);
        assert_eq!(
            note,
            "never settled, gave up after 6 windows (6.0 s): the throughput still climbing \
             (the last 3 windows' median 2074 req/s, 73% above the 3 before, 1200; over 5%)"
        );
        // The time bound gives up as well: three 10-s windows reach 30 s.
        let long: Vec<WarmUpWindow> = climbing
            .iter()
            .map(|w| WarmUpWindow {
                duration: Duration::from_secs(10),
                ..*w
            })
            .collect();
        let (n, verdict) = run(&WarmUpRule::default(), &long);
        assert_eq!(n, 3);
        let (_, note) = gave_up(verdict);
        assert!(note.ends_with("3 windows, 4 needed"), "{note}");
    }

    /// Tomcat on `/users/1` at 64 connections on this project's 2-core
    /// machine, a second at a time from its start (2026-12-07): req/s, the
    /// compiler threads' CPU and CompilationMXBean's compile time.
    const TOMCAT_USERS: [(f64, f64, f64); 22] = [
        (3122.0, 0.27, 2.06),
        (3640.0, 0.27, 2.03),
        (6768.0, 0.39, 1.52),
        (8265.0, 0.31, 1.21),
        (8590.0, 0.26, 1.04),
        (11838.0, 0.30, 0.89),
        (13770.0, 0.36, 1.12),
        (16271.0, 0.38, 1.02),
        (17569.0, 0.44, 1.01),
        (19052.0, 0.43, 1.01),
        (20154.0, 0.31, 0.79),
        (24956.0, 0.40, 1.19),
        (24146.0, 0.29, 0.83),
        (29395.0, 0.05, 0.12),
        (29072.0, 0.01, 0.01),
        (24616.0, 0.00, 0.02),
        (27502.0, 0.00, 0.00),
        (29706.0, 0.01, 0.00),
        (27740.0, 0.08, 0.08),
        (26117.0, 0.03, 0.27),
        (32770.0, 0.00, 0.00),
        (33699.0, 0.00, 0.00),
    ];

    fn tomcat_users(cpu_told: bool) -> Vec<WarmUpWindow> {
        TOMCAT_USERS
            .iter()
            .map(|&(throughput_rps, cpu, elapsed)| WarmUpWindow {
                duration: Duration::from_secs(1),
                throughput_rps,
                jit_seconds: Some(elapsed),
                jit_cpu_seconds: cpu_told.then_some(cpu),
            })
            .collect()
    }

    #[test]
    fn a_measured_tomcat_settles_after_its_jit_goes_quiet_through_the_noise() {
        // Quiet from the 15th window; 16 and 17 still above the three before.
        assert_settles(&tomcat_users(true), 18, 27502.0);
        // Three windows within 5% never came: 1-s windows 15% apart, warm.
        let old = |w: &[WarmUpWindow]| {
            let (lo, hi) = w.iter().fold((f64::MAX, 0.0f64), |(lo, hi), w| {
                (lo.min(w.throughput_rps), hi.max(w.throughput_rps))
            });
            (hi - lo) / hi <= 0.05
        };
        let agreeing: Vec<usize> = (3..=22)
            .filter(|&n| old(&tomcat_users(true)[n - 3..n]))
            .collect();
        assert_eq!(
            agreeing,
            Vec::<usize>::new(),
            "windows ending where three agreed within 5%"
        );
    }

    #[test]
    fn the_jit_is_judged_by_its_cpu_where_told_else_by_its_compile_time() {
        let rule = at_most(4);
        let mut steady = windows(&[3000.0, 3000.0, 3000.0, 3000.0]);
        for w in &mut steady {
            w.jit_seconds = Some(0.3);
        }
        let (_, verdict) = run(&rule, &steady);
        let (_, note) = gave_up(verdict);
        assert!(
            note.ends_with(
                "the JIT still compiling (0.30 s of compile time in a 1.0-s window, over 5%)"
            ),
            "{note}"
        );
        // The compile time is elapsed: waits for a core count in it. Told
        // the compiler threads' CPU, the rule takes that.
        for w in &mut steady {
            w.jit_cpu_seconds = Some(0.01);
        }
        assert!(matches!(
            judge(&rule, &steady),
            WarmUpVerdict::Settled { windows: 4, .. }
        ));
        steady[2].jit_cpu_seconds = Some(0.2);
        let (_, note) = gave_up(judge(&rule, &steady));
        assert!(
            note.ends_with("the JIT still compiling (0.20 s of its compiler threads' CPU in a 1.0-s window, over 5%)"),
            "{note}"
        );
    }
}
