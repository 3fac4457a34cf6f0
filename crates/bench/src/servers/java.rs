//! The calibration servers (`calibration/` in the repository: embedded
//! Tomcat and Netty) as bench builds and runs them. Their sources are
//! compiled into bench ([`SOURCES`]); on a run that has a Java column,
//! bench finds a JDK (`--java-home`, else `$JAVA_HOME`, else the `javac`
//! on PATH) and Debian's jars (`--java-jars`, default `/usr/share/java`),
//! and builds them once with `javac --release 17` into a cache folder
//! named by a hash of the sources, the JDK and the jars. Without a JDK or
//! a jar the calibration groups are skipped with the line that installs
//! them ([`APT_INSTALL`]), never failed.
//!
//! Each column round starts its server as ours are started, `bench serve
//! tomcat|netty --bind ...`, which sets the parent-death signal and then
//! replaces itself with the JVM ([`exec`]): the pid bench samples is the
//! JVM's, and no JVM outlives bench. The JVM's flags are fixed
//! ([`JVM_FLAGS`]) and saved with the run.
//!
//! The JVM that runs them need not be the JDK that built them: classes
//! built for 17 run on any later JVM, and [`JavaServers::on`] puts them on
//! one of the pinned Java 21 and 25 runtimes ([`runtimes`]).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use bench_model::JavaServer;

pub mod runtimes;

pub use runtimes::{find_runtime, install_runtime, JavaRelease, JavaRuntime};

/// What installs the JDK and the jars on Debian.
pub const APT_INSTALL: &str = "apt-get install default-jdk-headless libtomcat10-embed-java libjakarta-annotation-api-java libnetty-java libpostgresql-jdbc-java libhikaricp-java";

/// The JVM's flags, the same on every start: a fixed heap (no resizing
/// during a window) and the throughput collector.
pub const JVM_FLAGS: &[&str] = &["-Xms512m", "-Xmx512m", "-XX:+UseParallelGC"];

/// The jars the servers are built and run against, by Debian's unversioned
/// names in the jars folder: Tomcat and what it needs, Netty's modules,
/// pgjdbc, HikariCP and its logging API.
const JARS: &[&str] = &[
    "tomcat10-embed-core",
    "jakarta-annotation-api",
    "netty-common",
    "netty-buffer",
    "netty-resolver",
    "netty-transport",
    "netty-codec",
    "netty-codec-http",
    "netty-handler",
    "postgresql",
    "HikariCP",
    "slf4j-api",
];

/// Taken when present: slf4j's no-op binding, which keeps HikariCP's
/// logging API from warning on every start.
const OPTIONAL_JARS: &[&str] = &["slf4j-nop"];

/// The servers' sources, as bench was built with them.
pub const SOURCES: &[(&str, &str)] = &[
    (
        "Contract.java",
        include_str!("../../../../calibration/common/Contract.java"),
    ),
    (
        "Flags.java",
        include_str!("../../../../calibration/common/Flags.java"),
    ),
    (
        "Metrics.java",
        include_str!("../../../../calibration/common/Metrics.java"),
    ),
    (
        "JvmMetrics.java",
        include_str!("../../../../calibration/common/JvmMetrics.java"),
    ),
    (
        "PinnedThreads.java",
        include_str!("../../../../calibration/PinnedThreads.java"),
    ),
    (
        "TomcatServer.java",
        include_str!("../../../../calibration/TomcatServer.java"),
    ),
    (
        "NettyServer.java",
        include_str!("../../../../calibration/NettyServer.java"),
    ),
];

/// A JDK: its home, its `java` and `javac`, and its version.
#[derive(Debug, Clone, PartialEq)]
pub struct Jdk {
    pub home: PathBuf,
    pub java: PathBuf,
    pub javac: PathBuf,
    /// The release file's `JAVA_VERSION`, e.g. "17.0.15".
    pub version: String,
}

impl Jdk {
    /// The JDK at `java_home`, else at `$JAVA_HOME`, else the one whose
    /// `javac` is on PATH; why not, in a few words.
    pub fn find(java_home: Option<&Path>) -> Result<Jdk, String> {
        let from_env = std::env::var_os("JAVA_HOME").filter(|v| !v.is_empty());
        let home = match (java_home, from_env) {
            (Some(h), _) => h.to_owned(),
            (None, Some(h)) => PathBuf::from(h),
            (None, None) => javac_on_path()
                .and_then(|javac| {
                    let real = std::fs::canonicalize(javac).ok()?;
                    Some(real.parent()?.parent()?.to_owned())
                })
                .ok_or("no JDK: JAVA_HOME is not set and no javac is on PATH")?,
        };
        let (java, javac) = (home.join("bin/java"), home.join("bin/javac"));
        if !javac.is_file() || !java.is_file() {
            return Err(format!(
                "no JDK at {}: it has no bin/javac and bin/java",
                home.display()
            ));
        }
        let version = std::fs::read_to_string(home.join("release"))
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("JAVA_VERSION="))
                    .map(|v| v.trim().trim_matches('"').to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        Ok(Jdk {
            home,
            java,
            javac,
            version,
        })
    }

