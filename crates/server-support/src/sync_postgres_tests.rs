//! The sync driver against a real Postgres (a fresh database): a user read
//! with the prepared statement, and a deadline on every call, so a stalled
//! database is `Unavailable` (503) in time and the connection is dropped.

use std::time::{Duration, Instant};

use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};

use crate::sync_postgres::{pool, DbError};
use crate::test_settings::settings;

const UNUSED_REDIS: &str = "redis://127.0.0.1:9";

#[test]
fn a_stalled_database_is_unavailable_by_the_deadline_and_the_connection_dropped() {
    let db = local_services::migrated_database().expect("a migrated test database");

    let proxy = FaultProxy::start(url_addr(db.url()).expect("database address")).expect("a proxy");
    let url = url_with_addr(db.url(), proxy.addr());
    let pool = pool(&settings(&url, UNUSED_REDIS, 500), "test").expect("the pool");
    let mut conn = pool.get().expect("a connection");
    let user = conn.user_by_id(1).expect("the user query");
    assert_eq!(user.map(|u| u.name).as_deref(), Some("seungwoo"));

    proxy.set_mode(Mode::Stall);
    let started = Instant::now();
    let stalled = conn.user_by_id(1);
    let took = started.elapsed();
    assert!(
        matches!(stalled, Err(DbError::Unavailable(_))),
        "{stalled:?}"
    );
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(2500),
        "a stalled query ends by its 500-ms deadline, took {took:?}"
    );
    drop(conn);
    assert_eq!(
        pool.state().connections,
        0,
        "the stalled connection is dropped"
    );
}
