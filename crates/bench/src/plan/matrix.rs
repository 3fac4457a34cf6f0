//! The matrix: every group of columns (a route on one server), what each
//! group's routes need, and which columns get the cold-start probe. Pure
//! data: nothing here starts a server or sends a request.

use std::time::Duration;

use super::calibration_groups::{
    calibration_health_group, calibration_posts_group, calibration_users_group,
};
use super::more_groups::{
    idle_group, mixed_group, remote_db_group, remote_mixed_group, stalls_group, sweep_posts_group,
    sweep_users_group,
};
use super::pool_sweep::pool_sweep_group;
use super::seed_groups::{
    baseline_group, cache_group, cpu_group, database_group, json_group, ramp_group, slow_group,
};
use bench_model::{ColumnId, Driver, GroupId, Target};

/// One column: a route on one server. In the mixed group, `background` is
/// loaded while `path` (always /health) is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub id: ColumnId,
    pub target: Target,
    pub method: &'static str,
    /// May hold `{cpu_n}` or `{stall_cpu_n}`, filled in by [`super::PathValues`].
    pub path: &'static str,
    pub body: Option<&'static str>,
    pub background: Option<&'static str>,
    /// Server flags this column needs beyond the run's (e.g. `--redis-client pool`).
    pub server_args: &'static [&'static str],
    /// Said after the route in the column's label, e.g. "deadpool-redis".
    pub variant: Option<&'static str>,
}

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

pub(super) const ECHO_BODY: &str = r#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#;

pub(super) fn col(id: ColumnId, target: Target, path: &'static str) -> Column {
    Column {
        id,
        target,
        method: "GET",
        path,
        body: None,
        background: None,
        server_args: &[],
        variant: None,
    }
}

/// A blocking-server column behind the design card's tiny_http 0.12
/// (`--connector tiny-http`) instead of our connector: a reader thread per
/// open connection, `--handler-threads` threads calling `recv()`.
pub(super) fn tiny_http(id: ColumnId, path: &'static str) -> Column {
    Column {
        server_args: &["--connector", "tiny-http"],
        variant: Some("tiny_http"),
        ..col(id, Target::Blocking, path)
    }
}

/// The async cache route with another Redis client than the default shared connection.
pub(super) fn redis_client(
    id: ColumnId,
    client: &'static str,
    args: &'static [&'static str],
) -> Column {
    Column {
        server_args: args,
        variant: Some(client),
        ..col(id, Target::Async, "/users/1/cache")
    }
}

/// The async server with tokio-postgres in a deadpool-postgres pool: one
/// round trip per request where sqlx (the default) makes two.
pub(super) const DEADPOOL: &[&str] = &["--postgres-driver", "deadpool"];

/// The async server with a few shared tokio-postgres clients, the queries
/// of many requests pipelined on each (one client per worker), no pool.
pub(super) const PIPELINED: &[&str] = &["--postgres-driver", "pipelined"];

/// The async route `path` with another Postgres driver than sqlx: `args`
/// choose it, `driver` names it in the label.
pub(super) fn postgres_driver(
    id: ColumnId,
    driver: &'static str,
    args: &'static [&'static str],
    path: &'static str,
) -> Column {
    Column {
        server_args: args,
        variant: Some(driver),
        ..col(id, Target::Async, path)
    }
}

/// Server flags of the idle group's columns: an idle timeout (the header
/// read timeout, which both servers also apply between keep-alive requests)
/// long enough that no idle connection is closed while it is measured; the
/// default 10 s would close the first ones before the largest size is open.
/// tiny_http has no idle timeout and ignores it.
pub(super) const LONG_IDLE_TIMEOUT: &[&str] = &["--header-read-timeout-ms", "600000"];

/// A column of the idle-connection group: `/health` on a server started
/// with [`LONG_IDLE_TIMEOUT`] (and `connector_args`).
pub(super) fn idle(
    id: ColumnId,
    target: Target,
    args: &'static [&'static str],
    variant: Option<&'static str>,
) -> Column {
    Column {
        server_args: args,
        variant,
        ..col(id, target, "/health")
    }
}

/// A column on virtual threads with `driver`.
pub(super) fn virt(id: ColumnId, driver: Driver, path: &'static str) -> Column {
    col(id, Target::Virtual(driver), path)
}

pub(super) fn mixed(id: ColumnId, target: Target, background: &'static str) -> Column {
    Column {
        background: Some(background),
        ..col(id, target, "/health")
    }
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

/// The matrix of seed 000, plus seeds 001-003, the mixed group, the stall
/// detector's group, idle connections, the concurrency sweeps, the
/// remote-database groups and the pool sweep, then the calibration groups
/// (Tomcat and Netty beside our twins), in report order. Virtual threads have a column
/// wherever the other two servers do: one per driver where Postgres or
/// Redis is called, one (pinning: the driver is not called) elsewhere.
pub fn groups() -> Vec<Group> {
    vec![
        cpu_group(),
        database_group(),
        cache_group(),
        slow_group(),
        baseline_group(),
        json_group(),
        ramp_group(),
        mixed_group(),
        stalls_group(),
        idle_group(),
        sweep_posts_group(),
        sweep_users_group(),
        remote_db_group(),
        remote_mixed_group(),
        pool_sweep_group(),
        calibration_health_group(),
        calibration_posts_group(),
        calibration_users_group(),
    ]
}

/// The group a column belongs to.
pub fn group_of(column: ColumnId) -> Option<GroupId> {
    groups()
        .into_iter()
        .find(|g| g.columns.iter().any(|c| c.id == column))
        .map(|g| g.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for g in groups() {
            for c in g.columns {
                assert!(seen.insert(c.id), "{} twice", c.id.as_str());
            }
        }
    }

    #[test]
    fn every_column_id_is_in_the_matrix_once_in_id_order() {
        let in_matrix: Vec<ColumnId> = groups()
            .into_iter()
            .flat_map(|g| g.columns)
            .map(|c| c.id)
            .collect();
        assert_eq!(in_matrix, ColumnId::measured().collect::<Vec<_>>());
        // A retired column is in no group, and still read from a saved run.
        for id in ColumnId::RETIRED {
            assert_eq!(group_of(*id), None);
            assert_eq!(ColumnId::parse(id.as_str()), Some(*id));
        }
        let groups: Vec<GroupId> = groups().into_iter().map(|g| g.id).collect();
        assert_eq!(groups, GroupId::ALL);
    }
}