    /// The feature release: 17 for "17.0.15", 8 for "1.8.0_402", 0 when unknown.
    pub fn feature(&self) -> u32 {
        feature_of(&self.version)
    }

    /// Whether it runs virtual threads (Java 21 or later).
    pub fn has_virtual_threads(&self) -> bool {
        self.feature() >= 21
    }

    /// Its own `java`, as a runtime.
    pub fn runtime(&self) -> JavaRuntime {
        JavaRuntime {
            home: self.home.clone(),
            java: self.java.clone(),
            version: self.version.clone(),
        }
    }
}

/// The feature release of a Java version: 17 for "17.0.15", 8 for
/// "1.8.0_402", 0 when unknown.
fn feature_of(version: &str) -> u32 {
    let mut parts = version.split(['.', '_', '+', '-']);
    match parts.next().and_then(|p| p.parse::<u32>().ok()) {
        Some(1) => parts.next().and_then(|p| p.parse().ok()).unwrap_or(0),
        Some(n) => n,
        None => 0,
    }
}

/// The first `javac` on PATH.
fn javac_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("javac"))
        .find(|p| p.is_file())
}

/// The built servers: the JDK that built them, the JVM that runs them
/// (the same JDK's, unless [`JavaServers::on`] chose another) and their
/// class path.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaServers {
    pub jdk: Jdk,
    pub runtime: JavaRuntime,
    /// The compiled classes, then every jar.
    pub classpath: String,
}

impl JavaServers {
    /// The same servers run by `runtime` (built with `--release 17`, they
    /// run on any JVM from 17 on).
    pub fn on(&self, runtime: JavaRuntime) -> JavaServers {
        JavaServers {
            runtime,
            ..self.clone()
        }
    }
}

/// Finds the JDK and the jars and builds the servers (once per set of
/// sources, JDK and jars: later runs find them in the cache); why not,
/// with the line that installs what is missing.
pub fn prepare(java_home: Option<&Path>, jars: Option<&Path>) -> Result<JavaServers, String> {
    let needs = |why: String| format!("{why}; on Debian: {APT_INSTALL}");
    let jdk = Jdk::find(java_home).map_err(needs)?;
    let folder = jars.unwrap_or(Path::new("/usr/share/java"));
    let mut paths = Vec::new();
    for name in JARS {
        let jar = folder.join(format!("{name}.jar"));
        if !jar.is_file() {
            return Err(needs(format!("no {}", jar.display())));
        }
        paths.push(jar);
    }
    paths.extend(
        OPTIONAL_JARS
            .iter()
            .map(|name| folder.join(format!("{name}.jar")))
            .filter(|jar| jar.is_file()),
    );
    let jar_path = join_paths(&paths);
    let classes = build(&jdk, &jar_path)?;
    Ok(JavaServers {
        classpath: format!("{}:{jar_path}", classes.display()),
        runtime: jdk.runtime(),
        jdk,
    })
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// FNV-1a over `parts`, each ended by a zero byte: the cache's key.
fn fingerprint<'a>(parts: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The compiled classes of [`SOURCES`] for `jdk` against `jar_path`:
/// from the cache, or compiled into it (in a folder of its own, renamed
/// into place whole, so two runs at once never see half a build).
fn build(jdk: &Jdk, jar_path: &str) -> Result<PathBuf, String> {
    let javac = jdk.javac.display().to_string();
    let key = fingerprint(
        SOURCES
            .iter()
            .flat_map(|(name, text)| [*name, *text])
            .chain([javac.as_str(), jdk.version.as_str(), jar_path]),
    );
    let cache = std::env::temp_dir().join("bench-calibration");
    let done = cache.join(format!("{key:016x}"));
    if done.join("TomcatServer.class").is_file() && done.join("NettyServer.class").is_file() {
        return Ok(done);
    }
    let work = cache.join(format!("{key:016x}.{}", std::process::id()));
    let sources = work.join("src");
    let classes = work.join("classes");
    let io = |e: std::io::Error| {
        format!(
            "cannot write the Java sources under {}: {e}",
            work.display()
        )
    };
    std::fs::create_dir_all(&sources).map_err(io)?;
    std::fs::create_dir_all(&classes).map_err(io)?;
    let mut files = Vec::new();
    for (name, text) in SOURCES {
        let file = sources.join(name);
        std::fs::write(&file, text).map_err(io)?;
        files.push(file);
    }
    let out = Command::new(&jdk.javac)
        .args([
            "--release",
            "17",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-cp",
            jar_path,
            "-d",
        ])
        .arg(&classes)
        .args(&files)
        .output()
        .map_err(|e| format!("cannot run {javac}: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let first: Vec<&str> = said.lines().take(12).collect();
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!(
            "javac failed to build the calibration servers ({}): {}",
            out.status,
            first.join(" | ")
        ));
    }
    // Another run may have put the same build in place meanwhile: either is good.
    if std::fs::rename(&classes, &done).is_err() && !done.join("TomcatServer.class").is_file() {
        return Err(format!(
            "cannot move the built classes to {}",
            done.display()
        ));
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(done)
}

/// The main class of a calibration server.
pub fn main_class(server: JavaServer) -> &'static str {
    match server {
        JavaServer::Tomcat | JavaServer::TomcatVirtual => "TomcatServer",
        JavaServer::Netty => "NettyServer",
    }
}

/// The arguments bench gives `bench serve <server>` (after `--bind`): the
/// JVM to run (the servers' runtime) and its class path, then the
/// server's own flags, the sizes of our servers' (handler threads, pool)
/// so that each twin runs with its Rust twin's: a JDBC pool as large as
/// ours, 200 handler threads.
pub fn serve_args(
    servers: &JavaServers,
    (handler_threads, db_pool_size): (u32, u32),
    database_url: Option<&str>,
) -> Vec<String> {
    let mut args = vec![
        "--java".to_owned(),
        servers.runtime.java.display().to_string(),
        "--classpath".to_owned(),
        servers.classpath.clone(),
        "--handler-threads".to_owned(),
        handler_threads.to_string(),
        "--db-pool-size".to_owned(),
        db_pool_size.to_string(),
    ];
    if let Some(url) = database_url {
        args.extend(["--database-url".to_owned(), url.to_owned()]);
    }
    args
}

/// The flags of `args` (as [`serve_args`] made them) that `server` takes,
/// and the JVM and class path apart: (java, class path, server flags).
fn split_serve_args(server: JavaServer, args: &[String]) -> Option<(String, String, Vec<String>)> {
    let (mut java, mut classpath, mut rest) = (None, None, Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--java" => java = it.next().cloned(),
            "--classpath" => classpath = it.next().cloned(),
            // Netty has no handler threads or database; its event loops are the cores.
            "--handler-threads" | "--db-pool-size" | "--database-url"
                if server == JavaServer::Netty =>
            {
                it.next();
            }
            _ => rest.push(a.clone()),
        }
    }
    Some((java?, classpath?, rest))
}

