//! The calibration servers (embedded Tomcat, Netty) as bench builds and
//! runs them: both answer the contract suite's cases byte for byte where
//! their routes go; bench runs the calibration groups (but calibration-loom,
//! java_runtimes.rs's) end to end at the
//! tiny profile's size, each Java server started and stopped like ours; a
//! JVM dies with a bench killed mid-run; and without a JDK bench skips the
//! groups with one line that says what to install, never fails.
//!
//! All but the last need a JDK and Debian's jars, and are ignored without
//! them (CI installs them: `.ci/run`).

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{bench_into, column, run_bench, run_flags, strings};
use bench::servers::java::{self, JavaRelease, JavaServers};
use harness::contract_cases::{cases, check, run_case_at};
use harness::{AppData, AppOptions, Server, TestApp};

/// The routes each calibration server has (the contract table's patterns).
pub(crate) const TOMCAT_ROUTES: &[&str] =
    &["/health", "/cpu", "/users/{id}", "/posts/{id}", "/metrics"];
pub(crate) const NETTY_ROUTES: &[&str] =
    &["/health", "/cpu", "/cpu/rayon", "/posts/{id}", "/metrics"];

pub(crate) fn built() -> JavaServers {
    java::prepare(None, None)
        .unwrap_or_else(|e| panic!("cannot build the calibration servers: {e}"))
}

/// A fresh database for Tomcat to read, and our blocking server on it,
/// which applied the migrations (and answers the cases to compare with).
pub(crate) fn migrated_database() -> (Arc<AppData>, TestApp) {
    let data = harness::fresh_data().unwrap();
    let ours = harness::spawn_app_with(
        Server::Blocking,
        AppOptions {
            shared_data: Some(data.clone()),
            ..AppOptions::default()
        },
    );
    (data, ours)
}

/// `bench serve <which> --bind ...` as its own process, killed on drop.
pub(crate) struct JavaChild {
    child: Child,
    pub(crate) addr: SocketAddr,
}

impl JavaChild {
    pub(crate) fn start(
        which: &str,
        servers: &JavaServers,
        database_url: Option<&str>,
        log: &Path,
    ) -> JavaChild {
        JavaChild::start_with(which, servers, database_url, &[], log)
    }

