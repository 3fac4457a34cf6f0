//! Picks the user a throwaway Postgres runs as.
//!
//! `initdb` and `postgres` refuse to run as root, and CI runs everything as
//! root. So when we are root, the server runs as the `postgres` system user
//! if the machine has one (installing PostgreSQL creates it), else as
//! `nobody`; its temporary directory is handed to that user.

use anyhow::Context;

/// A user to run a child process as.
#[derive(Debug, Clone)]
pub(crate) struct RunAs {
    pub(crate) name: String,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

/// `None` when we are not root (the server then runs as us), else the user
/// to switch to.
pub(crate) fn for_postgres() -> anyhow::Result<Option<RunAs>> {
    if !rustix::process::geteuid().is_root() {
        return Ok(None);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").context("read /etc/passwd")?;
    ["postgres", "nobody"]
        .iter()
        .find_map(|name| lookup(&passwd, name))
        .map(Some)
        .context(
            "we run as root, which initdb refuses, and /etc/passwd has neither a \
             postgres nor a nobody user to run it as",
        )
}

/// Finds `name` in the text of `/etc/passwd` (name:password:uid:gid:...).
fn lookup(passwd: &str, name: &str) -> Option<RunAs> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        let _password = fields.next()?;
        let uid = fields.next()?.parse().ok()?;
        let gid = fields.next()?.parse().ok()?;
        Some(RunAs {
            name: name.to_owned(),
            uid,
            gid,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n\
        postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";

    #[test]
    fn lookup_reads_uid_and_gid() {
        let user = lookup(PASSWD, "postgres").expect("postgres is listed");
        assert_eq!((user.uid, user.gid), (101, 104));
        let user = lookup(PASSWD, "nobody").expect("nobody is listed");
        assert_eq!((user.uid, user.gid), (65534, 65534));
    }

    #[test]
    fn lookup_needs_an_exact_name() {
        assert!(lookup(PASSWD, "post").is_none());
        assert!(lookup(PASSWD, "redis").is_none());
    }
}