/// `bench serve tomcat|netty --bind ADDR ...`: replaces this process with
/// the JVM running the server (the parent-death signal set before carries
/// over); returns only when that cannot be done.
pub fn exec(server: JavaServer, args: &[String]) -> ExitCode {
    let Some((java, classpath, rest)) = split_serve_args(server, args) else {
        eprintln!("bench serve: a calibration server needs --java and --classpath");
        return ExitCode::from(2);
    };
    let e = Command::new(&java)
        .args(JVM_FLAGS)
        .arg("-cp")
        .arg(classpath)
        .arg(main_class(server))
        .args(rest)
        .exec();
    eprintln!("bench serve: cannot run {java}: {e}");
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jdk(version: &str) -> Jdk {
        Jdk {
            home: PathBuf::from("/jdk"),
            java: PathBuf::from("/jdk/bin/java"),
            javac: PathBuf::from("/jdk/bin/javac"),
            version: version.to_owned(),
        }
    }

    #[test]
    fn a_jdks_feature_release_says_whether_it_has_virtual_threads() {
        assert_eq!(jdk("17.0.15").feature(), 17);
        assert_eq!(jdk("1.8.0_402").feature(), 8);
        assert_eq!(jdk("25").feature(), 25);
        assert_eq!(jdk("unknown").feature(), 0);
        assert!(!jdk("17.0.15").has_virtual_threads());
        assert!(jdk("21.0.1").has_virtual_threads());
    }

    #[test]
    fn no_jdk_where_there_is_none_and_the_jvm_and_server_flags_part() {
        let e = Jdk::find(Some(Path::new("/nowhere/at/all"))).unwrap_err();
        assert!(e.contains("no JDK at /nowhere/at/all"), "{e}");
        let servers = JavaServers {
            jdk: jdk("17.0.15"),
            runtime: jdk("17.0.15").runtime(),
            classpath: "/c:/j.jar".into(),
        };
        let args = serve_args(&servers, (200, 10), Some("postgres://x@h/db"));
        let (java, cp, rest) = split_serve_args(JavaServer::Tomcat, &args).unwrap();
        assert_eq!((java.as_str(), cp.as_str()), ("/jdk/bin/java", "/c:/j.jar"));
        // On another runtime, its java runs the same classes.
        let on_21 = servers.on(JavaRuntime {
            home: PathBuf::from("/venv/jdk"),
            java: PathBuf::from("/venv/jdk/bin/java"),
            version: "21.0.8".into(),
        });
        assert!(on_21.runtime.has_virtual_threads());
        let args_21 = serve_args(&on_21, (200, 10), None);
        let (java, cp, _) = split_serve_args(JavaServer::Tomcat, &args_21).unwrap();
        assert_eq!(
            (java.as_str(), cp.as_str()),
            ("/venv/jdk/bin/java", "/c:/j.jar")
        );
        assert_eq!(
            rest,
            [
                "--handler-threads",
                "200",
                "--db-pool-size",
                "10",
                "--database-url",
                "postgres://x@h/db"
            ]
        );
        let (_, _, netty) = split_serve_args(JavaServer::Netty, &args).unwrap();
        assert!(netty.is_empty(), "{netty:?}");
        assert_ne!(fingerprint(["a", "b"]), fingerprint(["ab", ""]));
    }
}
