//! The connection cap under this process's open-file limit: the soft limit
//! read from the kernel (a system call), the rule applied from
//! `contract::open_files`. Every connection layer of both servers calls this.

/// A connection layer's cap and the limit it came from (for its log line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionCap {
    /// The most connections to hold open at once.
    pub connections: usize,
    /// The soft open-file limit now (`u64::MAX` when it cannot be read).
    pub open_files: u64,
}

/// The cap for connections of `fds_per_connection` descriptors each, at
/// most `max_connections`, leaving `reserved` descriptors for the rest.
pub fn connection_cap(
    max_connections: usize,
    reserved: u64,
    fds_per_connection: u64,
) -> ConnectionCap {
    let open_files = rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(u64::MAX, |(soft, _)| soft);
    ConnectionCap {
        connections: contract::open_files::connection_cap(
            max_connections,
            open_files,
            reserved,
            fds_per_connection,
        ),
        open_files,
    }
}
