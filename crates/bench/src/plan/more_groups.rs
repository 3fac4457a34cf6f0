//! The project's own groups of the matrix: the mixed load, the stall
//! detectors', idle connections, the concurrency sweeps and the
//! remote-database groups, each with virtual threads' columns. Pure data.

use super::matrix::{
    col, idle, mixed, postgres_driver, virt, Group, Network, BOTH, DB, DEADPOOL, LONG_IDLE_TIMEOUT,
    NONE, PIPELINED, REMOTE_DB_ROUND_TRIP, STALLS_ROUND_TRIP,
};
use bench_model::{ColumnId, Driver, GroupId, Target};

/// /health next to each background load: does a blocked event loop delay
/// everyone? (Virtual threads next to the slow downstream are not here: a
/// sleep parks a coroutine, as the sweep shows; it was
/// [`ColumnId::VirtualHealthNextToPosts`]. Nor are both drivers next to a
/// local /users/1: the remote-mixed group shows what a pinned carrier does
/// to /health with the query a round trip away; they were
/// [`ColumnId::VirtualPinningHealthNextToUsers`] and
/// [`ColumnId::VirtualYieldingHealthNextToUsers`].)
pub(super) fn mixed_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking, Virtual as V};
    Group {
        id: GroupId::Mixed,
        title: "Mixed: /health next to a background load",
        needs: BOTH,
        network: Network::Local,
        columns: vec![
            mixed(C::BlockingHealthNextToCpu, Blocking, "/cpu?n={cpu_n}"),
            mixed(C::AsyncHealthNextToCpu, Async, "/cpu?n={cpu_n}"),
            mixed(C::AsyncHealthNextToCpuRayon, Async, "/cpu/rayon?n={cpu_n}"),
            mixed(C::BlockingHealthNextToPosts, Blocking, "/posts/1"),
            mixed(
                C::AsyncHealthNextToPostsBlocking,
                Async,
                "/posts/1/blocking",
            ),
            mixed(C::AsyncHealthNextToPosts, Async, "/posts/1"),
            mixed(
                C::AsyncHealthNextToUsersBlocking,
                Async,
                "/users/1/blocking",
            ),
            mixed(C::AsyncHealthNextToUsers, Async, "/users/1"),
            mixed(C::VirtualHealthNextToCpu, V(Pinning), "/cpu?n={cpu_n}"),
        ],
        cold_start_probe: vec![],
    }
}

/// The stall detector's timing: blocking long enough to be seen by the clock.
pub(super) fn stalls_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::Async;
    Group {
        id: GroupId::Stalls,
        title: "Stall detectors: blocking that lasts (Postgres and Redis 10 ms away, long /cpu)",
        needs: BOTH,
        network: Network::RoundTrip(STALLS_ROUND_TRIP),
        columns: vec![
            col(C::AsyncUsersStalls, Async, "/users/1"),
            col(C::AsyncUsersBlockingStalls, Async, "/users/1/blocking"),
            col(C::AsyncCacheStalls, Async, "/users/1/cache"),
            col(
                C::AsyncCacheBlockingStalls,
                Async,
                "/users/1/cache/blocking",
            ),
            col(C::AsyncPostsStalls, Async, "/posts/1"),
            col(C::AsyncPostsBlockingStalls, Async, "/posts/1/blocking"),
            col(C::AsyncCpuRayonStalls, Async, "/cpu/rayon?n={stall_cpu_n}"),
            col(C::AsyncCpuStalls, Async, "/cpu?n={stall_cpu_n}"),
            virt(C::VirtualPinningUsersStalls, Pinning, "/users/1"),
            virt(C::VirtualPinningCacheStalls, Pinning, "/users/1/cache"),
            virt(C::VirtualPinningPostsStalls, Pinning, "/posts/1"),
            virt(C::VirtualPinningCpuStalls, Pinning, "/cpu?n={stall_cpu_n}"),
            virt(C::VirtualYieldingUsersStalls, Yielding, "/users/1"),
            virt(C::VirtualYieldingCacheStalls, Yielding, "/users/1/cache"),
        ],
        cold_start_probe: vec![],
    }
}

