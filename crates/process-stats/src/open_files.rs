//! How many files (sockets included) a process holds open, and its open-file
//! limit: bench counts a server's sockets to see idle connections really held
//! and really closed, and checks that they fit under the server's own limit.

use std::io;
use std::path::Path;

/// Entries of `/proc/<pid>/fd`: every open file, socket and pipe of `pid`.
pub fn open_fds(pid: u32) -> io::Result<u64> {
    let dir = Path::new("/proc").join(pid.to_string()).join("fd");
    Ok(std::fs::read_dir(dir)?.count() as u64)
}

/// The soft open-file limit of `pid` (`Max open files` in
/// `/proc/<pid>/limits`); `None` when it is unlimited.
pub fn open_files_limit(pid: u32) -> io::Result<Option<u64>> {
    let text = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("limits"))?;
    parse_open_files_limit(&text)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no Max open files line"))
}

/// The soft limit on the `Max open files` line of a `/proc/<pid>/limits`
/// text: `Some(Some(n))`, `Some(None)` for "unlimited", `None` without the line.
pub fn parse_open_files_limit(limits: &str) -> Option<Option<u64>> {
    let rest = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))?;
    let soft = rest.split_whitespace().next()?;
    match soft {
        "unlimited" => Some(None),
        n => n.parse().ok().map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_the_first_figure() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max processes             192730               192730               processes \n\
                    Max open files            20000                524288               files     \n";
        assert_eq!(parse_open_files_limit(text), Some(Some(20000)));
        assert_eq!(
            parse_open_files_limit("Max open files  unlimited  unlimited  files"),
            Some(None)
        );
        assert_eq!(parse_open_files_limit("Max processes 1 1 processes"), None);
    }

    #[test]
    fn this_process_has_open_files_and_a_limit() {
        // Other tests of this binary open files too: only "some" is exact.
        let me = std::process::id();
        let _file = std::fs::File::open("/proc/self/status").unwrap();
        assert!(open_fds(me).unwrap() >= 1);
        assert!(open_files_limit(me).unwrap().is_none_or(|n| n > 0));
    }
}
