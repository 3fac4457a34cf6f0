//! bench against servers it did not start (`--blocking-url`, `--async-url`):
//! the servers run as separate processes, so /proc of bench's children says
//! nothing about them, and the process rows must come from their /metrics.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server process started by the test; killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn health(addr: SocketAddr) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = write!(
        s,
        "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    );
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.starts_with("HTTP/1.1 200")
}

/// `bench serve <which> --skip-setup` on a free port, as its own process.
fn start(which: &str) -> Server {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let child = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["serve", which, "--bind", &addr.to_string(), "--skip-setup"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server {
        child,
        url: format!("http://{addr}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while !health(addr) {
        assert!(Instant::now() < deadline, "{which} server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

#[test]
fn process_rows_of_servers_bench_did_not_start_come_from_their_metrics() {
    // Arrange: both servers as separate processes.
    let blocking = start("blocking");
    let asynchronous = start("async");
    let out = tempfile::tempdir().unwrap();

    // Act: the baseline group (needs neither Postgres nor Redis), one short round.
    let run = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args([
            "--groups",
            "baseline",
            "--rounds",
            "1",
            "--duration",
            "500ms",
        ])
        .args(["--warm-up", "100ms", "--connections", "4"])
        .args([
            "--blocking-url",
            &blocking.url,
            "--async-url",
            &asynchronous.url,
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "bench failed: {stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );

    // Assert: every process figure is there, and says where it came from.
    let dir = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(
        json["settings"]["server_figures_from"],
        "/metrics (servers bench did not start)"
    );
    let columns = json["groups"][0]["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 2);
    for c in columns {
        let r = &c["rounds"][0];
        let p = &r["server_process"];
        for field in [
            "idle_threads",
            "peak_threads",
            "idle_rss_bytes",
            "peak_rss_bytes",
        ] {
            assert!(
                p[field].as_u64().unwrap() > 0,
                "{}: {field} is {}",
                c["id"],
                p[field]
            );
        }
        assert!(p["samples"].as_u64().unwrap() >= 2, "{}: {p}", c["id"]);
        assert!(p["cpu_seconds"].as_f64().unwrap() > 0.0, "{}: {p}", c["id"]);
        assert_eq!(r["machine_cpu_measured"], false);
        // The server's own count, its /metrics polls left out, is the load's.
        let sent = r["load"]["total_requests"].as_u64().unwrap();
        assert_eq!(
            r["server_counted_requests"].as_u64(),
            Some(sent),
            "{}",
            c["id"]
        );
    }
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("server rows from /metrics"), "{report}");
    assert!(report.contains("not measured"), "{report}");
}
