//! Throwaway servers die with the process that started them, even when it is
//! killed outright (no destructor, no `stop_started_services`).
//!
//! The test runs this same test binary as a child, the same test in the
//! child's role (an environment variable says so), which starts both
//! throwaway servers, prints their URLs and SIGKILLs itself; then it checks
//! that both ports stop answering. There is no separate child test that
//! could pass by doing nothing when run on its own.

use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ROLE: &str = "LOCAL_SERVICES_TEST_CHILD_KILLS_ITSELF";

fn answers(port: u16) -> bool {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&address, Duration::from_millis(500)).is_ok()
}

fn port_after(output: &str, label: &str) -> u16 {
    // libtest prints "test <name> ... " on the same line as our first one.
    let url = output
        .split_whitespace()
        .find_map(|word| word.strip_prefix(label))
        .unwrap_or_else(|| panic!("child printed no {label}; it printed:\n{output}"));
    url::Url::parse(url.trim())
        .expect("valid url")
        .port()
        .expect("url has a port")
}

/// The child's part: start both servers, say where, die by SIGKILL.
fn start_servers_then_kill_myself() -> ! {
    let pg = local_services::postgres().expect("throwaway postgres");
    let cache = local_services::redis().expect("throwaway redis");
    assert!(pg.started_here() && cache.started_here());
    println!("postgres={}", pg.admin_url());
    println!("redis={}", cache.url());
    use std::io::Write;
    std::io::stdout().flush().expect("flush");
    let me = rustix::process::getpid();
    let _ = rustix::process::kill_process(me, rustix::process::Signal::KILL);
    std::thread::sleep(Duration::from_secs(60));
    unreachable!("SIGKILL did not end the child");
}

#[test]
fn throwaway_servers_die_when_their_parent_is_killed() {
    if std::env::var_os(CHILD_ROLE).is_some() {
        start_servers_then_kill_myself();
    }
    // Arrange / Act: the child starts both and dies by SIGKILL.
    let me = std::env::current_exe().expect("test binary path");
    // This test's name in the binary: its module path without the crate.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::throwaway_servers_die_when_their_parent_is_killed");
    let child = Command::new(me)
        .args(["--exact", &test])
        .args(["--nocapture", "--test-threads=1"])
        .env(CHILD_ROLE, "1")
        .env("LOCAL_SERVICES_FORCE_THROWAWAY", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child");
    let child_pid = child.id();
    let child = child.wait_with_output().expect("run the child");
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    let output = format!("{stdout}\n--- stderr ---\n{stderr}");
    let pg_port = port_after(&stdout, "postgres=");
    let redis_port = port_after(&stdout, "redis=");
    assert!(!child.status.success(), "child was not killed:\n{output}");

    // Assert: the kernel's parent-death signal ends both servers promptly.
    let deadline = Instant::now() + Duration::from_secs(15);
    while (answers(pg_port) || answers(redis_port)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !answers(pg_port),
        "postgres outlived its parent on {pg_port}"
    );
    assert!(
        !answers(redis_port),
        "redis outlived its parent on {redis_port}"
    );
    remove_service_dirs_of(child_pid);
}

/// The killed child could not remove its directories (the next start in any
/// process would); remove them now so the test leaves nothing behind.
fn remove_service_dirs_of(pid: u32) {
    let owner = pid.to_string();
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for path in entries.flatten().map(|entry| entry.path()) {
        let named_ours = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("local-services-"));
        let owned =
            std::fs::read_to_string(path.join("owner.pid")).is_ok_and(|text| text.trim() == owner);
        if named_ours && owned {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
