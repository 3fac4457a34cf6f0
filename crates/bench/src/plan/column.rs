//! A column of the matrix: a route on one server, the constructors of the
//! kinds of column the groups are made of, and the column as the results
//! name and shape it (its label, its empty result, the routes whose
//! detector figures it keeps). Pure data.

use bench_model::{ColumnId, ColumnResult, Driver, Target};

use super::profiles::PathValues;
use crate::servers::java::JavaRelease;

/// One column: a route on one server. In the mixed group, `background` is
/// loaded while `path` (always /health) is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub id: ColumnId,
    pub target: Target,
    pub method: &'static str,
    /// May hold `{cpu_n}` or `{stall_cpu_n}`, filled in by [`super::PathValues`].
    pub path: &'static str,
    pub body: Option<&'static str>,
    pub background: Option<&'static str>,
    /// Server flags this column needs beyond the run's (e.g. `--redis-client pool`).
    pub server_args: &'static [&'static str],
    /// Said after the route in the column's label, e.g. "deadpool-redis".
    pub variant: Option<&'static str>,
    /// A Java server's runtime, when not the JDK that builds the servers:
    /// one of the pinned Java 21 and 25 runtimes (skipped, with the line
    /// that installs it, where it is not installed).
    pub java: Option<JavaRelease>,
}

/// The JSON echo's body (seed 003's).
pub(super) const ECHO_BODY: &str = r#"{"FirstName":"Ada","LastName":"Lovelace","Age":36}"#;

/// The async server with tokio-postgres in a deadpool-postgres pool: one
/// round trip per request where sqlx (the default) makes two.
pub(super) const DEADPOOL: &[&str] = &["--postgres-driver", "deadpool"];

/// The async server with a few shared tokio-postgres clients, the queries
/// of many requests pipelined on each (one client per worker), no pool.
pub(super) const PIPELINED: &[&str] = &["--postgres-driver", "pipelined"];

/// Server flags of the idle group's columns: an idle timeout (the header
/// read timeout, which both servers also apply between keep-alive requests)
/// long enough that no idle connection is closed while it is measured; the
/// default 10 s would close the first ones before the largest size is open.
/// tiny_http has no idle timeout and ignores it.
pub(super) const LONG_IDLE_TIMEOUT: &[&str] = &["--header-read-timeout-ms", "600000"];

/// [`Column::get`], short for the groups' tables.
pub(super) fn col(id: ColumnId, target: Target, path: &'static str) -> Column {
    Column::get(id, target, path)
}

/// `column` on the pinned runtime of `release` (a Java column).
pub(super) fn on_java(release: JavaRelease, column: Column) -> Column {
    Column {
        java: Some(release),
        ..column
    }
}

/// A column on a server started with `args`, named `variant` in its label.
pub(super) fn with_args(
    id: ColumnId,
    target: Target,
    path: &'static str,
    (args, variant): (&'static [&'static str], &'static str),
) -> Column {
    Column {
        server_args: args,
        variant: Some(variant),
        ..col(id, target, path)
    }
}

/// A blocking-server column behind the design card's tiny_http 0.12
/// (`--connector tiny-http`) instead of our connector: a reader thread per
/// open connection, `--handler-threads` threads calling `recv()`.
pub(super) fn tiny_http(id: ColumnId, path: &'static str) -> Column {
    with_args(
        id,
        Target::Blocking,
        path,
        (&["--connector", "tiny-http"], "tiny_http"),
    )
}

/// The async cache route with another Redis client than the default shared connection.
pub(super) fn redis_client(
    id: ColumnId,
    client: &'static str,
    args: &'static [&'static str],
) -> Column {
    with_args(id, Target::Async, "/users/1/cache", (args, client))
}

/// The async route `path` with another Postgres driver than sqlx: `args`
/// choose it, `driver` names it in the label.
pub(super) fn postgres_driver(
    id: ColumnId,
    driver: &'static str,
    args: &'static [&'static str],
    path: &'static str,
) -> Column {
    with_args(id, Target::Async, path, (args, driver))
}

/// A column of the idle-connection group: `/health` on a server started
/// with [`LONG_IDLE_TIMEOUT`] (and `connector_args`).
pub(super) fn idle(
    id: ColumnId,
    target: Target,
    args: &'static [&'static str],
    variant: Option<&'static str>,
) -> Column {
    Column {
        server_args: args,
        variant,
        ..col(id, target, "/health")
    }
}

/// A column on virtual threads with `driver`.
pub(super) fn virt(id: ColumnId, driver: Driver, path: &'static str) -> Column {
    col(id, Target::Virtual(driver), path)
}

/// The JSON echo on `target`: seed 003's body, posted.
pub(super) fn echo(id: ColumnId, target: Target) -> Column {
    Column {
        method: "POST",
        body: Some(ECHO_BODY),
        ..col(id, target, "/echo")
    }
}

/// The mixed group's column: `/health` measured on `target` while
/// `background` is loaded.
pub(super) fn mixed(id: ColumnId, target: Target, background: &'static str) -> Column {
    Column {
        background: Some(background),
        ..col(id, target, "/health")
    }
}

impl Column {
    /// `GET path` on `target`, with no flags of its own.
    pub fn get(id: ColumnId, target: Target, path: &'static str) -> Column {
        Column {
            id,
            target,
            method: "GET",
            path,
            body: None,
            background: None,
            server_args: &[],
            variant: None,
            java: None,
        }
    }

    /// Its result with no rounds yet.
    pub fn empty_result(&self, paths: PathValues) -> ColumnResult {
        let with_n = |p: &str| paths.fill(p);
        ColumnResult {
            id: self.id,
            label: self.label(),
            server: self.target,
            method: self.method.to_owned(),
            path: with_n(self.path),
            background_path: self.background.map(with_n),
            rounds: Vec::new(),
            failure: None,
        }
    }

    /// "async /cpu/rayon", or for the mixed group "async /health | /cpu".
    pub fn label(&self) -> String {
        let strip = |p: &str| p.split('?').next().unwrap_or(p).to_owned();
        let label = match self.background {
            Some(bg) => format!("{} /health | {}", self.target.name(), strip(bg)),
            None => format!(
                "{} {} {}",
                self.target.name(),
                if self.method == "GET" {
                    ""
                } else {
                    self.method
                },
                strip(self.path)
            )
            .replace("  ", " "),
        };
        // What it runs on beyond its server: its variant, its Java release.
        let runtime = self.java.map(|r| format!("Java {}", r.feature()));
        let bracket: Vec<String> = self
            .variant
            .map(str::to_owned)
            .into_iter()
            .chain(runtime)
            .collect();
        if bracket.is_empty() {
            label
        } else {
            format!("{label} ({})", bracket.join(", "))
        }
    }

    /// Whether its server counts the virtual threads that pin (Tomcat on
    /// virtual threads without `--no-pin-events`): its windows then wait
    /// for JFR to hand the counts over.
    pub fn counts_pins(&self) -> bool {
        self.target == Target::Java(bench_model::JavaServer::TomcatVirtual)
            && !self.server_args.contains(&"--no-pin-events")
    }

    /// The routes whose detector figures the column keeps: its own, then in
    /// the mixed group the background's (the route under load, which the
    /// detector should flag, not the /health probe).
    pub fn detector_routes(&self) -> Vec<&'static str> {
        std::iter::once(self.path)
            .chain(self.background)
            .filter_map(contract::routes::label_of)
            .collect()
    }
}
