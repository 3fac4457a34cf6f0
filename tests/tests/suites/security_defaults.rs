//! The servers are safe by default.
//! - Both bind to loopback unless told otherwise; docker-compose.yml binds
//!   0.0.0.0 explicitly, inside its containers.
//! - Every SQL statement is parameterised: all query text is a constant of
//!   `contract::sql` (or a migration file), and no server builds SQL with
//!   `format!`.
//! - Error bodies and `/metrics` leak no connection string, password, address
//!   of a dependency, or stack trace, even while a dependency (reached through
//!   a URL with a password in it) is down.
//! - docker-compose.yml reads `POSTGRES_PASSWORD` from the environment and
//!   says it is a local development credential.

use std::path::{Path, PathBuf};

use clap::Parser as _;
use harness::{fresh_data, spawn_app_with, AppOptions, Server};
use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};

const PASSWORD: &str = "s3cr3t-Pa55word";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(1)
        .expect("the workspace root above tests/")
        .to_path_buf()
}

#[test]
fn both_servers_bind_to_loopback_by_default() {
    // `BIND` in the environment would change the default; this test is about
    // the built-in one.
    if std::env::var_os("BIND").is_some() {
        panic!("unset BIND to run this test: it checks the built-in default");
    }
    let blocking = blocking_server::Settings::try_parse_from(["blocking-server"])
        .expect("blocking defaults parse");
    assert!(
        blocking.bind.ip().is_loopback(),
        "blocking binds {}",
        blocking.bind
    );
    let asynchronous =
        async_server::Settings::try_parse_from(["async-server"]).expect("async defaults parse");
    assert!(
        asynchronous.bind.ip().is_loopback(),
        "async binds {}",
        asynchronous.bind
    );
}

