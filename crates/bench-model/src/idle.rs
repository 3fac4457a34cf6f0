//! The idle-connection group's results: per server, per round, the server
//! with no idle connection open and with each size open, and what each
//! idle connection costs above that line.

use serde::{Deserialize, Serialize};

use crate::ids::ColumnId;

/// The idle-connection group: per server, per round, the server with no
/// idle connection open and with each size open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleResult {
    /// The idle connection counts, ascending, opened in turn on one server per round.
    pub sizes: Vec<usize>,
    pub servers: Vec<IdleServer>,
}

/// One server (a column of the group) over its rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleServer {
    /// Its column, e.g. "blocking-idle-tiny-http".
    pub id: ColumnId,
    pub label: String,
    pub rounds: Vec<IdleRound>,
    /// Why it was not measured at all (e.g. a server bench did not start).
    pub failure: Option<String>,
}

impl IdleServer {
    /// Each round's step with `connections` open, where that size was measured.
    pub fn steps(&self, connections: usize) -> impl Iterator<Item = (&IdleRound, &IdleStep)> {
        self.rounds.iter().filter_map(move |r| {
            let step = r.steps.iter().find(|s| s.connections == connections)?;
            Some((r, step))
        })
    }
}

/// What became of one size on one server over its rounds.
#[derive(Debug, Clone, PartialEq)]
pub enum IdleCell<'a> {
    /// The rounds that opened all of it, each with its idle line.
    Measured(Vec<(&'a IdleRound, &'a IdleStep)>),
    /// No round opened all of it: the first failure, in one line.
    Failed(String),
    /// No round tried it: why (an open-file limit, a smaller size failed,
    /// the server failed).
    NotTried(String),
}

impl IdleServer {
    /// What became of `connections` on this server.
    pub fn cell(&self, connections: usize) -> IdleCell<'_> {
        let measured: Vec<_> = self
            .steps(connections)
            .filter(|(_, s)| s.failure.is_none())
            .collect();
        if !measured.is_empty() {
            return IdleCell::Measured(measured);
        }
        if let Some((_, s)) = self.steps(connections).next() {
            return IdleCell::Failed(s.failure.clone().unwrap_or_default());
        }
        let why = self
            .rounds
            .iter()
            .find_map(|r| r.stopped.clone())
            .or_else(|| self.failure.clone())
            .unwrap_or_else(|| "not measured".to_owned());
        IdleCell::NotTried(why)
    }

    /// The largest of `sizes` measured in at least one round.
    pub fn largest_measured(&self, sizes: &[usize]) -> Option<usize> {
        sizes
            .iter()
            .rev()
            .copied()
            .find(|&n| matches!(self.cell(n), IdleCell::Measured(_)))
    }
}

/// A server process's figures at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessFigures {
    pub threads: u64,
    pub rss_bytes: u64,
    /// Open files, its sockets included.
    pub open_fds: u64,
}

/// What a /health probe saw.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeStats {
    pub requests: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// One round of one server: a fresh process, its baseline, each size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleRound {
    /// 1-based round number.
    pub round: u32,
    /// 0-based position of the server in the round's order.
    pub position: u32,
    /// The server with no idle connection open, after the first probe had
    /// closed its connections: the line every "above idle" is taken from.
    pub idle: ProcessFigures,
    /// /health with no idle connection open.
    pub probe_none_open: ProbeStats,
    /// One per size tried, ascending; a size not tried is absent (see `stopped`).
    pub steps: Vec<IdleStep>,
    /// Why the larger sizes were not tried: one line (a size that does not
    /// fit under an open-file limit, or a smaller size that failed).
    pub stopped: Option<String>,
    /// The server once every connection was closed, when its open files came
    /// back to the idle count (plus the slack of [`IDLE_FDS_SLACK`]) in time.
    pub after_close: Option<ProcessFigures>,
    /// How long that took, in ms; `None`: not back within the bound.
    pub closed_within_ms: Option<f64>,
}

/// Open files a server may hold beyond its idle count and still count as
/// "back" once every idle connection is closed (a probe connection in
/// TIME_WAIT is not a file; a lazily opened log or pool connection is).
pub const IDLE_FDS_SLACK: u64 = 8;

/// One size on one server: the figures with `opened` idle connections open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleStep {
    /// The size asked for.
    pub connections: usize,
    /// Connections open that made their request and got its answer.
    pub opened: usize,
    /// Seconds the opening of this size's new connections took.
    pub open_seconds: f64,
    /// The server with them open (sampled after they settled).
    pub server: ProcessFigures,
    /// /health beside them; `None` when the probe could not run.
    pub probe: Option<ProbeStats>,
    /// Of `opened`, how many the client still saw open after the probe
    /// (the server had not closed them).
    pub still_open: usize,
    /// Why fewer than `connections` were opened, in one line.
    pub failure: Option<String>,
}

impl IdleStep {
    /// Threads above the idle line (negative when the server has fewer).
    pub fn threads_above(&self, idle: &ProcessFigures) -> i64 {
        self.server.threads as i64 - idle.threads as i64
    }

    /// Threads above idle per open connection; `None` with none open.
    pub fn threads_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        (self.opened > 0).then(|| self.threads_above(idle) as f64 / self.opened as f64)
    }

    /// Resident memory above idle per open connection, in KiB.
    pub fn kib_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        let above = self.server.rss_bytes as f64 - idle.rss_bytes as f64;
        (self.opened > 0).then(|| above / 1024.0 / self.opened as f64)
    }

    /// Open files above idle per open connection (1 when the server holds
    /// exactly one socket per connection).
    pub fn fds_per_connection(&self, idle: &ProcessFigures) -> Option<f64> {
        let above = self.server.open_fds as f64 - idle.open_fds as f64;
        (self.opened > 0).then(|| above / self.opened as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_costs_are_per_connection_above_the_idle_line() {
        let idle = ProcessFigures {
            threads: 206,
            rss_bytes: 10 * 1024 * 1024,
            open_fds: 12,
        };
        let step = IdleStep {
            connections: 1000,
            opened: 1000,
            open_seconds: 0.2,
            server: ProcessFigures {
                threads: 1206,
                rss_bytes: 10 * 1024 * 1024 + 1000 * 20 * 1024,
                open_fds: 1012,
            },
            probe: None,
            still_open: 1000,
            failure: None,
        };
        assert_eq!(step.threads_above(&idle), 1000);
        assert_eq!(step.threads_per_connection(&idle), Some(1.0));
        assert_eq!(step.kib_per_connection(&idle), Some(20.0));
        assert_eq!(step.fds_per_connection(&idle), Some(1.0));
        // Fewer threads than idle (a pool thread retired): negative, not wrapped.
        let fewer = IdleStep {
            opened: 500,
            server: ProcessFigures {
                threads: 205,
                rss_bytes: 10 * 1024 * 1024 - 512 * 500,
                open_fds: 512,
            },
            ..step.clone()
        };
        assert_eq!(fewer.threads_above(&idle), -1);
        assert_eq!(fewer.threads_per_connection(&idle), Some(-0.002));
        assert_eq!(fewer.kib_per_connection(&idle), Some(-0.5));
        // Nothing open: no per-connection figure.
        let none = IdleStep { opened: 0, ..step };
        assert_eq!(none.threads_per_connection(&idle), None);
        assert_eq!(none.kib_per_connection(&idle), None);
    }
}
