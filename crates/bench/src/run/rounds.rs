//! The one round loop every measured group shares: each column once per
//! round, the order rotated between rounds so that drift over a run hits
//! every column alike; a column whose load got no successful answer is
//! marked failed with the cause and skipped in later rounds, and the run
//! goes on. The columns of a load group, a sweep and the idle group differ
//! only in what one column round measures.

use crate::measure::load::ColumnError;
use crate::plan::round_order;
use bench_model::{ColumnResult, IdleRound, IdleServer, RoundResult};

use super::progress::Progress;

/// What the loop keeps per column: its label, its rounds, its failure.
pub(super) trait Rounds {
    type Round;
    fn label(&self) -> &str;
    fn failed(&self) -> bool;
    fn keep(&mut self, rounds: Vec<Self::Round>);
    fn fail(&mut self, cause: String);
}

/// The two kinds of column the loop keeps, alike but for their rounds'
/// type: a load group's or a sweep's, and the idle group's servers.
macro_rules! rounds_of {
    ($column:ty, $round:ty) => {
        impl Rounds for $column {
            type Round = $round;
            fn label(&self) -> &str {
                &self.label
            }
            fn failed(&self) -> bool {
                self.failure.is_some()
            }
            fn keep(&mut self, rounds: Vec<$round>) {
                self.rounds.extend(rounds);
            }
            fn fail(&mut self, cause: String) {
                self.failure = Some(cause);
            }
        }
    };
}
rounds_of!(ColumnResult, RoundResult);
rounds_of!(IdleServer, IdleRound);

/// One column round to measure: the column's index and label, the round
/// (1-based) of how many, and its position in the round's order.
#[derive(Clone, Copy)]
pub(super) struct ColumnRound<'a> {
    pub(super) column: usize,
    pub(super) label: &'a str,
    pub(super) round: u32,
    pub(super) of: u32,
    pub(super) position: u32,
}

/// What one column round measured, and its progress lines.
pub(super) struct Measured<R> {
    pub rounds: Vec<R>,
    pub lines: Vec<String>,
}

/// Calls `measure` for every column round
/// that has not failed, `rounds` rounds, the order rotated between rounds;
/// keeps what it measured and shows the columns so far to `kept` after
/// each, then says the round's progress lines: a line on screen is a
/// round a Ctrl-C keeps. A [`ColumnError::Failed`] fails that column;
/// any other error ends the run.
pub(super) fn every_column_round<T: Rounds>(
    columns: &mut [T],
    rounds: u32,
    (progress, mut kept): (&Progress, impl FnMut(&[T])),
    mut measure: impl FnMut(&ColumnRound<'_>) -> Result<Measured<T::Round>, ColumnError>,
) -> anyhow::Result<()> {
    for round in 1..=rounds {
        for (position, &i) in round_order(columns.len(), round).iter().enumerate() {
            if columns[i].failed() {
                continue;
            }
            let label = columns[i].label().to_owned();
            progress.measuring(format!("{label}, round {round}/{rounds}"));
            let measured = measure(&ColumnRound {
                column: i,
                label: &label,
                round,
                of: rounds,
                position: position as u32,
            });
            progress.round_done();
            let lines = match measured {
                Ok(measured) => {
                    columns[i].keep(measured.rounds);
                    measured.lines
                }
                Err(ColumnError::Failed(cause)) => {
                    let line = format!("  {} FAILED: {cause}", columns[i].label());
                    columns[i].fail(cause);
                    vec![line]
                }
                Err(ColumnError::Other(e)) => return Err(e),
            };
            kept(columns);
            for line in &lines {
                progress.say(line);
            }
        }
    }
    Ok(())
}

/// One column round's progress line; a window whose CPU parts (all but
/// steal) sum to more than the machine's busy time (a tick counted twice,
/// or a kernel whose accounting is not what bench took it for) says so.
pub(super) fn round_line(at: &ColumnRound<'_>, r: &RoundResult) -> String {
    let ColumnRound {
        label, round, of, ..
    } = at;
    let adds_up = match r.cpu.ticks.and_then(|t| t.excess().map(|over| (over, t))) {
        Some((over, t)) => format!(
            "; WARNING: the CPU parts but steal sum to {} ticks, over the machine's busy {} by {over} beyond {} allowed",
            t.in_busy(),
            t.busy,
            t.allowance()
        ),
        None => String::new(),
    };
    let none = if r.load.ok_requests == 0 {
        " (no request succeeded: a round at 0 req/s)"
    } else {
        ""
    };
    format!(
        "  [{round}/{of}] {label}: {:.1} req/s, p99 {:.1} ms, {} errors{none}, threads {} -> {}, other CPU {:.0}% of a core{adds_up}",
        r.load.throughput_rps,
        r.load.latency_ms.p99,
        r.load.errors,
        r.server_process.idle_threads,
        r.server_process.peak_threads,
        r.cpu.other_cores() * 100.0
    )
}
