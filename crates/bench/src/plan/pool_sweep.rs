//! The pool sweep: the remote-database group's read, a round trip away, at
//! one fixed concurrency, with the size of the pool swept for every pooled
//! driver of every model, and the client count for the pipelined one. It
//! shows the pool as the queue (Little's law: a pooled driver serves at
//! most pool / (round trips per request x round trip), rising with the
//! pool up to the concurrency) and a pipelined driver that needs no pool.
//! Pure data: a column per driver and size, each on a server started with
//! that size.

use super::column::{with_args, Column};
use super::group::{Group, BOTH, REMOTE_DB_ROUND_TRIP};
use bench_model::ColumnId as C;
use bench_model::Target::{Async, Blocking, Virtual};
use bench_model::{ColumnId, Driver, GroupId, Target};

/// The pool sizes swept for every pooled driver: the largest well under
/// Postgres' 100 connections, with room for tests run beside.
const POOLS: [&[&str]; 5] = [
    &["--db-pool-size", "2"],
    &["--db-pool-size", "5"],
    &["--db-pool-size", "10"],
    &["--db-pool-size", "20"],
    &["--db-pool-size", "40"],
];

/// The same sizes for the async server's deadpool-postgres driver.
const DEADPOOL_POOLS: [&[&str]; 5] = [
    &["--postgres-driver", "deadpool", "--db-pool-size", "2"],
    &["--postgres-driver", "deadpool", "--db-pool-size", "5"],
    &["--postgres-driver", "deadpool", "--db-pool-size", "10"],
    &["--postgres-driver", "deadpool", "--db-pool-size", "20"],
    &["--postgres-driver", "deadpool", "--db-pool-size", "40"],
];

/// The client counts swept for the pipelined driver, which has no pool.
const PIPELINED_CLIENTS: [&[&str]; 3] = [
    &["--postgres-driver", "pipelined", "--postgres-clients", "1"],
    &["--postgres-driver", "pipelined", "--postgres-clients", "2"],
    &["--postgres-driver", "pipelined", "--postgres-clients", "4"],
];

/// The columns of one driver: `/users/1` on `target`, the i-th started
/// with `args[i]` and named `labels[i]`.
fn sized<const N: usize>(
    target: Target,
    ids: [ColumnId; N],
    args: [&'static [&'static str]; N],
    labels: [&'static str; N],
) -> impl Iterator<Item = Column> {
    (0..N).map(move |i| with_args(ids[i], target, "/users/1", (args[i], labels[i])))
}

/// Pool sizes 2, 5, 10, 20 and 40 for each pooled driver of every model,
/// 1, 2 and 4 clients for the pipelined one; each column started with its own.
pub(super) fn pool_sweep_group() -> Group {
    let yielding = Virtual(Driver::Yielding);
    let columns = std::iter::empty()
        .chain(sized(
            Blocking,
            [
                C::BlockingUsersPool2,
                C::BlockingUsersPool5,
                C::BlockingUsersPool10,
                C::BlockingUsersPool20,
                C::BlockingUsersPool40,
            ],
            POOLS,
            ["pool 2", "pool 5", "pool 10", "pool 20", "pool 40"],
        ))
        .chain(sized(
            yielding,
            [
                C::VirtualYieldingUsersPool2,
                C::VirtualYieldingUsersPool5,
                C::VirtualYieldingUsersPool10,
                C::VirtualYieldingUsersPool20,
                C::VirtualYieldingUsersPool40,
            ],
            POOLS,
            ["pool 2", "pool 5", "pool 10", "pool 20", "pool 40"],
        ))
        .chain(sized(
            Async,
            [
                C::AsyncUsersPool2,
                C::AsyncUsersPool5,
                C::AsyncUsersPool10,
                C::AsyncUsersPool20,
                C::AsyncUsersPool40,
            ],
            POOLS,
            [
                "sqlx, pool 2",
                "sqlx, pool 5",
                "sqlx, pool 10",
                "sqlx, pool 20",
                "sqlx, pool 40",
            ],
        ))
        .chain(sized(
            Async,
            [
                C::AsyncUsersDeadpoolPool2,
                C::AsyncUsersDeadpoolPool5,
                C::AsyncUsersDeadpoolPool10,
                C::AsyncUsersDeadpoolPool20,
                C::AsyncUsersDeadpoolPool40,
            ],
            DEADPOOL_POOLS,
            [
                "deadpool, pool 2",
                "deadpool, pool 5",
                "deadpool, pool 10",
                "deadpool, pool 20",
                "deadpool, pool 40",
            ],
        ))
        .chain(sized(
            Async,
            [
                C::AsyncUsersPipelinedClients1,
                C::AsyncUsersPipelinedClients2,
                C::AsyncUsersPipelinedClients4,
            ],
            PIPELINED_CLIENTS,
            [
                "pipelined, 1 client",
                "pipelined, 2 clients",
                "pipelined, 4 clients",
            ],
        ))
        .collect();
    let title = "Pool sweep: /users/1 a round trip away, pool sizes and pipelined clients";
    Group::local(GroupId::PoolSweep, title, BOTH, columns).behind(REMOTE_DB_ROUND_TRIP)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each column's flags give the size its id and label name, so a
    /// column cannot measure one size under another's name.
    #[test]
    fn each_column_is_started_with_the_size_it_names() {
        let g = pool_sweep_group();
        // Five pool sizes of four pooled drivers, three client counts.
        assert_eq!(g.columns.len(), 4 * 5 + 3);
        for c in &g.columns {
            let size = c.id.as_str().rsplit('-').next().unwrap();
            let flag = c
                .server_args
                .iter()
                .position(|a| *a == "--db-pool-size" || *a == "--postgres-clients");
            let given = flag.and_then(|i| c.server_args.get(i + 1)).unwrap();
            assert_eq!(*given, size, "{}", c.id);
            assert!(c.label().contains(&format!(" {size}")), "{}", c.label());
            let pipelined = c.id.as_str().contains("pipelined");
            assert_eq!(c.server_args.contains(&"pipelined"), pipelined, "{}", c.id);
            assert_eq!(
                c.server_args.contains(&"deadpool"),
                c.id.as_str().contains("deadpool"),
                "{}",
                c.id
            );
        }
    }
}
