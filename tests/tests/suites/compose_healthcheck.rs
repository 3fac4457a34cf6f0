//! The servers' docker-compose healthcheck, run outside Docker: the exact
//! `CMD-SHELL` command of each server's service in docker-compose.yml,
//! with the image's `loadgen` replaced by this package's build of it
//! (`test-loadgen`, the same `loadgen::main_with_args`) and the service's
//! address by a test server's. It must say healthy (exit 0) while the server
//! answers and unhealthy (exit 1, the code Docker reads as unhealthy) once
//! it has stopped.

use std::process::Command;
use std::time::Duration;

use harness::{spawn_app, Server};

/// The healthcheck command of `service` in docker-compose.yml: the shell
/// string of the `test: ["CMD-SHELL", "..."]` line under its `healthcheck:`.
fn healthcheck_of(service: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docker-compose.yml");
    let compose = std::fs::read_to_string(path).expect("read docker-compose.yml");
    let mut lines = compose
        .lines()
        .skip_while(|l| *l != format!("  {service}:"))
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with("    "));
    let test = lines
        .find_map(|l| l.trim().strip_prefix("test: [\"CMD-SHELL\", \""))
        .unwrap_or_else(|| panic!("no CMD-SHELL healthcheck for {service} in {path}"));
    test.strip_suffix("\"]")
        .unwrap_or_else(|| panic!("{service}'s healthcheck is not one quoted command: {test}"))
        .to_owned()
}

/// Runs `command` with loadgen and the address swapped in; its exit code.
fn run(command: &str, compose_addr: &str, addr: &str) -> Option<i32> {
    let command = command
        .replacen(
            "loadgen ",
            &format!("{} ", env!("CARGO_BIN_EXE_test-loadgen")),
            1,
        )
        .replace(compose_addr, addr);
    Command::new("sh")
        .args(["-c", &command])
        .status()
        .expect("run sh")
        .code()
}

fn healthcheck_says_healthy_then_unhealthy(server: Server, service: &str, compose_addr: &str) {
    let command = healthcheck_of(service);
    assert!(
        command.starts_with("loadgen ") && command.contains(compose_addr),
        "{service}: {command}"
    );
    let mut app = spawn_app(server);
    let addr = app.addr.to_string();
    assert_eq!(
        run(&command, compose_addr, &addr),
        Some(0),
        "{service}: healthy"
    );
    app.shutdown(Duration::from_secs(15)).expect("shutdown");
    assert_eq!(
        run(&command, compose_addr, &addr),
        Some(1),
        "{service}: unhealthy"
    );
}

#[test]
fn the_blocking_servers_healthcheck_tells_up_from_down() {
    healthcheck_says_healthy_then_unhealthy(Server::Blocking, "blocking-server", "127.0.0.1:8080");
}

#[test]
fn the_async_servers_healthcheck_tells_up_from_down() {
    healthcheck_says_healthy_then_unhealthy(Server::Async, "async-server", "127.0.0.1:8081");
}

#[test]
fn the_virtual_servers_healthcheck_tells_up_from_down() {
    healthcheck_says_healthy_then_unhealthy(Server::Virtual, "virtual-server", "127.0.0.1:8082");
}
