//! Progress on stderr while bench runs, so that no run looks stuck.
//!
//! Every finished column round (and sweep step) is one line, wherever
//! stderr goes. On a terminal a live status line under them says where the
//! run is (group k of N, the column and round being measured) and about how
//! long is left. When stderr is not a terminal (a pipe, a CI log) there is
//! no live line; instead a heartbeat line names what is being measured
//! whenever nothing was printed for [`HEARTBEAT`] (or the hidden
//! `--heartbeat`, which tests shorten), so a log never stays silent longer
//! than that.
//!
//! The estimate of the time left: the planned length of every column round
//! not yet measured (its warm-up and window, plus a start and stop; a
//! group's equal-load rounds among them), scaled by how long the rounds
//! measured so far took against their plan.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::plan::{GroupPlan, LoadOptions};

/// The longest a non-terminal run stays silent while measuring, unless
/// `--heartbeat` says otherwise.
const HEARTBEAT: Duration = Duration::from_secs(5);

/// One group of the run, as the estimate sees it.
#[derive(Debug, Clone)]
struct PlannedGroup {
    title: String,
    /// Column rounds (a sweep's: column rounds, each all its steps).
    column_rounds: u32,
    /// The planned length of one column round.
    per_round: Duration,
}

/// Where the run is.
#[derive(Debug, Default)]
struct State {
    /// Index of the group being measured.
    group: usize,
    /// Column rounds finished in it.
    done_in_group: u32,
    /// What is being measured now: "async /users/1, round 2/3".
    current: Option<String>,
    current_since: Option<Instant>,
    /// Planned seconds of the column rounds finished so far, and their actual.
    planned_done: f64,
    actual_done: f64,
    round_started: Option<Instant>,
    last_line: Option<Instant>,
}

/// The run's progress printer; its ticker thread ends when it is dropped.
pub(super) struct Progress {
    terminal: bool,
    /// The longest silence without a terminal.
    heartbeat: Duration,
    plan: Vec<PlannedGroup>,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// A printer for a run of `groups`, live on a terminal, a heartbeat
    /// after `heartbeat` of silence otherwise (default [`HEARTBEAT`]).
    pub(super) fn new(
        groups: &[GroupPlan],
        options: &LoadOptions,
        heartbeat: Option<Duration>,
    ) -> Progress {
        // A group's equal-load rounds are column rounds too; each counts
        // for the mean planned length of the group's rounds.
        let plan = groups
            .iter()
            .map(|g| {
                let column_rounds = g.column_rounds() + g.equal_load_rounds();
                PlannedGroup {
                    title: g.group.title.to_owned(),
                    column_rounds,
                    per_round: g.planned_length(options) / column_rounds.max(1),
                }
            })
            .collect();
        let heartbeat = heartbeat.unwrap_or(HEARTBEAT);
        Progress::with(plan, (std::io::stderr().is_terminal(), heartbeat), true)
    }

    fn with(
        plan: Vec<PlannedGroup>,
        (terminal, heartbeat): (bool, Duration),
        tick: bool,
    ) -> Progress {
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let mut p = Progress {
            terminal,
            heartbeat,
            plan,
            state,
            stop,
            ticker: None,
        };
        if tick {
            p.ticker = p.start_ticker();
        }
        p
    }

