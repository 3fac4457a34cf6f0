//! The seeds' groups of the matrix (seeds 000 to 003): CPU, database,
//! cache, slow downstream, /health, JSON and the ramp, each with a column
//! per server, virtual threads' included. Pure data.

use super::matrix::{
    col, postgres_driver, redis_client, tiny_http, virt, Column, Group, Network, BOTH, DB,
    DEADPOOL, ECHO_BODY, NONE, PIPELINED,
};
use bench_model::{ColumnId, Driver, GroupId, Target};

/// Seed 000, CPU-bound: the loop inline, on rayon and on spawn_blocking.
pub(super) fn cpu_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Cpu,
        title: "CPU-bound (seed 000)",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingCpu, Blocking, "/cpu?n={cpu_n}"),
            col(C::AsyncCpu, Async, "/cpu?n={cpu_n}"),
            col(C::AsyncCpuRayon, Async, "/cpu/rayon?n={cpu_n}"),
            col(
                C::AsyncCpuSpawnBlocking,
                Async,
                "/cpu/spawn-blocking?n={cpu_n}",
            ),
            virt(C::VirtualCpu, Pinning, "/cpu?n={cpu_n}"),
        ],
        cold_start_probe: vec![],
    }
}

/// Seed 000, I/O-bound: the database read, with each driver and offload
/// (the async server's three Postgres drivers among them).
pub(super) fn database_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Database,
        title: "I/O-bound, database (seed 000)",
        needs: DB,
        network: Network::Local,
        columns: vec![
            col(C::BlockingUsers, Blocking, "/users/1"),
            tiny_http(C::BlockingUsersTinyHttp, "/users/1"),
            col(C::AsyncUsers, Async, "/users/1"),
            postgres_driver(C::AsyncUsersDeadpool, "deadpool", DEADPOOL, "/users/1"),
            postgres_driver(C::AsyncUsersPipelined, "pipelined", PIPELINED, "/users/1"),
            col(C::AsyncUsersBlocking, Async, "/users/1/blocking"),
            col(C::AsyncUsersSpawnBlocking, Async, "/users/1/spawn-blocking"),
            virt(C::VirtualPinningUsers, Pinning, "/users/1"),
            virt(C::VirtualYieldingUsers, Yielding, "/users/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// Seed 001: two Redis GETs, with each Redis client.
pub(super) fn cache_group() -> Group {
    use ColumnId as C;
    use Driver::{Pinning, Yielding};
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Cache,
        title: "Cache, two Redis GETs (seed 001)",
        needs: BOTH,
        network: Network::Local,
        columns: vec![
            col(C::BlockingCache, Blocking, "/users/1/cache"),
            col(C::AsyncCache, Async, "/users/1/cache"),
            redis_client(
                C::AsyncCacheDeadpoolRedis,
                "deadpool-redis",
                &["--redis-client", "deadpool-redis"],
            ),
            redis_client(C::AsyncCachePool, "our pool", &["--redis-client", "pool"]),
            col(C::AsyncCacheBlocking, Async, "/users/1/cache/blocking"),
            virt(C::VirtualPinningCache, Pinning, "/users/1/cache"),
            virt(C::VirtualYieldingCache, Yielding, "/users/1/cache"),
        ],
        cold_start_probe: vec![],
    }
}

/// Seed 001: a 300-ms downstream call.
pub(super) fn slow_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Slow,
        title: "Slow downstream, 300 ms (seed 001)",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingPosts, Blocking, "/posts/1"),
            tiny_http(C::BlockingPostsTinyHttp, "/posts/1"),
            col(C::AsyncPosts, Async, "/posts/1"),
            col(C::AsyncPostsBlocking, Async, "/posts/1/blocking"),
            virt(C::VirtualPosts, Pinning, "/posts/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// Seed 001: /health, and the cold-start probe of tiny_http against our connector.
pub(super) fn baseline_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Baseline,
        title: "Baseline, /health (seed 001)",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingHealth, Blocking, "/health"),
            tiny_http(C::BlockingHealthTinyHttp, "/health"),
            col(C::AsyncHealth, Async, "/health"),
            virt(C::VirtualHealth, Pinning, "/health"),
        ],
        cold_start_probe: vec![C::BlockingHealthTinyHttp, C::BlockingHealth],
    }
}

/// Seed 003: the JSON echo.
pub(super) fn json_group() -> Group {
    use ColumnId as C;
    use Driver::Pinning;
    use Target::{Async, Blocking};
    Group {
        id: GroupId::Json,
        title: "JSON echo (seed 003)",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            Column {
                method: "POST",
                body: Some(ECHO_BODY),
                ..col(C::BlockingEcho, Blocking, "/echo")
            },
            Column {
                method: "POST",
                body: Some(ECHO_BODY),
                ..col(C::AsyncEcho, Async, "/echo")
            },
            Column {
                method: "POST",
                body: Some(ECHO_BODY),
                ..virt(C::VirtualEcho, Pinning, "/echo")
            },
        ],
        cold_start_probe: vec![],
    }
}

/// Seed 002: the database read under k6 stages, with each async driver.
/// The pinning driver is not here: the database group shows it (it was
/// [`ColumnId::VirtualPinningUsersRamp`]).
pub(super) fn ramp_group() -> Group {
    use ColumnId as C;
    use Driver::Yielding;
    use Target::{Async, Blocking};
    const USERS: &str = "/users/{rand:1-10000}";
    Group {
        id: GroupId::Ramp,
        title: "Ramping load on the database (seed 002)",
        needs: DB,
        network: Network::Local,
        columns: vec![
            col(C::BlockingUsersRamp, Blocking, USERS),
            col(C::AsyncUsersRamp, Async, USERS),
            postgres_driver(C::AsyncUsersDeadpoolRamp, "deadpool", DEADPOOL, USERS),
            postgres_driver(C::AsyncUsersPipelinedRamp, "pipelined", PIPELINED, USERS),
            virt(C::VirtualYieldingUsersRamp, Yielding, USERS),
        ],
        cold_start_probe: vec![],
    }
}
