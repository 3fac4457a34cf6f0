//! Starts a throwaway Postgres cluster: `initdb` into a temporary directory,
//! then `postgres` itself as our child on a free 127.0.0.1 port.
//!
//! `postgres` is run directly rather than through `pg_ctl start`, which
//! would detach it: as our own child it gets the parent-death signal and we
//! can wait for it to exit. Settings favour a test server over a safe one:
//! trust auth, no fsync, and room for 200 connections (the servers' pools
//! plus the bench's).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context;
use rustix::process::Signal;

use crate::binaries::PostgresBinaries;
use crate::child_server::{self, ServerSpec};
use crate::unprivileged_user::RunAs;
use crate::{binaries, service_dir, unprivileged_user};

/// `initdb` writes a few thousand files; a slow disk can take a while.
const INITDB_TIMEOUT: Duration = Duration::from_secs(120);
/// The superuser `initdb` creates, whatever OS user runs it.
const SUPERUSER: &str = "postgres";

/// Starts a cluster and returns its admin URL, or `None` when no `initdb`
/// and `postgres` binaries are installed. `answers` is the service's own
/// check that a server at a URL answers (crate::postgres_service), tried
/// until the new cluster passes it.
pub(crate) fn start(
    answers: &dyn Fn(&str) -> anyhow::Result<()>,
) -> anyhow::Result<Option<String>> {
    let Some(NewCluster {
        binaries,
        run_as,
        dir,
        data_dir,
    }) = new_cluster("postgres")?
    else {
        return Ok(None);
    };
    let socket_dir = dir.path().to_path_buf();
    let command =
        |port: u16| postgres_command(&binaries, &data_dir, &socket_dir, run_as.as_ref(), port);
    let probe = |port: u16| answers(&admin_url(port));
    let spec = ServerSpec {
        name: "postgres",
        command: &command,
        probe: &probe,
        // SIGQUIT is Postgres's immediate shutdown: nothing to keep.
        death_signal: Signal::QUIT,
        // SIGINT is its fast shutdown: clients are cut off, files closed.
        stop_signal: Signal::INT,
    };
    let port = child_server::start(&spec, dir)?;
    Ok(Some(admin_url(port)))
}

/// A cluster `initdb` has made, whose server has not started yet.
pub(crate) struct NewCluster {
    pub(crate) binaries: PostgresBinaries,
    /// The OS user Postgres runs as, when we are root (it refuses root).
    pub(crate) run_as: Option<RunAs>,
    /// Its own temporary folder (service_dir's `kind`), owned by `run_as`.
    pub(crate) dir: tempfile::TempDir,
    pub(crate) data_dir: PathBuf,
}

/// Makes a cluster in a new temporary folder of `kind`; `None` when no
/// `initdb` and `postgres` binaries are installed.
pub(crate) fn new_cluster(kind: &str) -> anyhow::Result<Option<NewCluster>> {
    let Some(binaries) = binaries::find_postgres() else {
        return Ok(None);
    };
    let run_as = unprivileged_user::for_postgres()?;
    let dir = service_dir::create(kind)?;
    if let Some(user) = &run_as {
        std::os::unix::fs::chown(dir.path(), Some(user.uid), Some(user.gid))
            .with_context(|| format!("give {} to user {}", dir.path().display(), user.name))?;
    }
    let data_dir = initdb(&binaries, dir.path(), run_as.as_ref())?;
    Ok(Some(NewCluster {
        binaries,
        run_as,
        dir,
        data_dir,
    }))
}

/// Initialises a cluster in `dir` (its `data` folder, returned), as
/// `run_as` when given.
pub(crate) fn initdb(
    binaries: &PostgresBinaries,
    dir: &Path,
    run_as: Option<&RunAs>,
) -> anyhow::Result<PathBuf> {
    let data_dir = dir.join("data");
    let mut initdb = Command::new(&binaries.initdb);
    initdb
        .arg("--pgdata")
        .arg(&data_dir)
        .args(["--username", SUPERUSER, "--auth=trust"])
        .args(["--encoding=UTF8", "--no-locale", "--no-sync"]);
    prepare(&mut initdb, dir, run_as);
    child_server::run_to_completion("initdb", initdb, &dir.join("initdb.log"), INITDB_TIMEOUT)
        .with_context(|| format!("initialise a cluster with {}", binaries.initdb.display()))?;
    Ok(data_dir)
}

/// The command that serves the cluster in `data_dir` on `port` of
/// 127.0.0.1, with its socket in `socket_dir`.
pub(crate) fn postgres_command(
    binaries: &PostgresBinaries,
    data_dir: &Path,
    socket_dir: &Path,
    run_as: Option<&RunAs>,
    port: u16,
) -> Command {
    let mut postgres = Command::new(&binaries.postgres);
    postgres
        .arg("-D")
        .arg(data_dir)
        .arg("-p")
        .arg(port.to_string())
        // Our own socket directory: the default one may not exist or
        // belong to a system cluster.
        .arg("-k")
        .arg(socket_dir)
        .args(["-c", "listen_addresses=127.0.0.1"])
        .args(["-c", "fsync=off"])
        .args(["-c", "max_connections=200"]);
    prepare(&mut postgres, socket_dir, run_as);
    postgres
}

pub(crate) fn admin_url(port: u16) -> String {
    format!("postgres://{SUPERUSER}@127.0.0.1:{port}/postgres")
}

/// Runs the tool in its own directory (our working directory may be
/// unreadable to the other user) and as the other user when we are root.
fn prepare(command: &mut Command, dir: &Path, run_as: Option<&RunAs>) {
    command.current_dir(dir);
    if let Some(user) = run_as {
        command.uid(user.uid).gid(user.gid);
    }
}
