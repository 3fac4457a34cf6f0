//! The project's own groups of the matrix: the mixed load, the stall
//! detectors', idle connections, the concurrency sweeps and the
//! remote-database groups, each with virtual threads' columns. Pure data.

use super::column::{
    col, idle, mixed, postgres_driver, virt, DEADPOOL, LONG_IDLE_TIMEOUT, PIPELINED,
};
use super::group::{Group, BOTH, DB, NONE, REMOTE_DB_ROUND_TRIP, STALLS_ROUND_TRIP};
use bench_model::ColumnId as C;
use bench_model::Driver::{Pinning, Yielding};
use bench_model::GroupId;
use bench_model::Target::{Async, Blocking, Virtual as V};

/// /health next to each background load: does a blocked event loop delay
/// everyone? (Virtual threads next to the slow downstream are not here: a
/// sleep parks a coroutine, as the sweep shows; it was
/// [`C::VirtualHealthNextToPosts`]. Nor are both drivers next to a
/// local /users/1: the remote-mixed group shows what a pinned carrier does
/// to /health with the query a round trip away; they were
/// [`C::VirtualPinningHealthNextToUsers`] and
/// [`C::VirtualYieldingHealthNextToUsers`].)
pub(super) fn mixed_group() -> Group {
    const CPU: &str = "/cpu?n={cpu_n}";
    let columns = vec![
        mixed(C::BlockingHealthNextToCpu, Blocking, CPU),
        mixed(C::AsyncHealthNextToCpu, Async, CPU),
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
        mixed(C::VirtualHealthNextToCpu, V(Pinning), CPU),
    ];
    let title = "Mixed: /health next to a background load";
    Group::local(GroupId::Mixed, title, BOTH, columns)
}

/// The stall detector's timing: blocking long enough to be seen by the clock.
pub(super) fn stalls_group() -> Group {
    const CPU: &str = "/cpu?n={stall_cpu_n}";
    let columns = vec![
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
        col(C::AsyncCpuStalls, Async, CPU),
        virt(C::VirtualPinningUsersStalls, Pinning, "/users/1"),
        virt(C::VirtualPinningCacheStalls, Pinning, "/users/1/cache"),
        virt(C::VirtualPinningPostsStalls, Pinning, "/posts/1"),
        virt(C::VirtualPinningCpuStalls, Pinning, CPU),
        virt(C::VirtualYieldingUsersStalls, Yielding, "/users/1"),
        virt(C::VirtualYieldingCacheStalls, Yielding, "/users/1/cache"),
    ];
    let title = "Stall detectors: blocking that lasts (Postgres and Redis 10 ms away, long /cpu)";
    Group::local(GroupId::Stalls, title, BOTH, columns).behind(STALLS_ROUND_TRIP)
}

/// What an idle keep-alive connection costs each server.
pub(super) fn idle_group() -> Group {
    const TINY_HTTP: &[&str] = &[
        "--connector",
        "tiny-http",
        "--header-read-timeout-ms",
        "600000",
    ];
    let columns = vec![
        idle(C::BlockingIdle, Blocking, LONG_IDLE_TIMEOUT, None),
        idle(
            C::BlockingIdleTinyHttp,
            Blocking,
            TINY_HTTP,
            Some("tiny_http"),
        ),
        idle(C::AsyncIdle, Async, LONG_IDLE_TIMEOUT, None),
        idle(C::VirtualIdle, V(Pinning), LONG_IDLE_TIMEOUT, None),
    ];
    let title = "Idle keep-alive connections: what each costs";
    Group::local(GroupId::Idle, title, NONE, columns)
}

/// Concurrency sweep on the 300-ms route: Little's law's cap.
pub(super) fn sweep_posts_group() -> Group {
    let columns = vec![
        col(C::BlockingPostsSweep, Blocking, "/posts/1"),
        col(C::AsyncPostsSweep, Async, "/posts/1"),
        col(C::AsyncPostsBlockingSweep, Async, "/posts/1/blocking"),
        virt(C::VirtualPostsSweep, Pinning, "/posts/1"),
    ];
    let title = "Concurrency sweep, slow downstream (300 ms)";
    Group::local(GroupId::SweepPosts, title, NONE, columns)
}

/// Concurrency sweep on the database read: where each model wins, each on
/// its Spring default's analogue (the event loop's driver is
/// deadpool-postgres, r2dbc-pool's exclusive checkout without a round trip;
/// it was sqlx, [`C::AsyncUsersSweep`]).
pub(super) fn sweep_users_group() -> Group {
    let columns = vec![
        col(C::BlockingUsersSweep, Blocking, "/users/1"),
        postgres_driver(C::AsyncUsersDeadpoolSweep, "deadpool", DEADPOOL, "/users/1"),
        col(
            C::AsyncUsersSpawnBlockingSweep,
            Async,
            "/users/1/spawn-blocking",
        ),
        virt(C::VirtualPinningUsersSweep, Pinning, "/users/1"),
        virt(C::VirtualYieldingUsersSweep, Yielding, "/users/1"),
    ];
    let title = "Concurrency sweep, database (/users/1)";
    Group::local(GroupId::SweepUsers, title, DB, columns)
}

/// The database read with Postgres and Redis a round trip away
/// (`--db-latency`, [`REMOTE_DB_ROUND_TRIP`]): what a waiting request
/// holds in each model once the wait is longer than the work, and what
/// each driver's round trips per request make of the pool.
pub(super) fn remote_db_group() -> Group {
    const USERS: &str = "/users/1";
    let columns = vec![
        col(C::BlockingUsersRemote, Blocking, USERS),
        col(C::AsyncUsersRemote, Async, USERS),
        postgres_driver(C::AsyncUsersDeadpoolRemote, "deadpool", DEADPOOL, USERS),
        postgres_driver(C::AsyncUsersPipelinedRemote, "pipelined", PIPELINED, USERS),
        virt(C::VirtualPinningUsersRemote, Pinning, USERS),
        virt(C::VirtualYieldingUsersRemote, Yielding, USERS),
    ];
    let title = "Remote database: /users/1 with Postgres and Redis a round trip away";
    Group::local(GroupId::RemoteDb, title, BOTH, columns).behind(REMOTE_DB_ROUND_TRIP)
}

/// /health next to the remote database read on virtual threads: does a
/// driver that holds its carrier delay requests that never touch the
/// database? (The thread pool and the event loop are not here: the mixed
/// group shows that a handler that does not block delays nobody; they were
/// [`C::BlockingHealthNextToUsersRemote`] and
/// [`C::AsyncHealthNextToUsersRemote`].)
pub(super) fn remote_mixed_group() -> Group {
    let columns = vec![
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
    ];
    let title = "Remote database, mixed: /health next to /users/1 a round trip away";
    Group::local(GroupId::RemoteMixed, title, BOTH, columns).behind(REMOTE_DB_ROUND_TRIP)
}
