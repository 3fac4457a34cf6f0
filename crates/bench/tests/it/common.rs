//! What bench's integration tests share: a server as its own process
//! (`bench serve`), and reading a row of a report.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code outside #[test] functions: a panic is how it reports a failure"
)]
#![allow(dead_code)] // each test binary uses a part

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server process started by a test; killed on drop.
pub(crate) struct ServerProcess {
    child: Child,
    pub(crate) url: String,
}

impl ServerProcess {
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        bench::servers::parse_base_url(&self.url).unwrap()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn healthy(addr: SocketAddr) -> bool {
    bench::servers::http_get(addr, "/health").is_ok_and(|(status, _)| status == 200)
}

/// A port nothing listens on now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `bench serve <which> --bind <a free port> <args>`, as its own process,
/// once its /health answers.
pub(crate) fn start_server(which: &str, args: &[String]) -> ServerProcess {
    let addr: SocketAddr = ([127, 0, 0, 1], free_port()).into();
    let child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["serve", which, "--bind", &addr.to_string()])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = ServerProcess {
        child,
        url: format!("http://{addr}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !healthy(addr) {
        assert!(
            Instant::now() < deadline,
            "the {which} server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
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
