//! A group of the matrix: one table of the report, a load and a column per
//! server and route under it; what its routes need, and how far Postgres
//! and Redis are from its servers. Pure data.

use std::time::Duration;

use bench_model::{ColumnId, GroupId};

use super::column::Column;

/// How far the servers' Postgres and Redis are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// On this machine, as `local-services` found them.
    Local,
    /// Behind a proxy that adds this round trip (half each way) to every
    /// exchange, as a database on another host would.
    RoundTrip(Duration),
}

/// The round trip in front of Postgres and Redis in the stall-detector
/// group: twice the async server's default slow-poll threshold (5 ms), so
/// that one sync query or Redis GET made on a worker is a slow poll on any
/// machine, however fast.
pub const STALLS_ROUND_TRIP: Duration = Duration::from_millis(10);

/// The round trip in front of Postgres and Redis in the remote-database
/// groups unless `--db-latency` says otherwise: 1 ms each way, a database
/// in another zone of the same region rather than on localhost, where a
/// 0.1-ms round trip hides most of what a waiting request holds.
pub const REMOTE_DB_ROUND_TRIP: Duration = Duration::from_millis(2);

/// What the dependencies a group's routes need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    pub postgres: bool,
    pub redis: bool,
}

/// Needs neither Postgres nor Redis.
pub(super) const NONE: Needs = Needs {
    postgres: false,
    redis: false,
};
/// Needs Postgres.
pub(super) const DB: Needs = Needs {
    postgres: true,
    redis: false,
};
/// Needs both.
pub(super) const BOTH: Needs = Needs {
    postgres: true,
    redis: true,
};

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub id: GroupId,
    pub title: &'static str,
    pub needs: Needs,
    /// How far Postgres and Redis are for this group's servers.
    pub network: Network,
    pub columns: Vec<Column>,
    /// Columns whose server also gets the cold-start fairness probe
    /// ([`super::ColdStartProbe`]) after the group's rounds: each probed on fresh
    /// processes of its server, started with the column's `server_args`.
    pub cold_start_probe: Vec<ColumnId>,
}

impl Group {
    /// A group whose servers reach Postgres and Redis on this machine,
    /// with no cold-start probe.
    pub(super) fn local(
        id: GroupId,
        title: &'static str,
        needs: Needs,
        columns: Vec<Column>,
    ) -> Group {
        Group {
            id,
            title,
            needs,
            network: Network::Local,
            columns,
            cold_start_probe: Vec::new(),
        }
    }

    /// The same group, its servers reaching Postgres and Redis through a
    /// proxy that adds `round_trip`.
    pub(super) fn behind(self, round_trip: Duration) -> Group {
        Group {
            network: Network::RoundTrip(round_trip),
            ..self
        }
    }
}
