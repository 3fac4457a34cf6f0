//! The three async Postgres drivers against a real Postgres (127.0.0.1:5432,
//! or the one local-services starts), each on a fresh migrated database: a
//! row with its id as the parameter, a missing row, errors by SQLSTATE,
//! many concurrent queries on one shared client, and the slow query that
//! holds up a pipeline but not a pool. tests_faults.rs has the outages,
//! the bounds and the killed connection.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser as _;
use contract::error::ErrorKind;

use super::AsyncDb;
use crate::error::AppError;
use crate::settings::{PostgresDriver, Settings};

pub(super) const DRIVERS: [PostgresDriver; 3] = [
    PostgresDriver::Sqlx,
    PostgresDriver::Deadpool,
    PostgresDriver::Pipelined,
];

/// A fresh database with the users table and its 10,000 rows, dropped at
/// the end of the test.
pub(super) fn fresh_database() -> local_services::TestDatabase {
    local_services::migrated_database().expect("a migrated test database")
}

/// The server's settings for `driver` on `url`, with `extra` flags after
/// the test's defaults (a pool of 2, one shared client, 2 s to answer).
pub(super) fn settings(url: &str, driver: PostgresDriver, extra: &[&str]) -> Settings {
    let mut args = vec![
        "async-server",
        "--database-url",
        url,
        "--postgres-driver",
        driver.name(),
        "--db-pool-size",
        "2",
        "--postgres-clients",
        "1",
        "--acquire-timeout-ms",
        "2000",
    ];
    args.extend_from_slice(extra);
    Settings::try_parse_from(args).expect("test settings")
}

/// A runtime like the server's: two workers.
pub(super) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Builds `driver`'s [`AsyncDb`] on `url` and runs `test` with it.
pub(super) fn with_driver<T>(
    url: &str,
    driver: PostgresDriver,
    extra: &[&str],
    test: impl AsyncFnOnce(Arc<AsyncDb>) -> T,
) -> T {
    let settings = settings(url, driver, extra);
    runtime().block_on(async {
        let db = Arc::new(AsyncDb::new(&settings).expect("the driver"));
        test(db).await
    })
}

/// A plain tokio-postgres connection to `url`, beside the driver's.
pub(super) async fn side_connection(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("a side connection");
    tokio::spawn(connection);
    client
}

