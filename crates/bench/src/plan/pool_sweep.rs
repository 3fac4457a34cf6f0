//! The pool sweep: the remote-database group's read, a round trip away, at
//! one fixed concurrency, with the size of the pool swept for every pooled
//! driver of every model, and the client count for the pipelined one. It
//! shows the pool as the queue (Little's law: a pooled driver serves at
//! most pool / (round trips per request x round trip), rising with the
//! pool up to the concurrency) and a pipelined driver that needs no pool.
//! Pure data: a column per driver and size, each on a server started with
//! that size.

use super::matrix::{col, Column, Group, Network, BOTH, REMOTE_DB_ROUND_TRIP};
use bench_model::{ColumnId, Driver, GroupId, Target};

/// A column of the sweep: `/users/1` on `target` started with `args`,
/// its driver and size named by `variant`.
fn sized(
    id: ColumnId,
    target: Target,
    args: &'static [&'static str],
    variant: &'static str,
) -> Column {
    Column {
        server_args: args,
        variant: Some(variant),
        ..col(id, target, "/users/1")
    }
}

/// Pool sizes 2, 5, 10, 20 and 40 for each pooled driver (the largest well
/// under Postgres' 100 connections, with room for tests run beside), 1, 2
/// and 4 clients for the pipelined one; each column started with its own.
#[allow(
    clippy::too_many_lines,
    reason = "a table: a column per driver and size, one entry each"
)]
pub(super) fn pool_sweep_group() -> Group {
    use ColumnId as C;
    use Target::{Async, Blocking, Virtual};
    let yielding = Virtual(Driver::Yielding);
    Group {
        id: GroupId::PoolSweep,
        title: "Pool sweep: /users/1 a round trip away, pool sizes and pipelined clients",
        needs: BOTH,
        network: Network::RoundTrip(REMOTE_DB_ROUND_TRIP),
        columns: vec![
            sized(
                C::BlockingUsersPool2,
                Blocking,
                &["--db-pool-size", "2"],
                "pool 2",
            ),
            sized(
                C::BlockingUsersPool5,
                Blocking,
                &["--db-pool-size", "5"],
                "pool 5",
            ),
            sized(
                C::BlockingUsersPool10,
                Blocking,
                &["--db-pool-size", "10"],
                "pool 10",
            ),
            sized(
                C::BlockingUsersPool20,
                Blocking,
                &["--db-pool-size", "20"],
                "pool 20",
            ),
            sized(
                C::BlockingUsersPool40,
                Blocking,
                &["--db-pool-size", "40"],
                "pool 40",
            ),
            sized(
                C::VirtualYieldingUsersPool2,
                yielding,
                &["--db-pool-size", "2"],
                "pool 2",
            ),
            sized(
                C::VirtualYieldingUsersPool5,
                yielding,
                &["--db-pool-size", "5"],
                "pool 5",
            ),
            sized(
                C::VirtualYieldingUsersPool10,
                yielding,
                &["--db-pool-size", "10"],
                "pool 10",
            ),
            sized(
                C::VirtualYieldingUsersPool20,
                yielding,
                &["--db-pool-size", "20"],
                "pool 20",
            ),
            sized(
                C::VirtualYieldingUsersPool40,
                yielding,
                &["--db-pool-size", "40"],
                "pool 40",
            ),
            sized(
                C::AsyncUsersPool2,
                Async,
                &["--db-pool-size", "2"],
                "sqlx, pool 2",
            ),
            sized(
                C::AsyncUsersPool5,
                Async,
                &["--db-pool-size", "5"],
                "sqlx, pool 5",
            ),
            sized(
                C::AsyncUsersPool10,
                Async,
                &["--db-pool-size", "10"],
                "sqlx, pool 10",
            ),
            sized(
                C::AsyncUsersPool20,
                Async,
                &["--db-pool-size", "20"],
                "sqlx, pool 20",
            ),
            sized(
                C::AsyncUsersPool40,
                Async,
                &["--db-pool-size", "40"],
                "sqlx, pool 40",
            ),
            sized(
                C::AsyncUsersDeadpoolPool2,
                Async,
                &["--postgres-driver", "deadpool", "--db-pool-size", "2"],
                "deadpool, pool 2",
            ),
            sized(
                C::AsyncUsersDeadpoolPool5,
                Async,
                &["--postgres-driver", "deadpool", "--db-pool-size", "5"],
                "deadpool, pool 5",
            ),
            sized(
                C::AsyncUsersDeadpoolPool10,
                Async,
                &["--postgres-driver", "deadpool", "--db-pool-size", "10"],
                "deadpool, pool 10",
            ),
            sized(
                C::AsyncUsersDeadpoolPool20,
                Async,
                &["--postgres-driver", "deadpool", "--db-pool-size", "20"],
                "deadpool, pool 20",
            ),
            sized(
                C::AsyncUsersDeadpoolPool40,
                Async,
                &["--postgres-driver", "deadpool", "--db-pool-size", "40"],
                "deadpool, pool 40",
            ),
            sized(
                C::AsyncUsersPipelinedClients1,
                Async,
                &["--postgres-driver", "pipelined", "--postgres-clients", "1"],
                "pipelined, 1 client",
            ),
            sized(
                C::AsyncUsersPipelinedClients2,
                Async,
                &["--postgres-driver", "pipelined", "--postgres-clients", "2"],
                "pipelined, 2 clients",
            ),
            sized(
                C::AsyncUsersPipelinedClients4,
                Async,
                &["--postgres-driver", "pipelined", "--postgres-clients", "4"],
                "pipelined, 4 clients",
            ),
        ],
        cold_start_probe: vec![],
    }
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
