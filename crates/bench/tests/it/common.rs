//! What bench's integration tests share: the bench binary run as a user
//! runs it (and a whole run of it, with its folder), a server as its own
//! process (`bench serve`, through the harness's launcher), and reading a
//! row of a report or a column of results.json.

use std::ffi::OsStr;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// `bench ARGS`, as a user runs it, to its end.
pub(crate) fn bench<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .output()
        .expect("run bench")
}

/// `cmd` run to its end: its output; fails, showing `what` and the
/// command's stderr, unless it succeeded.
pub(crate) fn succeeded(cmd: &mut Command, what: &str) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{what}: {stderr}");
    o
}

/// What one finished bench run left: its stdout, stderr, run folder and results.json.
pub(crate) struct Run {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) dir: PathBuf,
    pub(crate) json: serde_json::Value,
    pub(crate) _out: tempfile::TempDir,
}

/// bench's flags for `rounds` rounds of `profile`'s `groups`, then `more`.
pub(crate) fn run_flags<'a>(
    profile: &'a str,
    groups: &'a str,
    rounds: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut flags = vec!["--profile", profile, "--groups", groups, "--rounds", rounds];
    flags.extend_from_slice(more);
    flags
}

/// The bench binary with `args`, writing its run under `out`, to start.
pub(crate) fn bench_into(out: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command.args(args).arg("--out").arg(out);
    command
}

/// Runs the bench binary with `args` (and `--out` a temporary folder) and the
/// extra environment `env`; panics with its output unless it succeeded.
pub(crate) fn run_bench(args: &[&str], env: &[(&str, &str)]) -> Run {
    let out_dir = tempfile::tempdir().unwrap();
    let out = bench_into(out_dir.path(), args)
        .envs(env.iter().copied())
        .output()
        .expect("run bench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "bench failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let (dir, json) = run_folder(out_dir.path(), &stderr);
    Run {
        stdout,
        stderr,
        dir,
        json,
        _out: out_dir,
    }
}

/// Where column `id` is in a results.json: its group's index and its own.
fn column_at(json: &serde_json::Value, id: &str) -> (usize, usize) {
    let groups = json["groups"].as_array().unwrap();
    groups
        .iter()
        .enumerate()
        .find_map(|(g, group)| {
            let columns = group["columns"].as_array().unwrap();
            columns.iter().position(|c| c["id"] == id).map(|c| (g, c))
        })
        .unwrap_or_else(|| panic!("no column {id}"))
}

/// A column of results.json by id.
pub(crate) fn column<'a>(json: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    let (g, c) = column_at(json, id);
    &json["groups"][g]["columns"][c]
}

/// A column of results.json by id, to change.
pub(crate) fn column_mut<'a>(
    json: &'a mut serde_json::Value,
    id: &str,
) -> &'a mut serde_json::Value {
    let (g, c) = column_at(json, id);
    &mut json["groups"][g]["columns"][c]
}

/// `bench export --tool TOOL [--groups GROUPS] --out <a fresh folder>`,
/// which must succeed: the folder.
pub(crate) fn export(tool: &str, groups: Option<&str>) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let groups = groups.map(|g| ["--groups", g]);
    let args = ["export", "--tool", tool, "--out", dir];
    let o = bench(args.iter().chain(groups.iter().flatten()));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// `bench import --tool TOOL --out OUT FILES...`, which must succeed: the
/// results.json it wrote in OUT.
pub(crate) fn import(tool: &str, out: &Path, files: &[PathBuf]) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bench"));
    cmd.args(["import", "--tool", tool, "--out"])
        .arg(out)
        .args(files);
    succeeded(&mut cmd, "bench import");
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

/// `bench import --tool TOOL FILE`, which must fail as bad input does:
/// one line on stderr (returned) and exit code 2.
pub(crate) fn import_refused(tool: &str, file: &Path) -> String {
    let o = bench([
        "import",
        "--tool",
        tool,
        "--out",
        "/nonexistent-unused",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// The `field` of every item of the JSON array `items`, as text: the ids of
/// a run's groups or columns, the groups it skipped.
pub(crate) fn strings<'a>(items: &'a serde_json::Value, field: &str) -> Vec<&'a str> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_str().unwrap())
        .collect()
}

/// The workspace's root, where README.md and docs/ are.
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `$CARGO_TARGET_DIR` (a relative one taken from the workspace root), or
/// the workspace's `target/`.
pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// `bench render RESULTS --out OUT`, which must succeed: its report.html.
pub(crate) fn render(results: &Path, out: &Path) -> PathBuf {
    let status = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("render")
        .arg(results)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "bench render {}: {status}",
        results.display()
    );
    out.join("report.html")
}

/// The finding `id` of a results.json.
pub(crate) fn finding<'a>(json: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    let findings = json["findings"].as_array().unwrap();
    findings.iter().find(|f| f["id"] == id).unwrap()
}

/// The first finding of a results.json that `is` picks, to change.
pub(crate) fn finding_mut(
    json: &mut serde_json::Value,
    is: impl Fn(&serde_json::Value) -> bool,
) -> &mut serde_json::Value {
    let findings = json["findings"].as_array_mut().unwrap();
    findings.iter_mut().find(|f| is(f)).unwrap()
}