/// What an idle keep-alive connection costs each server.
pub(super) fn idle_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking, Virtual as V};
    Group {
        id: GroupId::Idle,
        title: "Idle keep-alive connections: what each costs",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            idle(C::BlockingIdle, Blocking, LONG_IDLE_TIMEOUT, None),
            idle(
                C::BlockingIdleTinyHttp,
                Blocking,
                &[
                    "--connector",
                    "tiny-http",
                    "--header-read-timeout-ms",
                    "600000",
                ],
                Some("tiny_http"),
            ),
            idle(C::AsyncIdle, Async, LONG_IDLE_TIMEOUT, None),
            idle(C::VirtualIdle, V(Pinning), LONG_IDLE_TIMEOUT, None),
        ],
        cold_start_probe: vec![],
    }
}

/// Concurrency sweep on the 300-ms route: Little's law's cap.
pub(super) fn sweep_posts_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking};
    Group {
        id: GroupId::SweepPosts,
        title: "Concurrency sweep, slow downstream (300 ms)",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingPostsSweep, Blocking, "/posts/1"),
            col(C::AsyncPostsSweep, Async, "/posts/1"),
            col(C::AsyncPostsBlockingSweep, Async, "/posts/1/blocking"),
            virt(C::VirtualPostsSweep, Pinning, "/posts/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// Concurrency sweep on the database read: where each model wins.
pub(super) fn sweep_users_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::{Async, Blocking};
    Group {
        id: GroupId::SweepUsers,
        title: "Concurrency sweep, database (/users/1)",
        needs: DB,
        network: Network::Local,
        columns: vec![
            col(C::BlockingUsersSweep, Blocking, "/users/1"),
            col(C::AsyncUsersSweep, Async, "/users/1"),
            col(
                C::AsyncUsersSpawnBlockingSweep,
                Async,
                "/users/1/spawn-blocking",
            ),
            virt(C::VirtualPinningUsersSweep, Pinning, "/users/1"),
            virt(C::VirtualYieldingUsersSweep, Yielding, "/users/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// The database read with Postgres and Redis a round trip away
/// (`--db-latency`, [`REMOTE_DB_ROUND_TRIP`]): what a waiting request
/// holds in each model once the wait is longer than the work, and what
/// each driver's round trips per request make of the pool.
pub(super) fn remote_db_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::{Async, Blocking};
    Group {
        id: GroupId::RemoteDb,
        title: "Remote database: /users/1 with Postgres and Redis a round trip away",
        needs: BOTH,
        network: Network::RoundTrip(REMOTE_DB_ROUND_TRIP),
        columns: vec![
            col(C::BlockingUsersRemote, Blocking, "/users/1"),
            col(C::AsyncUsersRemote, Async, "/users/1"),
            postgres_driver(
                C::AsyncUsersDeadpoolRemote,
                "deadpool",
                DEADPOOL,
                "/users/1",
            ),
            postgres_driver(
                C::AsyncUsersPipelinedRemote,
                "pipelined",
                PIPELINED,
                "/users/1",
            ),
            virt(C::VirtualPinningUsersRemote, Pinning, "/users/1"),
            virt(C::VirtualYieldingUsersRemote, Yielding, "/users/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// /health next to the remote database read on virtual threads: does a
/// driver that holds its carrier delay requests that never touch the
/// database? (The thread pool and the event loop are not here: the mixed
/// group shows that a handler that does not block delays nobody; they were
/// [`ColumnId::BlockingHealthNextToUsersRemote`] and
/// [`ColumnId::AsyncHealthNextToUsersRemote`].)
pub(super) fn remote_mixed_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::Virtual as V;
    Group {
        id: GroupId::RemoteMixed,
        title: "Remote database, mixed: /health next to /users/1 a round trip away",
        needs: BOTH,
        network: Network::RoundTrip(REMOTE_DB_ROUND_TRIP),
        columns: vec![
            mixed(
                C::VirtualPinningHealthNextToUsersRemote,
                V(Pinning),
                "/users/1",
            ),
            mixed(
                C::VirtualYieldingHealthNextToUsersRemote,
                V(Yielding),
                "/users/1",
            ),
        ],
        cold_start_probe: vec![],
    }
}