    /// The ticker: the live line every second on a terminal; a heartbeat
    /// after the heartbeat's length of silence otherwise.
    fn start_ticker(&self) -> Option<std::thread::JoinHandle<()>> {
        let (state, stop) = (Arc::clone(&self.state), Arc::clone(&self.stop));
        let (terminal, silence, plan) = (self.terminal, self.heartbeat, self.plan.clone());
        std::thread::Builder::new()
            .name("bench-progress".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(250));
                    let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                    if terminal {
                        draw_live(&s, &plan);
                    } else if s.last_line.is_none_or(|t| t.elapsed() >= silence) {
                        heartbeat(&s, &plan);
                        s.last_line = Some(Instant::now());
                    }
                }
            })
            .ok()
    }

    /// Prints a finished line (a column round's figures, a failure).
    pub(super) fn say(&self, text: &str) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K");
        }
        let _ = writeln!(err, "{text}");
        s.last_line = Some(Instant::now());
        if self.terminal {
            draw_live(&s, &self.plan);
        }
    }

    /// Group `index` of the plan begins.
    pub(super) fn group_started(&self, index: usize) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.group = index;
        s.done_in_group = 0;
    }

    /// A column round begins: `what` names it ("async /users/1, round 2/3").
    pub(super) fn measuring(&self, what: String) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.current = Some(what);
        s.current_since = Some(Instant::now());
        s.round_started.get_or_insert_with(Instant::now);
    }

    /// Something outside the plan (a cold-start probe) is over.
    pub(super) fn between(&self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.current = None;
        s.round_started = None;
    }

    /// A column round of the current group is over (measured or failed).
    pub(super) fn round_done(&self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(started) = s.round_started.take() {
            s.actual_done += started.elapsed().as_secs_f64();
            s.planned_done += self
                .plan
                .get(s.group)
                .map_or(0.0, |g| g.per_round.as_secs_f64());
        }
        s.done_in_group += 1;
        s.current = None;
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if self.terminal {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

/// The planned seconds left from `s` on, scaled by actual / planned so far.
fn seconds_left(s: &State, plan: &[PlannedGroup]) -> f64 {
    let planned: f64 = plan
        .iter()
        .enumerate()
        .skip(s.group)
        .map(|(i, g)| {
            let left = if i == s.group {
                g.column_rounds.saturating_sub(s.done_in_group)
            } else {
                g.column_rounds
            };
            f64::from(left) * g.per_round.as_secs_f64()
        })
        .sum();
    let scale = if s.planned_done > 0.0 {
        (s.actual_done / s.planned_done).clamp(0.25, 4.0)
    } else {
        1.0
    };
    planned * scale
}

/// "1:23" for 83 s.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The live line, drawn over itself.
fn draw_live(s: &State, plan: &[PlannedGroup]) {
    let Some(group) = plan.get(s.group) else {
        return;
    };
    let line = format!(
        "group {}/{} {}: {} · about {} left",
        s.group + 1,
        plan.len(),
        group.title,
        s.current.as_deref().unwrap_or("between columns"),
        clock(seconds_left(s, plan))
    );
    let width = 118;
    let shown: String = line.chars().take(width).collect();
    let _ = write!(std::io::stderr(), "\r\x1b[2K{shown}");
}

/// The heartbeat of a run without a terminal: what is being measured, or
/// where the run is between column rounds (a server starting, a proxy).
fn heartbeat(s: &State, plan: &[PlannedGroup]) {
    let line = match (&s.current, s.current_since) {
        (Some(what), Some(since)) => format!(
            "  ... still measuring {what} ({:.0} s so far)",
            since.elapsed().as_secs_f64()
        ),
        _ => format!(
            "  ... between column rounds of group {}/{} ({} left)",
            s.group + 1,
            plan.len(),
            clock(seconds_left(s, plan))
        ),
    };
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_is_the_plan_scaled_by_how_the_run_went_so_far() {
        let plan = vec![
            PlannedGroup {
                title: "a".into(),
                column_rounds: 4,
                per_round: Duration::from_secs(2),
            },
            PlannedGroup {
                title: "b".into(),
                column_rounds: 10,
                per_round: Duration::from_secs(1),
            },
        ];
        let mut s = State::default();
        assert_eq!(seconds_left(&s, &plan), 18.0);
        // Two rounds of group a done, each twice as long as planned.
        s.done_in_group = 2;
        s.planned_done = 4.0;
        s.actual_done = 8.0;
        assert_eq!(seconds_left(&s, &plan), (2.0 * 2.0 + 10.0) * 2.0);
        assert_eq!(clock(83.4), "1:23");
    }
}