    /// [`JavaChild::start`] with flags of the server's own after bench's
    /// (Tomcat's `--virtual`).
    pub(crate) fn start_with(
        which: &str,
        servers: &JavaServers,
        database_url: Option<&str>,
        extra: &[&str],
        log: &Path,
    ) -> JavaChild {
        let port = crate::common::free_port();
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let file = std::fs::File::create(log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_bench"))
            .args(["serve", which, "--bind", &addr.to_string()])
            .args(java::serve_args(servers, (200, 4), database_url))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let mut server = JavaChild { child, addr };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!(
                    "{which} exited at start-up ({status}): {}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            if matches!(bench::servers::http_get(addr, "/health"), Ok((200, _))) {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "{which} did not answer /health in 60 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for JavaChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs a JDK and Debian's Tomcat/Netty jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn the_calibration_servers_answer_the_contracts_cases_byte_for_byte() {
    let _machine = harness::exclusive();
    let servers = built();
    let logs = tempfile::tempdir().unwrap();
    let (data, ours) = migrated_database();
    let tomcat = JavaChild::start(
        "tomcat",
        &servers,
        Some(data.database_url()),
        &logs.path().join("tomcat.log"),
    );
    let netty = JavaChild::start("netty", &servers, None, &logs.path().join("netty.log"));
    let mut failures = Vec::new();
    for (name, server, routes, at_least) in [
        ("tomcat", &tomcat, TOMCAT_ROUTES, 20),
        ("netty", &netty, NETTY_ROUTES, 12),
    ] {
        failures.extend(contract_failures(
            name,
            server.addr,
            routes,
            at_least,
            ours.addr,
        ));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The contract suite's cases whose route `routes` has (or none: a 404),
/// sent to the server at `addr` and to our blocking server at `ours`:
/// each answer checked against the case and against ours, byte for byte;
/// what differs, one line each.
pub(crate) fn contract_failures(
    name: &str,
    addr: SocketAddr,
    routes: &[&str],
    at_least: usize,
    ours: SocketAddr,
) -> Vec<String> {
    // Sent without headers of their own (framing and header limits are
    // each server's connector's, not the contract's answers here).
    let theirs: Vec<_> = cases()
        .into_iter()
        .filter(|c| c.headers.is_empty())
        .filter(|c| contract::routes::label_of(&c.path).is_none_or(|l| routes.contains(&l)))
        .collect();
    assert!(
        theirs.len() >= at_least,
        "{name}: only {} cases",
        theirs.len()
    );
    let mut failures = Vec::new();
    for case in &theirs {
        let got = run_case_at(addr, name, case);
        if let Err(e) = check(name, case, &got) {
            failures.push(e);
        }
        let want = run_case_at(ours, "blocking", case);
        let same = |r: &harness::Response| {
            (
                r.status,
                r.header("content-type").map(str::to_owned),
                r.header("content-length").map(str::to_owned),
                r.header("allow").map(str::to_owned),
                r.body.clone(),
            )
        };
        if same(&got) != same(&want) {
            failures.push(format!(
                "case {:?}: {name} {} {:?} / blocking {} {:?}",
                case.name, got.status, got.headers, want.status, want.headers
            ));
        }
    }
    failures
}

/// The pids of running JVMs of the calibration servers.
fn calibration_jvms() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let text = String::from_utf8_lossy(&cmdline);
            text.contains("bench-calibration")
                && (text.contains("TomcatServer") || text.contains("NettyServer"))
        })
        .collect()
}

/// The calibration findings have a verdict, whatever it is.
fn calibration_findings_were_judged(json: &serde_json::Value) {
    for id in [
        "calibration-blocking-matches-tomcat",
        "calibration-netty-past-cap",
        "calibration-health-cpu-not-above-tomcat",
    ] {
        let f = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no finding {id}"));
        assert_ne!(f["verdict"], "NOT MEASURED", "{id}: {f}");
    }
}

/// A Java column's rounds: each answered, its JVM sampled like our servers.
fn java_column_was_measured(json: &serde_json::Value, id: &str) {
    let c = column(json, id);
    assert!(c["failure"].is_null(), "{id}: {}", c["failure"]);
    let rounds = c["rounds"].as_array().unwrap();
    assert!(!rounds.is_empty(), "{id} has no round");
    for r in rounds {
        assert!(r["load"]["ok_requests"].as_u64().unwrap() > 0, "{id}: {r}");
        // The JVM was sampled like our servers: its threads and RSS.
        assert!(
            r["server_process"]["samples"].as_u64().unwrap() > 0,
            "{id}: {r}"
        );
        assert!(
            r["server_process"]["peak_threads"].as_u64().unwrap() > 2,
            "{id}: {r}"
        );
        assert!(
            r["server_process"]["peak_rss_bytes"].as_u64().unwrap() > 10 << 20,
            "{id}: {r}"
        );
    }
}

/// The page's calibration matrix: each Java server against its twin.
fn calibration_rows_name_their_twins(dir: &Path) {
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for (id, twin) in [
        ("tomcat-health", "the thread pool's best"),
        ("netty-health", "the event loop's best"),
    ] {
        let at = page
            .find(&format!("<tr class=\"calibration\" data-column=\"{id}\">"))
            .unwrap_or_else(|| panic!("no calibration row for {id}"));
        let row = &page[at..at + page[at..].find("</tr>").unwrap()];
        assert!(row.contains(twin), "{row}");
    }
}

#[test]
#[ignore = "needs a JDK and Debian's Tomcat/Netty jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn bench_runs_the_calibration_groups_at_the_tiny_size() {
    let _machine = harness::exclusive();
    built();
    // calibration-loom, on the Java 21 and 25 runtimes, is
    // java_runtimes.rs's bench run.
    let groups = "calibration-health,calibration-posts,calibration-users";
    let args = run_flags("tiny", groups, "1", &[]);
    let run = run_bench(&args, &[]);
    let (dir, json) = (&run.dir, &run.json);
    assert!(
        calibration_jvms().is_empty(),
        "JVMs left running: {:?}",
        calibration_jvms()
    );
    let ids = strings(&json["groups"], "id");
    assert_eq!(
        ids,
        [
            "calibration-health",
            "calibration-posts",
            "calibration-users",
        ]
    );
    let mut java = vec![
        "tomcat-health",
        "netty-health",
        "tomcat-posts",
        "netty-posts",
        "tomcat-users",
    ];
    // The columns on Java 21 and 25 run where the pinned runtimes are
    // installed, and are skipped, each saying so, where they are not.
    let on_runtimes = [
        (JavaRelease::Java21, "tomcat-virtual-health-java21"),
        (JavaRelease::Java25, "tomcat-virtual-health-java25"),
    ];
    let skipped = json["skipped"].to_string();
    for (release, id) in on_runtimes {
        if java::find_runtime(release).is_ok() {
            java.push(id);
        } else {
            assert!(skipped.contains(id), "{id} not skipped: {skipped}");
        }
    }
    for id in java {
        java_column_was_measured(json, id);
    }
    let flags: Vec<&str> = json["settings"]["jvm"]["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(flags, java::JVM_FLAGS);
    calibration_findings_were_judged(json);
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        report.contains("-Xms512m -Xmx512m -XX:+UseParallelGC"),
        "no JVM flags in the report"
    );
    calibration_rows_name_their_twins(dir);
}

#[test]
#[ignore = "needs a JDK and Debian's Tomcat/Netty jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn a_jvm_dies_with_a_bench_killed_mid_run() {
    let _machine = harness::exclusive();
    built();
    let out = tempfile::tempdir().unwrap();
    let args = run_flags("tiny", "calibration-health", "1", &["--duration", "5s"]);
    let mut bench = bench_into(out.path(), &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for a JVM of this run, then kill bench without a chance to clean up.
    let deadline = Instant::now() + Duration::from_secs(120);
    let jvm = loop {
        if let Some(pid) = calibration_jvms().first() {
            break *pid;
        }
        assert!(
            bench.try_wait().unwrap().is_none(),
            "bench ended before a JVM started"
        );
        assert!(Instant::now() < deadline, "no JVM started in 120 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    bench.kill().unwrap();
    bench.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Path::new(&format!("/proc/{jvm}")).exists() {
        let state = std::fs::read_to_string(format!("/proc/{jvm}/stat")).unwrap_or_default();
        // A zombie has died; only its parent's wait is missing.
        if state.split_whitespace().nth(2) == Some("Z") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the JVM {jvm} outlived bench by 10 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// bench with `env` on a calibration group: its stderr and results.json.
fn run_without_a_jdk(env: &[(&str, &str)], remove: &[&str]) -> (String, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let args = run_flags("tiny", "calibration-health,calibration-posts", "1", &[]);
    let mut command = bench_into(out.path(), &args);
    command.envs(env.iter().copied());
    for name in remove {
        command.env_remove(name);
    }
    let run = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        run.status.success(),
        "bench failed without a JDK:\n{stderr}"
    );
    let (_, json) = crate::common::run_folder(out.path(), &stderr);
    (stderr, json)
}

#[test]
fn without_a_jdk_bench_skips_the_calibration_groups_with_a_clear_line() {
    let nowhere = "/nonexistent/jdk-for-this-test";
    let no_javac = tempfile::tempdir().unwrap();
    let cases = [
        (
            vec![("JAVA_HOME", nowhere)],
            vec![],
            "no JDK at /nonexistent/jdk-for-this-test",
        ),
        (
            vec![("PATH", no_javac.path().to_str().unwrap())],
            vec!["JAVA_HOME"],
            "no JDK: JAVA_HOME is not set and no javac is on PATH",
        ),
    ];
    for (env, remove, why) in cases {
        let (stderr, json) = run_without_a_jdk(&env, &remove);
        let line = stderr
            .lines()
            .find(|l| l.starts_with("bench: skipping calibration-health, calibration-posts"))
            .unwrap_or_else(|| panic!("no skip line in:\n{stderr}"));
        assert!(line.contains(why), "{line}");
        assert!(line.contains(java::APT_INSTALL), "{line}");
        assert!(
            json["groups"].as_array().unwrap().is_empty(),
            "{}",
            json["groups"]
        );
        let skipped = strings(&json["skipped"], "group");
        assert_eq!(skipped, ["calibration-health", "calibration-posts"]);
    }
}
