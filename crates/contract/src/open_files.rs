//! How many client connections a server may hold open under the process's
//! open-file limit: one rule for every connection layer (the async server's
//! accept loop, the blocking server's nio connector and its virtual threads).
//!
//! A server that accepts until `accept(2)` fails with `EMFILE` has used the
//! descriptors its pools need: every new pool connection then fails too, and
//! a pool that cannot connect answers no request, while the acceptor takes
//! each descriptor a closing connection frees. So each connection layer
//! stops accepting at the cap computed here, leaving room for the pools and
//! the rest, and new clients wait in the listen backlog until a connection
//! closes, as Tomcat's `maxConnections` makes them wait.

/// Descriptors a server holds apart from its connections and pools: the
/// listener, epoll and event fds, the log, the runtime's and std's own.
const RESERVED_FDS: u64 = 128;

/// Descriptors a pooled connection may hold: the sync Postgres driver's
/// socket and its own runtime's epoll and event fds (the async drivers hold
/// one, a socket). Counting every pool at the largest keeps one rule for
/// every server and driver.
const FDS_PER_POOLED_CONNECTION: u64 = 4;

/// The descriptors to keep free of client connections beside a Postgres
/// pool of `db_pool_size` and a Redis pool of `redis_pool_size`: the
/// reserve above plus every pool at its full size.
pub fn reserved_fds(db_pool_size: u32, redis_pool_size: u32) -> u64 {
    RESERVED_FDS
        + FDS_PER_POOLED_CONNECTION * (u64::from(db_pool_size) + u64::from(redis_pool_size))
}

/// The most connections that fit in `open_files` descriptors beside
/// `reserved` ones, each connection holding `fds_per_connection`: at most
/// `max_connections`, and at least one, so that a limit too low for the
/// pools still serves (and its warning says why it is slow).
pub fn connection_cap(
    max_connections: usize,
    open_files: u64,
    reserved: u64,
    fds_per_connection: u64,
) -> usize {
    let room = open_files.saturating_sub(reserved) / fds_per_connection.max(1);
    usize::try_from(room).map_or(max_connections, |room| room.clamp(1, max_connections))
}

#[cfg(test)]
mod tests {
    use super::connection_cap;

    #[test]
    fn the_cap_is_the_room_left_per_connection() {
        // A high limit leaves `max_connections` in charge.
        assert_eq!(connection_cap(10_000, 1_048_576, 208, 2), 10_000);
        // 20,000 descriptors, 208 reserved, two per connection.
        assert_eq!(connection_cap(10_000, 20_000, 208, 2), 9_896);
        // One per connection, no maximum of its own.
        assert_eq!(connection_cap(usize::MAX, 1_000, 208, 1), 792);
        // A limit below the reserve still serves one.
        assert_eq!(connection_cap(10_000, 100, 208, 2), 1);
    }
}
