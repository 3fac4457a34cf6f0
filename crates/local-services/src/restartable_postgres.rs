//! A Postgres cluster of a test's own that the test stops and starts again
//! for real, the way an operator restarts a database under a running
//! service: a fast shutdown (SIGINT, `pg_ctl stop -m fast`: every client is
//! cut off), then `postgres` started again on the same port and data.
//!
//! Never the machine's Postgres, which others share: the cluster is made
//! by `initdb` in a temporary directory (crate::throwaway_postgres's), runs
//! as our child on a free 127.0.0.1 port, dies with this process (the
//! parent-death signal) and is removed when dropped.

use std::path::PathBuf;
use std::process::Child;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rustix::process::{kill_process, Pid, Signal};
use tempfile::TempDir;

use crate::binaries::PostgresBinaries;
use crate::unprivileged_user::RunAs;
use crate::{child_server, parent_death, postgres_service, spawner, throwaway_postgres};

/// How long a start may take before the cluster answers.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a fast shutdown may take before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);

/// A cluster that can be stopped and started again; stopped and removed on drop.
pub struct RestartablePostgres {
    binaries: PostgresBinaries,
    run_as: Option<RunAs>,
    data_dir: PathBuf,
    port: u16,
    /// `postgres`, while it runs.
    child: Option<Child>,
    // Last: removed once the server has stopped.
    dir: TempDir,
}

impl std::fmt::Debug for RestartablePostgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestartablePostgres")
            .field("port", &self.port)
            .field("running", &self.child.is_some())
            .finish()
    }
}

impl RestartablePostgres {
    /// Initialises a cluster and starts it; `None` when no `initdb` and
    /// `postgres` binaries are installed.
    pub fn start() -> anyhow::Result<Option<RestartablePostgres>> {
        let Some(throwaway_postgres::NewCluster {
            binaries,
            run_as,
            dir,
            data_dir,
        }) = throwaway_postgres::new_cluster("postgres-restartable")?
        else {
            return Ok(None);
        };
        let port = child_server::free_port().context("find a free port on 127.0.0.1")?;
        let mut cluster = RestartablePostgres {
            binaries,
            run_as,
            data_dir,
            port,
            child: None,
            dir,
        };
        cluster.start_again()?;
        Ok(Some(cluster))
    }

    /// The URL of its `postgres` database, as its superuser (trust auth).
    pub fn url(&self) -> String {
        throwaway_postgres::admin_url(self.port)
    }

    /// Stops it with a fast shutdown (SIGINT: open connections are
    /// terminated, as by `pg_ctl stop -m fast`) and waits for it to exit.
    pub fn stop(&mut self) -> anyhow::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let _ = kill_process(Pid::from_child(&child), Signal::INT);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if child.try_wait().context("wait for postgres")?.is_some() {
                return Ok(());
            }
            thread::sleep(POLL);
        }
        let _ = child.kill();
        let _ = child.wait();
        bail!("postgres did not stop within {STOP_TIMEOUT:?} of a fast shutdown; killed")
    }

    /// Starts it (again) on its port and data, and waits until it runs a
    /// query; how long that took.
    pub fn start_again(&mut self) -> anyhow::Result<Duration> {
        if self.child.is_some() {
            bail!("postgres is already running");
        }
        let began = Instant::now();
        let log = self.dir.path().join("postgres.log");
        let mut command = throwaway_postgres::postgres_command(
            &self.binaries,
            &self.data_dir,
            self.dir.path(),
            self.run_as.as_ref(),
            self.port,
        );
        child_server::send_output_to(&mut command, &log)?;
        parent_death::die_with_parent(&mut command, Signal::QUIT);
        let mut child = spawner::spawn(command).context("start postgres")?;
        let url = self.url();
        loop {
            if let Some(status) = child.try_wait().context("check on postgres")? {
                bail!(
                    "postgres exited during start-up ({status}); the end of its log:\n{}",
                    child_server::log_tail(&log)
                );
            }
            match postgres_service::probe(&url, Duration::from_secs(1)) {
                Ok(()) => break,
                Err(error) if began.elapsed() > READY_TIMEOUT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(error.context(format!(
                        "postgres did not answer within {READY_TIMEOUT:?}; the end of its log:\n{}",
                        child_server::log_tail(&log)
                    )));
                }
                Err(_) => thread::sleep(POLL),
            }
        }
        self.child = Some(child);
        Ok(began.elapsed())
    }
}

impl Drop for RestartablePostgres {
    fn drop(&mut self) {
        if let Err(error) = self.stop() {
            eprintln!("local-services: {error:#}");
        }
    }
}
