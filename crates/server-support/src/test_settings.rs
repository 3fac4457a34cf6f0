//! The shared settings of the tests, parsed from flags as the servers
//! parse theirs.

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
