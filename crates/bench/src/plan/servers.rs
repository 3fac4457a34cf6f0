//! The servers of a run as its plan has them: which bench starts and which
//! someone else runs at a URL given; the arguments bench gives each server
//! it starts (the run's sizes, the target's mode, the column's own flags;
//! the services' URLs come first once they are found); and the settings
//! those servers really run with, parsed from those very arguments by the
//! servers' own settings, so that no default is restated here.

use bench_model::{Driver, JavaServer, Target};

use super::column::Column;
use super::request::ServerChoices;

/// The server binary that runs a target (`bench serve <binary>`): virtual
/// threads are a mode of the blocking server, Tomcat's of Tomcat.
pub fn binary(target: Target) -> &'static str {
    match target {
        Target::Blocking | Target::Virtual(_) => "blocking",
        Target::Async => "async",
        Target::Java(JavaServer::Tomcat | JavaServer::TomcatVirtual) => "tomcat",
        Target::Java(JavaServer::Netty) => "netty",
    }
}

/// The flags that make the binary this target, beyond the run's
/// (`--carriers` is the run's: one per core).
pub fn mode_args(target: Target) -> &'static [&'static str] {
    match target {
        Target::Blocking | Target::Async => &[],
        Target::Java(JavaServer::TomcatVirtual) => &["--virtual"],
        Target::Java(JavaServer::Tomcat | JavaServer::Netty) => &[],
        Target::Virtual(Driver::Pinning) => &["--threads", "virtual", "--driver", "pinning"],
        Target::Virtual(Driver::Yielding) => &["--threads", "virtual", "--driver", "yielding"],
    }
}

/// The servers of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerPlan {
    /// What every blocking server bench starts is given after the
    /// services' URLs: the pools' size and the handler threads asked for.
    pub blocking: Vec<String>,
    /// The same for the async server: the pools' size and its workers.
    pub asynchronous: Vec<String>,
    /// The blocking server's, plus `--carriers`, one per core.
    pub virtual_threads: Vec<String>,
    /// A blocking server someone else runs, measured as it is.
    pub blocking_url: Option<String>,
    /// An async server someone else runs, measured as it is.
    pub async_url: Option<String>,
}

impl ServerPlan {
    /// Each binary's arguments from the sizes asked for.
    pub fn new(choices: &ServerChoices) -> ServerPlan {
        let mut common = Vec::new();
        if let Some(n) = choices.pool_size {
            common.extend([
                "--db-pool-size".into(),
                n.to_string(),
                "--redis-pool-size".into(),
                n.to_string(),
            ]);
        }
        let mut blocking = common.clone();
        if let Some(n) = choices.handler_threads {
            blocking.extend(["--handler-threads".into(), n.to_string()]);
        }
        let mut asynchronous = common;
        if let Some(n) = choices.worker_threads {
            asynchronous.extend(["--worker-threads".into(), n.to_string()]);
        }
        let mut virtual_threads = blocking.clone();
        virtual_threads.extend(["--carriers".into(), server_settings::cores().to_string()]);
        ServerPlan {
            blocking,
            asynchronous,
            virtual_threads,
            blocking_url: choices.blocking_url.clone(),
            async_url: choices.async_url.clone(),
        }
    }

    /// The URL of the server given for `target`'s binary, if one was: a
    /// blocking server given by URL serves the blocking columns (and is
    /// not in virtual threads' mode); Java servers are always bench's.
    pub fn url_of(&self, target: Target) -> Option<&str> {
        match binary(target) {
            "blocking" => self.blocking_url.as_deref(),
            "async" => self.async_url.as_deref(),
            _ => None,
        }
    }

    /// The arguments of `column`'s server after the services' URLs: its
    /// binary's for the run, its mode's, then its own. A Java server's
    /// start with the JVM and the class path, found when it is built, and
    /// its twin's sizes from the run's settings ([`crate::servers::java`]).
    pub fn args_of(&self, column: &Column) -> Vec<String> {
        let run: &[String] = match column.target {
            Target::Blocking => &self.blocking,
            Target::Async => &self.asynchronous,
            Target::Virtual(_) => &self.virtual_threads,
            Target::Java(_) => &[],
        };
        run.iter()
            .cloned()
            .chain(
                mode_args(column.target)
                    .iter()
                    .chain(column.server_args)
                    .map(|a| (*a).to_owned()),
            )
            .collect()
    }

    /// The settings the servers bench starts really run with, parsed by
    /// their own settings from the arguments above: blocking, async and
    /// virtual threads'; one line when a server refuses its arguments.
    pub fn settings(&self) -> Result<ServerSettings, String> {
        use clap::Parser as _;
        fn parse(name: &str, args: &[String]) -> Vec<String> {
            std::iter::once(name.to_owned())
                .chain(args.iter().cloned())
                .collect()
        }
        let refused =
            |which: &'static str| move |e: clap::Error| format!("{which} server settings: {e}");
        Ok(ServerSettings {
            blocking: blocking_server::Settings::try_parse_from(parse(
                "blocking-server",
                &self.blocking,
            ))
            .map_err(refused("blocking"))?,
            asynchronous: async_server::Settings::try_parse_from(parse(
                "async-server",
                &self.asynchronous,
            ))
            .map_err(refused("async"))?,
            virtual_threads: blocking_server::Settings::try_parse_from(parse(
                "blocking-server",
                &self.virtual_threads,
            ))
            .map_err(refused("virtual-thread"))?,
        })
    }
}

/// Each server's own settings, as it parses the arguments bench gives it.
pub struct ServerSettings {
    pub blocking: blocking_server::Settings,
    pub asynchronous: async_server::Settings,
    pub virtual_threads: blocking_server::Settings,
}
