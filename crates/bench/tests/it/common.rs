//! What bench's integration tests share: a server as its own process
//! (`bench serve`, through the harness's launcher), and reading a row of a
//! report.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]
#![allow(dead_code)] // each test binary uses a part

use std::net::{SocketAddr, TcpListener};

use harness::process::ChildServer;
use harness::Server;

/// A server process started by a test, on a fresh database and Redis key
/// prefix of its own (the harness's one launcher); killed on drop.
pub(crate) struct ServerProcess {
    child: ChildServer,
    pub(crate) url: String,
}

impl ServerProcess {
    pub(crate) fn pid(&self) -> u32 {
        self.child.pid()
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.child.addr()
    }
}

/// A port nothing listens on now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `bench serve <which> --bind <a free port> ... <args>`, as its own
/// process, once its /health answers.
pub(crate) fn start_server(which: &str, args: &[String]) -> ServerProcess {
    let server = match which {
        "blocking" => Server::Blocking,
        "async" => Server::Async,
        other => panic!("bench serve has no server {other:?}"),
    };
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        // The fresh database needs the migrations and the seed.
        .filter(|a| *a != "--skip-setup")
        .collect();
    let child = ChildServer::start_program(
        server,
        env!("CARGO_BIN_EXE_bench"),
        &["serve", which],
        &args,
    );
    let url = format!("http://{}", child.addr());
    ServerProcess { child, url }
}

/// The line of `report` that starts with `prefix` (a table row).
pub(crate) fn report_row<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row {prefix:?} in\n{report}"))
}

/// The one run folder bench wrote under `out` (`<out>/<timestamp>`) and its
/// results.json; `stderr` (bench's) is shown if there is none.
pub(crate) fn run_folder(
    out: &std::path::Path,
    stderr: &str,
) -> (std::path::PathBuf, serde_json::Value) {
    let dir = std::fs::read_dir(out)
        .unwrap()
        .next()
        .unwrap_or_else(|| panic!("no run folder in {}; stderr:\n{stderr}", out.display()))
        .unwrap()
        .path();
    let json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    (dir, json)
}
