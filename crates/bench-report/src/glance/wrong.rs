//! One deliberately wrong variant of the "what goes wrong" matrix and its
//! kind: the value crate::glance::wrongs makes for every kind and
//! crate::glance::saturated for saturated cores.

use bench_model::{ColumnId, GroupId};

use super::RowVerdict;

/// The kinds of wrong the matrix shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WrongKind {
    BlockingTheEventLoop,
    PinningACarrier,
    SaturatedCores,
    ThreadPerConnection,
}

impl WrongKind {
    /// Its heading.
    pub fn words(self) -> &'static str {
        match self {
            WrongKind::BlockingTheEventLoop => "Blocking the event loop",
            WrongKind::PinningACarrier => "Pinning a carrier",
            WrongKind::SaturatedCores => "Saturated cores, on every model",
            WrongKind::ThreadPerConnection => "A thread per connection",
        }
    }
}

/// One deliberately wrong variant and what it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrong {
    pub kind: WrongKind,
    pub group: GroupId,
    /// The wrong column (or idle server).
    pub column: ColumnId,
    /// What it does wrong: the route it loads beside /health, or its connector.
    pub what: String,
    /// /health p99 next to it, ms (the median over rounds).
    pub p99_ms: Option<f64>,
    /// Whether that p99 is only a lower bound
    /// ([`bench_model::figures::p99_is_lower_bound`] in some round).
    pub p99_lower_bound: bool,
    /// The same next to the variant done right, and that variant's column.
    pub right: Option<(ColumnId, f64)>,
    /// Threads it held, in words ("1.00 per idle connection, 0.00 fixed").
    pub threads: Option<String>,
    /// Connections a burst left unanswered, in words.
    pub unanswered: Option<String>,
    pub verdict: Option<RowVerdict>,
}