/// Runs `sql` on `side`, a connection beside the driver's.
async fn on_the_side(side: &tokio_postgres::Client, sql: &str) {
    side.batch_execute(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// User 1 from `db`, a query that must fail (`why` it fails): its error.
async fn user_one_refused(db: &AsyncDb, why: &str) -> AppError {
    db.find_user(1).await.expect_err(why)
}

/// The status an error answers with.
pub(super) fn status(e: &AppError) -> u16 {
    e.error.status()
}

#[test]
fn each_driver_reads_a_user_with_its_id_as_the_parameter_as_the_sync_driver_does() {
    let db = fresh_database();
    let config: tokio_postgres::Config = db.url().parse().expect("database URL");
    let mut sync = server_support::sync_postgres::PgConnection::connect(
        &config,
        Duration::from_secs(10),
        true,
    )
    .expect("a sync connection");
    let expected = [1, 42, 10_000].map(|id| sync.user_by_id(id).expect("the sync driver's query"));
    for driver in DRIVERS {
        let got = with_driver(db.url(), driver, &[], async |db| {
            let mut got = Vec::new();
            for id in [1, 42, 10_000] {
                got.push(db.find_user(id).await.expect("the user query"));
            }
            got
        });
        for (user, id) in got.iter().zip([1, 42, 10_000]) {
            assert_eq!(user.as_ref().map(|u| u.id), Some(id), "{driver:?}");
        }
        assert_eq!(got, expected, "{driver:?}");
    }
}

#[test]
fn a_missing_user_is_none_from_each_driver() {
    let db = fresh_database();
    for driver in DRIVERS {
        let missing = with_driver(db.url(), driver, &[], async |db| {
            let mut got = Vec::new();
            for id in [0, 10_001, i64::MAX] {
                got.push(db.find_user(id).await.expect("the user query"));
            }
            got
        });
        assert_eq!(missing, [None, None, None], "{driver:?}");
    }
}

/// A statement Postgres refuses (SQLSTATE 42P01, the table is gone) is our
/// fault: 500. One it cancels (57014, a statement timeout while the table
/// is locked) means the database cannot serve now: 503. Both by the
/// contract's rule, on each driver; and the driver serves again once the
/// table is back, without a restart.
#[test]
fn postgres_errors_answer_by_their_sqlstate_on_each_driver() {
    for driver in DRIVERS {
        let db = fresh_database();
        let url = db.url().to_owned();
        let name = db.name().to_owned();
        with_driver(&url, driver, &[], async |pg| {
            let side = side_connection(&url).await;
            assert!(pg.find_user(1).await.expect("a first query").is_some());

            on_the_side(&side, "ALTER TABLE users RENAME TO users_away").await;
            let refused = user_one_refused(&pg, "a query on a missing table").await;
            assert_eq!(status(&refused), 500, "{driver:?}: {refused:?}");
            assert_eq!(refused.error.kind, ErrorKind::Internal, "{driver:?}");
            on_the_side(&side, "ALTER TABLE users_away RENAME TO users").await;
            assert!(pg.find_user(1).await.is_ok(), "{driver:?} after the rename");

            // New sessions only: the driver's open connections keep no timeout.
            let timeout = format!("ALTER DATABASE \"{name}\" SET statement_timeout = '300ms'");
            on_the_side(&side, &timeout).await;
            let fresh = AsyncDb::new(&settings(&url, driver, &[])).expect("a second driver");
            on_the_side(&side, "BEGIN; LOCK TABLE users IN ACCESS EXCLUSIVE MODE").await;
            let cancelled = user_one_refused(&fresh, "a query on a locked table").await;
            assert_eq!(status(&cancelled), 503, "{driver:?}: {cancelled:?}");
            assert!(
                cancelled
                    .cause
                    .as_deref()
                    .unwrap_or_default()
                    .contains("statement timeout"),
                "{driver:?}: {cancelled:?}"
            );
            on_the_side(&side, "COMMIT").await;
            assert!(
                fresh.find_user(1).await.is_ok(),
                "{driver:?} after the lock"
            );
        });
    }
}

/// Five hundred lookups at once on ONE shared connection: each comes back
/// with the row its own id asked for (or none past the last user), many
/// were in flight together, and one connection carried them all.
#[test]
fn many_concurrent_queries_on_one_client_come_back_to_the_right_requests() {
    let db = fresh_database();
    let (answers, most_in_flight, opened) = with_driver(
        db.url(),
        PostgresDriver::Pipelined,
        &[
            "--acquire-timeout-ms",
            "10000",
            "--postgres-pipeline-depth",
            "1000",
        ],
        async |pg| {
            let ids: Vec<i64> = (0..500).map(|i| 1 + (i * 7919) % 10_300).collect();
            let tasks: Vec<_> = ids
                .iter()
                .map(|&id| {
                    let pg = pg.clone();
                    tokio::spawn(async move { (id, pg.find_user(id).await) })
                })
                .collect();
            let watch = {
                let pg = pg.clone();
                tokio::spawn(async move {
                    let mut most = 0;
                    for _ in 0..2000 {
                        let super::Driver::Pipelined(clients) = &pg.driver else {
                            unreachable!()
                        };
                        most = most.max(clients.gauges().in_flight[0]);
                        tokio::task::yield_now().await;
                    }
                    most
                })
            };
            let mut answers = Vec::new();
            for task in tasks {
                answers.push(task.await.expect("a lookup task"));
            }
            let super::Driver::Pipelined(clients) = &pg.driver else {
                unreachable!()
            };
            let opened = clients.gauges().opened;
            (answers, watch.await.expect("the watcher"), opened)
        },
    );
    for (id, answer) in answers {
        let user = answer.unwrap_or_else(|e| panic!("user {id}: {e:?}"));
        match user {
            Some(user) => assert_eq!(user.id, id),
            None => assert!(id > 10_000, "user {id} missing"),
        }
    }
    assert!(most_in_flight > 1, "never more than one query in flight");
    assert_eq!(opened, 1, "one shared connection");
}

/// Head-of-line blocking, the pipelined driver's price: a query sent after
/// a slow one on the same shared connection waits for it, since Postgres
/// answers one connection's queries in order. With a pool, the fast query
/// has a connection of its own and does not wait.
#[test]
fn a_slow_query_holds_up_the_queries_behind_it_on_a_shared_connection_but_not_in_a_pool() {
    let db = fresh_database();
    for driver in DRIVERS {
        let waited = with_driver(
            db.url(),
            driver,
            &["--acquire-timeout-ms", "10000"],
            async |pg| {
                // Warm: the connection is open and the query prepared.
                pg.find_user(1).await.expect("a first query");
                let slow = {
                    let pg = pg.clone();
                    tokio::spawn(async move { pg.execute("SELECT pg_sleep(1.5)").await })
                };
                tokio::time::sleep(Duration::from_millis(200)).await;
                let started = Instant::now();
                let user = pg.find_user(2).await.expect("the fast query");
                let waited = started.elapsed();
                assert_eq!(user.map(|u| u.id), Some(2));
                slow.await.expect("the slow task").expect("the slow query");
                waited
            },
        );
        if driver == PostgresDriver::Pipelined {
            assert!(
                waited >= Duration::from_millis(1000),
                "{driver:?}: the query behind pg_sleep took {waited:?}"
            );
        } else {
            assert!(
                waited < Duration::from_millis(800),
                "{driver:?}: the query beside pg_sleep took {waited:?}"
            );
        }
    }
}
