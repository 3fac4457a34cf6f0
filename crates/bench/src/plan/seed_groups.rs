//! The seeds' groups of the matrix (seeds 000 to 003): CPU, database,
//! cache, slow downstream, /health, JSON and the ramp, each with a column
//! per server, virtual threads' included. Pure data.

use super::column::{
    col, echo, postgres_driver, redis_client, tiny_http, virt, DEADPOOL, PIPELINED,
};
use super::group::{Group, BOTH, DB, NONE};
use bench_model::ColumnId as C;
use bench_model::Driver::{Pinning, Yielding};
use bench_model::GroupId;
use bench_model::Target::{Async, Blocking};

/// Seed 000, CPU-bound: the loop inline, on rayon and on spawn_blocking.
pub(super) fn cpu_group() -> Group {
    const CPU: &str = "/cpu?n={cpu_n}";
    let columns = vec![
        col(C::BlockingCpu, Blocking, CPU),
        col(C::AsyncCpu, Async, CPU),
        col(C::AsyncCpuRayon, Async, "/cpu/rayon?n={cpu_n}"),
        col(
            C::AsyncCpuSpawnBlocking,
            Async,
            "/cpu/spawn-blocking?n={cpu_n}",
        ),
        virt(C::VirtualCpu, Pinning, CPU),
    ];
    Group::local(GroupId::Cpu, "CPU-bound (seed 000)", NONE, columns)
}

/// Seed 000, I/O-bound: the database read, with each driver and offload
/// (the async server's three Postgres drivers among them).
pub(super) fn database_group() -> Group {
    const USERS: &str = "/users/1";
    let columns = vec![
        col(C::BlockingUsers, Blocking, USERS),
        tiny_http(C::BlockingUsersTinyHttp, USERS),
        col(C::AsyncUsers, Async, USERS),
        postgres_driver(C::AsyncUsersDeadpool, "deadpool", DEADPOOL, USERS),
        postgres_driver(C::AsyncUsersPipelined, "pipelined", PIPELINED, USERS),
        col(C::AsyncUsersBlocking, Async, "/users/1/blocking"),
        col(C::AsyncUsersSpawnBlocking, Async, "/users/1/spawn-blocking"),
        virt(C::VirtualPinningUsers, Pinning, USERS),
        virt(C::VirtualYieldingUsers, Yielding, USERS),
    ];
    let title = "I/O-bound, database (seed 000)";
    Group::local(GroupId::Database, title, DB, columns)
}

/// Seed 001: two Redis GETs, with each Redis client.
pub(super) fn cache_group() -> Group {
    const CACHE: &str = "/users/1/cache";
    let columns = vec![
        col(C::BlockingCache, Blocking, CACHE),
        col(C::AsyncCache, Async, CACHE),
        redis_client(
            C::AsyncCacheDeadpoolRedis,
            "deadpool-redis",
            &["--redis-client", "deadpool-redis"],
        ),
        redis_client(C::AsyncCachePool, "our pool", &["--redis-client", "pool"]),
        col(C::AsyncCacheBlocking, Async, "/users/1/cache/blocking"),
        virt(C::VirtualPinningCache, Pinning, CACHE),
        virt(C::VirtualYieldingCache, Yielding, CACHE),
    ];
    let title = "Cache, two Redis GETs (seed 001)";
    Group::local(GroupId::Cache, title, BOTH, columns)
}

/// Seed 001: a 300-ms downstream call.
pub(super) fn slow_group() -> Group {
    const POSTS: &str = "/posts/1";
    let columns = vec![
        col(C::BlockingPosts, Blocking, POSTS),
        tiny_http(C::BlockingPostsTinyHttp, POSTS),
        col(C::AsyncPosts, Async, POSTS),
        col(C::AsyncPostsBlocking, Async, "/posts/1/blocking"),
        virt(C::VirtualPosts, Pinning, POSTS),
    ];
    let title = "Slow downstream, 300 ms (seed 001)";
    Group::local(GroupId::Slow, title, NONE, columns)
}

/// Seed 001: /health, and the cold-start probe of tiny_http against our connector.
pub(super) fn baseline_group() -> Group {
    const HEALTH: &str = "/health";
    let columns = vec![
        col(C::BlockingHealth, Blocking, HEALTH),
        tiny_http(C::BlockingHealthTinyHttp, HEALTH),
        col(C::AsyncHealth, Async, HEALTH),
        virt(C::VirtualHealth, Pinning, HEALTH),
    ];
    let title = "Baseline, /health (seed 001)";
    Group {
        cold_start_probe: vec![C::BlockingHealthTinyHttp, C::BlockingHealth],
        ..Group::local(GroupId::Baseline, title, NONE, columns)
    }
}

/// Seed 003: the JSON echo.
pub(super) fn json_group() -> Group {
    let columns = vec![
        echo(C::BlockingEcho, Blocking),
        echo(C::AsyncEcho, Async),
        echo(C::VirtualEcho, bench_model::Target::Virtual(Pinning)),
    ];
    Group::local(GroupId::Json, "JSON echo (seed 003)", NONE, columns)
}

/// Seed 002: the database read under k6 stages, with each async driver.
/// The pinning driver is not here: the database group shows it (it was
/// [`C::VirtualPinningUsersRamp`]).
pub(super) fn ramp_group() -> Group {
    const USERS: &str = "/users/{rand:1-10000}";
    let columns = vec![
        col(C::BlockingUsersRamp, Blocking, USERS),
        col(C::AsyncUsersRamp, Async, USERS),
        postgres_driver(C::AsyncUsersDeadpoolRamp, "deadpool", DEADPOOL, USERS),
        postgres_driver(C::AsyncUsersPipelinedRamp, "pipelined", PIPELINED, USERS),
        virt(C::VirtualYieldingUsersRamp, Yielding, USERS),
    ];
    let title = "Ramping load on the database (seed 002)";
    Group::local(GroupId::Ramp, title, DB, columns)
}
