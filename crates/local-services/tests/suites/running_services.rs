//! Throwaway databases and key prefixes on the process-wide services (the
//! running ones on a developer machine, throwaway ones elsewhere).

use local_services::{postgres, redis};

fn database_exists(admin: &mut postgres::Client, name: &str) -> bool {
    admin
        .query_one(
            "SELECT count(*) FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .expect("query pg_database")
        .get::<_, i64>(0)
        == 1
}

fn connect(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect")
}

#[test]
fn a_migrated_database_has_the_servers_schema_and_seeded_users() {
    let server = postgres().expect("postgres");
    let database = server.migrated_database().expect("migrated database");
    let mut client = connect(database.url());
    let users: i64 = client
        .query_one("SELECT count(*) FROM users", &[])
        .expect("count users")
        .get(0);
    assert_eq!(users, contract::sql::SEEDED_USERS);
    let name: String = client
        .query_one("SELECT name FROM users WHERE id = 1", &[])
        .expect("user 1")
        .get(0);
    assert_eq!(name, "seungwoo");
}

#[test]
fn fresh_database_is_empty_usable_and_dropped_on_drop() {
    // Arrange
    let server = postgres().expect("postgres");
    let mut admin = connect(server.admin_url());

    // Act
    let database = server.fresh_database().expect("fresh database");
    let name = database.name().to_owned();

    // Assert: it exists, has no tables, and takes writes.
    assert!(name.starts_with("t_") && name.len() == 34, "{name}");
    assert!(
        database.url().ends_with(&format!("/{name}")),
        "{}",
        database.url()
    );
    assert!(database_exists(&mut admin, &name));
    let mut client = connect(database.url());
    let tables: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
            &[],
        )
        .expect("count tables")
        .get(0);
    assert_eq!(tables, 0);
    client
        .batch_execute("CREATE TABLE t (v int); INSERT INTO t VALUES (7);")
        .expect("write");
    let v: i32 = client
        .query_one("SELECT v FROM t", &[])
        .expect("read")
        .get(0);
    assert_eq!(v, 7);

    // Act: drop it while our connection is still open (WITH (FORCE)).
    drop(database);

    // Assert
    assert!(!database_exists(&mut admin, &name), "{name} still exists");
    drop(client);
}

#[test]
fn two_fresh_databases_differ() {
    let server = postgres().expect("postgres");
    let first = server.fresh_database().expect("first");
    let second = server.fresh_database().expect("second");
    assert_ne!(first.name(), second.name());
    assert_ne!(first.url(), second.url());
}

#[test]
fn fresh_prefix_keys_are_deleted_on_drop() {
    // Arrange
    let server = redis().expect("redis");
    let client = redis::Client::open(server.url()).expect("redis url");
    let mut connection = client.get_connection().expect("connect redis");
    let prefix = server.fresh_prefix();
    let other = server.fresh_prefix();
    assert!(prefix.as_str().starts_with("t_") && prefix.as_str().ends_with(':'));
    assert_ne!(prefix.as_str(), other.as_str());
    // More keys than one SCAN batch returns, so the clean-up must loop.
    let mut pipe = redis::pipe();
    for i in 0..2500 {
        pipe.cmd("SET")
            .arg(format!("{}k{i}", prefix.as_str()))
            .arg(i)
            .ignore();
    }
    pipe.cmd("SET")
        .arg(format!("{}kept", other.as_str()))
        .arg(1)
        .ignore();
    pipe.query::<()>(&mut connection).expect("set keys");
    let count = |connection: &mut redis::Connection, pattern: String| -> usize {
        let mut cursor = 0u64;
        let mut seen = std::collections::HashSet::new();
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000)
                .query(connection)
                .expect("scan");
            seen.extend(keys);
            cursor = next;
            if cursor == 0 {
                return seen.len();
            }
        }
    };
    let pattern = format!("{}*", prefix.as_str());
    assert_eq!(count(&mut connection, pattern.clone()), 2500);

    // Act
    drop(prefix);

    // Assert: ours are gone, the other test's key is untouched.
    assert_eq!(count(&mut connection, pattern), 0);
    assert_eq!(count(&mut connection, format!("{}*", other.as_str())), 1);
}

/// The async server's tests call in from tokio; the sync Postgres client
/// inside must not panic there ("cannot start a runtime from within a
/// runtime").
#[tokio::test]
async fn works_from_inside_a_tokio_runtime() {
    let server = postgres().expect("postgres");
    let database = server.fresh_database().expect("fresh database");
    let name = database.name().to_owned();
    drop(database);
    let admin_url = server.admin_url().to_owned();
    let exists = tokio::task::spawn_blocking(move || {
        let mut admin = connect(&admin_url);
        database_exists(&mut admin, &name)
    })
    .await
    .expect("check");
    assert!(!exists);
    assert!(redis().is_ok());
}
