//! The open-file limit: raised as far as the OS allows before a run, and
//! checked against the connections the plan needs, so that a burst too big
//! for the limit fails before sending anything instead of half-way through.

/// File descriptors the process needs besides its connections (stdio, the
/// runtime's epoll and wake-up descriptors, a margin).
pub const RESERVED_FDS: u64 = 64;

/// Why the connections cannot fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{connections} connections need about {needed} open files but the limit is {soft} \
     (hard limit {hard}); raise it with `ulimit -n {needed}` before running \
     (raising the hard limit needs root or /etc/security/limits.conf)"
)]
pub struct FdLimitError {
    pub connections: usize,
    pub needed: u64,
    pub soft: u64,
    pub hard: u64,
}

/// Raises the soft limit to the hard limit and checks that `connections`
/// fit. Returns the limit in force.
pub fn ensure_fd_capacity(connections: usize) -> Result<u64, FdLimitError> {
    let needed = connections as u64 + RESERVED_FDS;
    // Raising can only fail on exotic systems; the check below still tells
    // the user what the limit is.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap_or((u64::MAX, u64::MAX));
    if needed > soft {
        return Err(FdLimitError {
            connections,
            needed,
            soft,
            hard,
        });
    }
    Ok(soft)
}
