//! The process-wide Postgres: found (running) or started (throwaway), and
//! throwaway databases on it for tests.

use std::time::Duration;

use anyhow::Context;
use postgres::error::SqlState;
use postgres::NoTls;
use uuid::Uuid;

use crate::service_lookup::{find_running_or_start, ServiceSpec};
use crate::service_slot::ServiceSlot;
use crate::{plain_thread, throwaway_postgres};
use contract::settings::redact_url;
use contract::sql::MIGRATIONS;

/// Used when `DATABASE_URL` is not set: a local server with trust auth.
const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// What the lookup (`service_lookup`) needs to know about Postgres.
const SERVICE: ServiceSpec = ServiceSpec {
    name: "Postgres",
    url_var: "DATABASE_URL",
    default_url: DEFAULT_URL,
    binaries_missing: "no initdb/postgres binaries were found on PATH or in \
         /usr/lib/postgresql/*/bin",
    package: "postgresql",
};

/// Connect timeout for admin work on a server already known to answer.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(5);

static POSTGRES: ServiceSlot<Postgres> = ServiceSlot::new();

/// A Postgres server that answers, with rights to create databases.
#[derive(Debug)]
pub struct Postgres {
    admin_url: String,
    started_here: bool,
}

/// The process-wide Postgres: the one at `DATABASE_URL` (default
/// `postgres://postgres@127.0.0.1:5432/postgres`) if it answers within about
/// a second; else a throwaway cluster started from the installed `initdb`
/// and `postgres`; else an error saying what to install.
///
/// The first call decides (and may take a few seconds to start a cluster);
/// later calls return the same answer at once.
pub fn postgres() -> anyhow::Result<&'static Postgres> {
    POSTGRES.get_or_find(find_or_start)
}

/// A migrated database ([`Postgres::migrated_database`]) on the
/// process-wide Postgres ([`postgres`]): what a driver's test reads.
pub fn migrated_database() -> anyhow::Result<TestDatabase> {
    postgres()?.migrated_database()
}

impl Postgres {
    /// URL of the maintenance database: the one `DATABASE_URL` names, or
    /// `postgres` on a throwaway cluster.
    pub fn admin_url(&self) -> &str {
        &self.admin_url
    }

    /// True when this process started the server (a throwaway cluster).
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// Creates an empty database named `t_<uuid>` (no schema: callers apply
    /// their migrations), dropped again when the returned value is dropped.
    pub fn fresh_database(&self) -> anyhow::Result<TestDatabase> {
        let name = format!("t_{}", Uuid::new_v4().simple());
        let url = url_with_database(&self.admin_url, &name)?;
        let admin_url = self.admin_url.clone();
        plain_thread::run(|| create_database(&admin_url, &name))?;
        Ok(TestDatabase {
            admin_url,
            url,
            name,
        })
    }

    /// A fresh database ([`Postgres::fresh_database`]) with the servers'
    /// schema and its 10,000 users (`contract::sql::MIGRATIONS`, in one
    /// transaction, as a server applies them at start-up): for the tests
    /// of a driver that read the seed without starting a server.
    pub fn migrated_database(&self) -> anyhow::Result<TestDatabase> {
        let database = self.fresh_database()?;
        plain_thread::run(|| apply_migrations(database.url()))?;
        Ok(database)
    }
}

/// A database of its own for one test; dropped (`WITH (FORCE)`, so open
/// connections do not block it) when this value is dropped.
#[derive(Debug)]
pub struct TestDatabase {
    admin_url: String,
    url: String,
    name: String,
}

impl TestDatabase {
    /// URL of this database (the admin URL with the database name replaced).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name, `t_` followed by 32 hex digits.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (admin_url, name) = (&self.admin_url, &self.name);
        // Errors are ignored: a server that went away took the database with
        // it, and a failed drop must not turn into a panic during unwinding.
        plain_thread::run(|| {
            if let Ok(mut client) = connect(admin_url, ADMIN_TIMEOUT) {
                let _ = client
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
            }
        });
    }
}

/// Empties the process-wide slot if it holds a server started here, so the
/// next `postgres()` looks again after `stop_started_services`.
pub(crate) fn forget_started() {
    POSTGRES.forget_if(Postgres::started_here);
}

/// Succeeds when the server at `url` runs a query within about `timeout`.
pub(crate) fn probe(url: &str, timeout: Duration) -> anyhow::Result<()> {
    plain_thread::run(|| {
        let mut client = connect(url, timeout)?;
        client.simple_query("SELECT 1").context("run SELECT 1")?;
        Ok(())
    })
}

fn find_or_start() -> anyhow::Result<Postgres> {
    let found = find_running_or_start(&SERVICE, probe, throwaway_postgres::start)?;
    Ok(Postgres {
        admin_url: found.url,
        started_here: found.started_here,
    })
}

fn connect(url: &str, timeout: Duration) -> anyhow::Result<postgres::Client> {
    let mut config: postgres::Config = url
        .parse()
        .with_context(|| format!("parse the Postgres URL {}", redact_url(url)))?;
    config.connect_timeout(timeout);
    config
        .connect(NoTls)
        .with_context(|| format!("connect to {}", redact_url(url)))
}

fn create_database(admin_url: &str, name: &str) -> anyhow::Result<()> {
    let mut client = connect(admin_url, ADMIN_TIMEOUT)?;
    let mut attempt = 1;
    loop {
        match client.batch_execute(&format!("CREATE DATABASE \"{name}\"")) {
            Ok(()) => return Ok(()),
            // "source database template1 is being accessed by other users":
            // someone is briefly connected to the template; try again.
            Err(error) if error.code() == Some(&SqlState::OBJECT_IN_USE) && attempt < 10 => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(100 * attempt));
            }
            Err(error) => return Err(error).with_context(|| format!("create database {name}")),
        }
    }
}

fn apply_migrations(url: &str) -> anyhow::Result<()> {
    let mut client = connect(url, ADMIN_TIMEOUT)?;
    let mut migrations = client.transaction().context("begin the migrations")?;
    for (name, script) in MIGRATIONS {
        migrations
            .batch_execute(script)
            .with_context(|| format!("apply migration {name}"))?;
    }
    migrations.commit().context("commit the migrations")
}

/// `url` with its path (the database name) replaced by `database`.
fn url_with_database(url: &str, database: &str) -> anyhow::Result<String> {
    let mut parsed = url::Url::parse(url)
        .with_context(|| format!("parse the Postgres URL {}", redact_url(url)))?;
    parsed.set_path(&format!("/{database}"));
    Ok(parsed.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_name_replaces_the_path_and_keeps_the_rest() {
        let url = url_with_database(
            "postgres://app:secret@db.local:6543/postgres?sslmode=disable",
            "t_1",
        )
        .expect("valid url");
        assert_eq!(
            url,
            "postgres://app:secret@db.local:6543/t_1?sslmode=disable"
        );
    }

    #[test]
    fn database_name_is_added_when_the_url_has_none() {
        let url =
            url_with_database("postgres://postgres@127.0.0.1:5432", "t_2").expect("valid url");
        assert_eq!(url, "postgres://postgres@127.0.0.1:5432/t_2");
    }
}
