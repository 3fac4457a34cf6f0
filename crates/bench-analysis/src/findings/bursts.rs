//! Seed 000's two bursts, which the findings of its groups name: the cpu
//! and database groups' (in the seed profile, every connection opened
//! first, then the requests released) and their twins' (the connect in
//! each request, as JMeter's threads sent it). Seed 000's own conclusions
//! ([`super::seeds`]) are judged under both: they were drawn under
//! JMeter's burst, where a server must also accept the connections while
//! it serves, which an event loop busy with blocking work may do late.

use bench_model::ColumnId;

/// Which of seed 000's bursts a finding judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Burst {
    /// The cpu and database groups: in the seed profile, every connection
    /// opened first (a closed loop in the quick profile).
    OpenedFirst,
    /// Their twins, the cpu-connect-in-request and
    /// database-connect-in-request groups: each request opens its own
    /// connection after the release, the connect inside its latency.
    ConnectInRequest,
}

impl Burst {
    /// The column measuring `column`'s route under this burst.
    pub(super) fn col(self, column: ColumnId) -> ColumnId {
        match self {
            Burst::OpenedFirst => column,
            Burst::ConnectInRequest => column.connect_in_request_twin().unwrap_or(column),
        }
    }

    /// A finding's id under this burst, of `[opened first, connect in the
    /// request]`.
    pub(super) fn id(self, [first, in_request]: [&'static str; 2]) -> &'static str {
        match self {
            Burst::OpenedFirst => first,
            Burst::ConnectInRequest => in_request,
        }
    }

    /// Where a claim is judged, `group` being "cpu" or "database".
    pub(super) fn words(self, group: &str) -> String {
        match self {
            Burst::OpenedFirst => format!(
                "in the {group} group (in the seed profile, seed 000's burst with every connection opened first)"
            ),
            Burst::ConnectInRequest => format!(
                "in the {group}-connect-in-request group (seed 000's burst as JMeter sent it: each request opens its connection, the connect inside its latency)"
            ),
        }
    }
}
