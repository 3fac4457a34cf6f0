//! Starts a throwaway `redis-server` as our child on a free 127.0.0.1 port,
//! with persistence off and its working directory in a temporary directory.

use std::process::Command;

use rustix::process::Signal;

use crate::child_server::{self, ServerSpec};
use crate::{binaries, service_dir};

/// Starts a server and returns its URL, or `None` when no `redis-server` is
/// installed. `answers` is the service's own check that a server at a URL
/// answers (crate::redis_service), tried until the new server passes it.
pub(crate) fn start(
    answers: &dyn Fn(&str) -> anyhow::Result<()>,
) -> anyhow::Result<Option<String>> {
    let Some(redis_server) = binaries::find_redis_server() else {
        return Ok(None);
    };
    let dir = service_dir::create("redis")?;
    let work_dir = dir.path().to_path_buf();
    let command = |port: u16| {
        let mut redis = Command::new(&redis_server);
        redis
            .arg("--port")
            .arg(port.to_string())
            .args(["--bind", "127.0.0.1"])
            // No snapshots and no append-only file: nothing is written to
            // disk, and a stop needs no final save.
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(&work_dir)
            .args(["--daemonize", "no"])
            // Log to stdout, which goes to our log file.
            .args(["--logfile", ""])
            .current_dir(&work_dir);
        redis
    };
    let probe = |port: u16| answers(&url(port));
    let spec = ServerSpec {
        name: "redis-server",
        command: &command,
        probe: &probe,
        death_signal: Signal::TERM,
        stop_signal: Signal::TERM,
    };
    let port = child_server::start(&spec, dir)?;
    Ok(Some(url(port)))
}

fn url(port: u16) -> String {
    format!("redis://127.0.0.1:{port}")
}