#[test]
fn compose_binds_all_interfaces_explicitly_and_reads_the_password_from_the_environment() {
    let compose = std::fs::read_to_string(workspace_root().join("docker-compose.yml"))
        .expect("reading docker-compose.yml");
    for (server, bind) in [
        ("blocking-server", "0.0.0.0:8080"),
        ("async-server", "0.0.0.0:8081"),
        ("blocking-server", "0.0.0.0:8082"),
    ] {
        assert!(
            compose.contains(&format!(r#"["{server}", "--bind", "{bind}"]"#)),
            "docker-compose.yml must start {server} with --bind {bind} explicitly"
        );
    }
    assert!(
        compose.contains("POSTGRES_PASSWORD: ${POSTGRES_PASSWORD"),
        "the Postgres password must come from the environment"
    );
    let said = compose
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .any(|l| l.contains("POSTGRES_PASSWORD") || l.contains("local development credential"));
    assert!(
        said && compose.contains("local development credential"),
        "docker-compose.yml must say the password is a local development credential"
    );
    // No literal password other than the documented laptop default.
    for line in compose.lines().filter(|l| l.contains("postgres://")) {
        assert!(
            line.contains("${POSTGRES_PASSWORD"),
            "a connection string with a literal password: {line}"
        );
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {dir:?}: {e}")) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// SQL as this codebase writes it (upper-case keywords).
const SQL_WORDS: [&str; 6] = [
    "SELECT ",
    "INSERT INTO",
    "DELETE FROM",
    "UPDATE ",
    " WHERE ",
    " VALUES",
];

#[test]
fn every_sql_statement_is_a_parameterised_constant() {
    // The statements themselves: values only through $n placeholders.
    for (name, sql) in [
        ("SELECT_USER_BY_ID", contract::sql::SELECT_USER_BY_ID),
        (
            "SELECT_ALL_USER_CACHE_FIELDS",
            contract::sql::SELECT_ALL_USER_CACHE_FIELDS,
        ),
        ("TAKE_MIGRATION_LOCK", contract::sql::TAKE_MIGRATION_LOCK),
    ] {
        assert!(
            !sql.contains('{') && !sql.contains('\''),
            "{name} has a quoted or templated value: {sql}"
        );
    }
    assert!(contract::sql::SELECT_USER_BY_ID.contains("= $1"));

    // No server (nor the contract) builds SQL text at run time.
    let root = workspace_root();
    let mut files = Vec::new();
    for krate in ["blocking-server", "async-server", "contract"] {
        rust_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 10, "found only {} source files", files.len());
    let mut offences = Vec::new();
    for file in &files {
        // Unit tests may format SQL (to compare it with a constant, or to
        // end a backend in a fault test): a test module's own file, and
        // everything after `#[cfg(test)]`, are not server code.
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with("_tests.rs") || name == "test_support.rs" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("reading a source file");
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("format!(") {
                continue;
            }
            // The format string may sit on the next lines.
            let window = lines[i..(i + 3).min(lines.len())].join(" ");
            if SQL_WORDS.iter().any(|w| window.contains(w)) {
                offences.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "SQL built with format!:\n{}",
        offences.join("\n")
    );
}

/// Text that must never reach a client.
fn leaks(text: &str, urls: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let lower = text.to_lowercase();
    for needle in [
        PASSWORD,
        "postgres://",
        "redis://",
        "panicked",
        "backtrace",
        "stack backtrace",
        ".rs:",
    ] {
        if lower.contains(&needle.to_lowercase()) {
            found.push(needle.to_owned());
        }
    }
    for url in urls {
        if let Ok(addr) = url_addr(url) {
            if text.contains(&addr.to_string()) {
                found.push(addr.to_string());
            }
        }
    }
    found
}

fn no_secrets_in_error_bodies_or_metrics(server: Server) {
    let name = server.name();
    let data = fresh_data().unwrap_or_else(|e| panic!("fresh test data: {e:#}"));
    // Our own proxies, so the URLs the server is given carry a password.
    let db_proxy = FaultProxy::start(url_addr(data.database_url()).expect("database address"))
        .expect("database proxy");
    let redis_url = local_services::redis()
        .map(|r| r.url().to_owned())
        .expect("redis");
    let redis_proxy =
        FaultProxy::start(url_addr(&redis_url).expect("redis address")).expect("redis proxy");
    // Trust auth ignores the password; it is there to be leaked, or not.
    let direct = data
        .database_url()
        .replacen("postgres@", &format!("postgres:{PASSWORD}@"), 1);
    assert!(direct.contains(PASSWORD), "no user in {direct}");
    let database_url = url_with_addr(&direct, db_proxy.addr());
    let redis_url = url_with_addr(&redis_url, redis_proxy.addr());
    let app = spawn_app_with(
        server,
        AppOptions {
            shared_data: Some(data),
            ..AppOptions::with_args(["--database-url", &database_url, "--redis-url", &redis_url])
        },
    );
    let urls = [database_url.as_str(), redis_url.as_str()];

    db_proxy.set_mode(Mode::Refuse);
    redis_proxy.set_mode(Mode::Refuse);
    let mut answers = Vec::new();
    for (method, path, body) in [
        ("GET", "/users/1", &b""[..]),
        ("GET", "/users/1/cache", b""),
        ("GET", "/users/abc", b""),
        ("GET", "/nope", b""),
        ("DELETE", "/health", b""),
        ("POST", "/echo", b"{not json"),
        ("GET", "/posts/10", b""),
    ] {
        let r = if method == "POST" {
            app.post_json(path, body)
        } else {
            app.request(method, path, &[], body)
        };
        assert!(r.status >= 400, "{name} {method} {path}: {}", r.status);
        answers.push((format!("{method} {path} ({})", r.status), r.text()));
    }
    let r = app.get("/users/1");
    assert_eq!(r.status, 503, "{name}: the database is down");
    let metrics = app.get("/metrics");
    assert_eq!(metrics.status, 200);
    answers.push(("/metrics".to_owned(), metrics.text()));

    for (what, text) in &answers {
        let found = leaks(text, &urls);
        assert!(found.is_empty(), "{name} {what} leaks {found:?}:\n{text}");
    }
    db_proxy.set_mode(Mode::Pass);
    redis_proxy.set_mode(Mode::Pass);
}

harness::test_cases! {
    no_secrets_in_error_bodies_or_metrics;
    blocking_server_leaks_no_secrets(Server::Blocking);
    async_server_leaks_no_secrets(Server::Async);
    virtual_threads_leak_no_secrets(Server::Virtual);
}
