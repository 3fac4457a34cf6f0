//! When a JVM is warm: the rule bench's calibration step asks after each
//! warm-up window of a Java server. A JVM starts interpreting and compiles
//! the hot paths while it serves (C1, then C2), so its first seconds are
//! slower and costlier than the rest: a fixed warm-up is either too short
//! on a busy machine or wasted on a quiet one. This one warms up until the
//! throughput settles, [`WarmUpRule::settled_windows`] consecutive windows
//! within [`WarmUpRule::tolerance`] of each other (and, where the window
//! says how long the JIT compiled in it, the JIT quiet too), bounded by a
//! count and a time, after which it gives up and says so in a note.
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
    /// (`jvm_compilation_time_seconds_total`'s rise over the window).
    pub jit_seconds: Option<f64>,
}

/// How settled is settled, and how long to try.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarmUpRule {
    /// How many consecutive windows must agree.
    pub settled_windows: usize,
    /// Their spread, (max - min) / max, at most this (0.05: within 5%).
    pub tolerance: f64,
    /// The JIT's compile time in each of them at most this share of the
    /// window (where told): a JIT still busy compiling has not settled.
    pub max_jit_share: f64,
    /// Give up after this many windows...
    pub max_windows: usize,
    /// ...or once the windows add up to this long.
    pub max_time: Duration,
}

impl Default for WarmUpRule {
    /// Three windows within 5%, the JIT under 5% of each; at most 15
    /// windows or 30 s.
    fn default() -> Self {
        WarmUpRule {
            settled_windows: 3,
            tolerance: 0.05,
            max_jit_share: 0.05,
            max_windows: 15,
            max_time: Duration::from_secs(30),
        }
    }
}

/// What the rule says after the windows so far.
#[derive(Debug, Clone, PartialEq)]
pub enum WarmUpVerdict {
    /// Warm: the last windows agree; measure now.
    Settled {
        windows: usize,
        /// The median throughput of the agreeing windows.
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
    let why_not = match windows.len().checked_sub(k).map(|from| &windows[from..]) {
        None => format!("{} windows, {k} needed", windows.len()),
        Some(last) => match disagreement(rule, last) {
            None => {
                return WarmUpVerdict::Settled {
                    windows: windows.len(),
                    throughput_rps: median(last.iter().map(|w| w.throughput_rps).collect()),
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

/// Why the `last` windows do not count as settled, or None when they do.
fn disagreement(rule: &WarmUpRule, last: &[WarmUpWindow]) -> Option<String> {
    let k = last.len();
    let rates: Vec<f64> = last.iter().map(|w| w.throughput_rps).collect();
    let max = rates.iter().copied().fold(f64::MIN, f64::max);
    let min = rates.iter().copied().fold(f64::MAX, f64::min);
    let spread = if max > 0.0 { (max - min) / max } else { 1.0 };
    if spread > rule.tolerance {
        return Some(format!(
            "the last {k} windows' throughput spread {:.0}% ({min:.0} to {max:.0} req/s), over {:.0}%",
            spread * 100.0,
            rule.tolerance * 100.0
        ));
    }
    let compiling = last.iter().find_map(|w| {
        let jit = w.jit_seconds?;
        (jit > rule.max_jit_share * w.duration.as_secs_f64()).then_some((jit, w.duration))
    });
    compiling.map(|(jit, window)| {
        format!(
            "the JIT still compiling ({jit:.2} s in a {:.1}-s window, over {:.0}%)",
            window.as_secs_f64(),
            rule.max_jit_share * 100.0
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

    /// Fails unless the default rule settles on windows of `rates` after
    /// `after` of them, at `throughput_rps`.
    #[track_caller]
    fn assert_settles(rates: &[f64], after: usize, throughput_rps: f64) {
        let (n, verdict) = run(&WarmUpRule::default(), &windows(rates));
        assert_eq!(n, after);
        assert_eq!(
            verdict,
            WarmUpVerdict::Settled {
                windows: after,
                throughput_rps
            }
        );
    }

    #[test]
    fn a_jvm_that_climbs_then_holds_settles_on_its_third_steady_window() {
        let climb = [900.0, 1800.0, 2600.0, 3000.0, 3050.0, 2990.0, 3020.0];
        assert_settles(&climb, 6, 3000.0);
    }

    #[test]
    fn a_jvm_that_never_settles_gives_up_at_the_bound_with_a_note() {
        let zigzag = windows(&[1000.0, 2000.0, 1000.0, 2000.0, 1000.0, 2000.0, 1000.0]);
        let (n, verdict) = run(&at_most(6), &zigzag);
        assert_eq!(n, 6);
        let (windows, note) = gave_up(verdict);
        assert_eq!(windows, 6);
        assert_eq!(
            note,
            "never settled, gave up after 6 windows (6.0 s): the last 3 windows' \
             throughput spread 50% (1000 to 2000 req/s), over 5%"
        );
        // The time bound gives up as well: three 10-s windows reach 30 s.
        let long: Vec<WarmUpWindow> = zigzag
            .iter()
            .map(|w| WarmUpWindow {
                duration: Duration::from_secs(10),
                ..*w
            })
            .collect();
        let (n, verdict) = run(&WarmUpRule::default(), &long);
        assert_eq!(n, 3);
        assert!(matches!(verdict, WarmUpVerdict::GaveUp { windows: 3, .. }));
    }

    #[test]
    fn noise_then_steady_windows_settle_once_three_agree() {
        // A busy neighbour: two windows agree by chance, then noise, then steady.
        let noisy = [
            2000.0, 2010.0, 1400.0, 2500.0, 1900.0, 2450.0, 2470.0, 2440.0,
        ];
        assert_settles(&noisy, 8, 2450.0);
    }

    #[test]
    fn steady_throughput_with_the_jit_still_compiling_is_not_settled() {
        let rule = at_most(4);
        let mut steady = windows(&[3000.0, 3000.0, 3000.0, 3000.0]);
        for w in &mut steady {
            w.jit_seconds = Some(0.3);
        }
        let (_, verdict) = run(&rule, &steady);
        let (_, note) = gave_up(verdict);
        assert!(
            note.ends_with("the JIT still compiling (0.30 s in a 1.0-s window, over 5%)"),
            "{note}"
        );
        steady[3].jit_seconds = Some(0.01);
        steady[2].jit_seconds = Some(0.01);
        steady[1].jit_seconds = Some(0.01);
        assert!(matches!(
            judge(&rule, &steady),
            WarmUpVerdict::Settled { windows: 4, .. }
        ));
    }
}
