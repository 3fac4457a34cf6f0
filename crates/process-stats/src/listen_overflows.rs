//! Connections the kernel dropped because a listen backlog was full: the
//! `ListenOverflows` counter of `/proc/net/netstat`'s `TcpExt` lines (what
//! `nstat` calls `TcpExtListenOverflows`), for the whole machine. A server
//! that asks for a small backlog (Tomcat's `acceptCount`, 100 by default)
//! and gets a burst of new connections has the kernel drop the SYNs past
//! it; each such client tries again a second later, a second no thread of
//! the server sees. bench reads it around each sweep step.

use std::io;

/// The machine's listen overflows since boot.
pub fn listen_overflows() -> io::Result<u64> {
    let text = std::fs::read_to_string("/proc/net/netstat")?;
    parse_listen_overflows(&text)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no TcpExt ListenOverflows"))
}

/// `ListenOverflows` from a `/proc/net/netstat` text: its `TcpExt:` lines
/// come in pairs, the names, then the values in the same order.
pub fn parse_listen_overflows(netstat: &str) -> Option<u64> {
    let mut tcp_ext = netstat.lines().filter(|l| l.starts_with("TcpExt:"));
    let (names, values) = (tcp_ext.next()?, tcp_ext.next()?);
    let at = names
        .split_whitespace()
        .position(|n| n == "ListenOverflows")?;
    values.split_whitespace().nth(at)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_the_one_under_its_name() {
        let text = "TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops\nTcpExt: 0 0 94 94\nIpExt: InNoRoutes\nIpExt: 0\n";
        assert_eq!(parse_listen_overflows(text), Some(94));
        assert_eq!(
            parse_listen_overflows("IpExt: InNoRoutes\nIpExt: 0\n"),
            None
        );
        assert!(listen_overflows().is_ok());
    }
}
