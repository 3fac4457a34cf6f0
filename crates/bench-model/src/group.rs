//! One table of a run: a group of columns under the same load, and each
//! column (a server and a route) over its rounds.

use serde::{Deserialize, Serialize};

use crate::ids::{ColumnId, GroupId, Target};
use crate::{ColdStartResult, EqualLoad, IdleResult, RoundResult, SweepInfo};

/// One table of the report: a group of variants under the same load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Its id, as `--groups` and findings name it.
    pub id: GroupId,
    pub title: String,
    /// The load, in words (e.g. "burst of 10000 requests at once").
    pub load: String,
    /// The warm-up before each measured window, in words, or "none (cold start)".
    pub warm_up: String,
    pub columns: Vec<ColumnResult>,
    /// The cold-start fairness probe, for a group that has one (the baseline's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_start: Option<ColdStartResult>,
    /// The idle-connection group's measurement (bench's `IdleLoad`);
    /// that group has no load-generator columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleResult>,
    /// For a concurrency sweep: its steps and the blocking server's predicted
    /// cap. Each of its columns' rounds is then one step of one column round
    /// ([`RoundResult::step`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepInfo>,
    /// For a group where the cores decide: its ranked columns again, each
    /// at one arrival rate ([`EqualLoad`]); absent in other groups and in
    /// runs saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equal_load: Option<EqualLoad>,
}

/// One variant: a server and a route under the group's load, in every round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnResult {
    /// Its id, as findings name it, e.g. "async-cpu-rayon".
    pub id: ColumnId,
    /// Header in the table, e.g. "async /cpu/rayon".
    pub label: String,
    /// The server it ran on.
    pub server: Target,
    pub method: String,
    pub path: String,
    /// For the mixed group: the route loaded in the background while `path` is measured.
    pub background_path: Option<String>,
    /// One entry per round that measured something, in round order.
    pub rounds: Vec<RoundResult>,
    /// Why the column failed, when a round could not be measured (for
    /// example "no request succeeded: every connection was refused"). A
    /// failed column keeps the rounds measured before the failure.
    pub failure: Option<String>,
}
