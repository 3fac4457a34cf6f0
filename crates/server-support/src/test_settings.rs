//! The shared settings of the tests, parsed from flags as the servers
//! parse theirs, and the Redis clients' tests' addresses.

use clap::Parser;
use server_settings::CommonSettings;

#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    common: CommonSettings,
}

/// Settings with these URLs, pools of two and this acquire timeout.
pub(crate) fn settings(database_url: &str, redis_url: &str, acquire_ms: u64) -> CommonSettings {
    let acquire = acquire_ms.to_string();
    let flags = [
        "test",
        "--database-url",
        database_url,
        "--redis-url",
        redis_url,
        "--db-pool-size",
        "2",
        "--redis-pool-size",
        "2",
        "--acquire-timeout-ms",
        &acquire,
    ];
    Flags::try_parse_from(flags).expect("test settings").common
}

/// A database no Redis test reaches.
const UNUSED_DB: &str = "postgres://postgres@127.0.0.1:9/unused";

/// Settings for a Redis client alone: this Redis URL and acquire timeout.
pub(crate) fn redis_settings(redis_url: &str, acquire_ms: u64) -> CommonSettings {
    settings(UNUSED_DB, redis_url, acquire_ms)
}

/// A Redis URL where nothing listens: a port that was free a moment ago.
pub(crate) fn closed_redis_url() -> String {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("its address")
    }; // closed: nothing listens there now
    format!("redis://{closed}")
}
