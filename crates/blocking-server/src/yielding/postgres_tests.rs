//! The yielding Postgres client and its pool against a real Postgres
//! (127.0.0.1:5432, or the one local-services starts): a row with its id
//! as parameter, a missing row, errors by SQLSTATE, an outage through the
//! workspace's fault proxy and the recovery after it, the pool's bound,
//! and that parked checkouts leave the one carrier free.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};
use postgres_protocol::message::backend::Message;

use super::pool::Pool;
use super::postgres::{pool, PgConn};
use super::test_support::{on_coroutine, services, settings, untimed, wait_until, Services};
use server_support::sync_postgres::DbError;

fn pg_pool(url: &str, redis_url: &str, size: u32, acquire_ms: u64) -> Pool<PgConn> {
    pool(&settings(url, redis_url, size, acquire_ms)).expect("the yielding pool")
}

/// A proxy in front of the test database, and the URL through it.
fn proxied(services: &Services) -> (Arc<FaultProxy>, String) {
    let proxy = FaultProxy::start(url_addr(services.db.url()).expect("database address"))
        .expect("a fault proxy");
    let url = url_with_addr(services.db.url(), proxy.addr());
    (Arc::new(proxy), url)
}

/// A proxy in front of the test database, and a pool of `size` (a
/// checkout waiting at most `acquire_ms`) whose connections go through it.
fn proxied_pool(
    services: &Services,
    size: u32,
    acquire_ms: u64,
) -> (Arc<FaultProxy>, Pool<PgConn>) {
    let (proxy, url) = proxied(services);
    (proxy, pg_pool(&url, &services.redis_url, size, acquire_ms))
}

/// The pinning driver's answer for `id`, to compare with.
fn pinning_user(url: &str, id: i64) -> Option<contract::model::User> {
    let config: tokio_postgres::Config = url.parse().expect("database URL");
    let mut conn =
        server_support::sync_postgres::PgConnection::connect(&config, Duration::from_secs(5), true)
            .expect("a pinning connection");
    conn.user_by_id(id).expect("the pinning driver's query")
}

#[test]
fn a_user_is_read_with_its_id_as_the_parameter_as_the_pinning_driver_reads_it() {
    let services = services();
    let pool = pg_pool(services.db.url(), &services.redis_url, 2, 2000);
    let got = on_coroutine(move |waits| {
        let mut conn = pool.get(waits).expect("a connection");
        [1, 42, 10_000].map(|id| conn.user_by_id(waits, id).expect("the user query"))
    });
    for (user, id) in got.iter().zip([1, 42, 10_000]) {
        let user = user.as_ref().expect("a seeded user");
        assert_eq!(user.id, id);
        assert_eq!(Some(user.clone()), pinning_user(services.db.url(), id));
    }
}

#[test]
fn a_missing_user_is_none_and_the_connection_is_kept() {
    let services = services();
    let pool = pg_pool(services.db.url(), &services.redis_url, 2, 2000);
    let (missing, state) = on_coroutine(move |waits| {
        let missing = [0, 10_001, i64::MAX].map(|id| {
            let mut conn = pool.get(waits).expect("a connection");
            conn.user_by_id(waits, id).expect("the user query")
        });
        (missing, pool.state())
    });
    assert_eq!(missing, [None, None, None]);
    // One connection served all three checkouts and is idle again.
    assert_eq!((state.open, state.idle), (1, 1));
}

/// An `ErrorResponse` with these fields, through the codec.
fn error_response(code: &str) -> Message {
    let mut body = Vec::new();
    for (field, value) in [(b'S', "ERROR"), (b'C', code), (b'M', "it failed")] {
        body.push(field);
        body.extend_from_slice(value.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut buf = BytesMut::new();
    buf.extend_from_slice(b"E");
    buf.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    buf.extend_from_slice(&body);
    Message::parse(&mut buf)
        .expect("a well-formed message")
        .expect("a whole message")
}

#[test]
fn server_errors_are_mapped_by_their_sqlstate_as_the_contract_says() {
    // Connection exceptions, insufficient resources, operator intervention: 503.
    for (code, unavailable) in [
        ("08006", true),
        ("53300", true),
        ("57P01", true),
        ("42P01", false),
        ("22003", false),
    ] {
        let Message::ErrorResponse(body) = error_response(code) else {
            panic!("not an error response");
        };
        let error = super::postgres::server_error(&body);
        assert_eq!(
            matches!(error, DbError::Unavailable(_)),
            unavailable,
            "{code}: {error}"
        );
        assert!(error.to_string().contains(code), "{error}");
    }
}

#[test]
fn a_real_sql_error_is_internal_and_a_terminated_backend_unavailable() {
    let services = services();
    let pool = pg_pool(services.db.url(), &services.redis_url, 2, 2000);
    let url = services.db.url();
    // The admin statements run on this thread: tokio-postgres' runtime is
    // not meant for a coroutine's small stack.
    let mut conn = on_coroutine({
        let pool = pool.clone();
        move |waits| {
            let mut conn = pool.get(waits).expect("a connection");
            assert!(conn.user_by_id(waits, 1).expect("the user query").is_some());
            conn
        }
    });
    admin(url, "DROP TABLE users");
    let (dropped, open) = on_coroutine({
        let pool = pool.clone();
        move |waits| {
            let dropped = conn.user_by_id(waits, 1);
            drop(conn);
            (dropped, pool.state().open)
        }
    });
    admin(url, contract::sql::MIGRATIONS[0].1);
    conn = on_coroutine({
        let pool = pool.clone();
        move |waits| pool.get(waits).expect("a connection")
    });
    admin(
        url,
        &format!("SELECT pg_terminate_backend({})", conn.backend_pid()),
    );
    let terminated = on_coroutine(move |waits| conn.user_by_id(waits, 1));
    // 42P01 undefined_table: our fault, 500.
    match dropped {
        Err(DbError::Internal(cause)) => assert!(cause.contains("42P01"), "{cause}"),
        other => panic!("expected an internal error, got {other:?}"),
    }
    // A connection whose query failed is closed, not pooled.
    assert_eq!(open, 0);
    // 57P01 admin_shutdown, or the closed socket behind it: 503.
    assert!(
        matches!(terminated, Err(DbError::Unavailable(_))),
        "{terminated:?}"
    );
}

/// Runs `sql` on its own connection, outside the pool.
fn admin(url: &str, sql: &str) {
    let config: tokio_postgres::Config = url.parse().expect("database URL");
    server_support::sync_postgres::PgConnection::connect(&config, Duration::from_secs(5), false)
        .and_then(|mut c| c.execute_in_transaction(&[sql], Duration::from_secs(10)))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn an_outage_gives_unavailable_by_the_deadline_and_recovery_needs_no_restart() {
    let services = services();
    let (proxy, pool) = proxied_pool(&services, 2, 500);
    let outcome = on_coroutine(move |waits| {
        let query = || {
            let started = Instant::now();
            let result = pool
                .get(waits)
                .and_then(|mut c| c.user_by_id(waits, 1).map_err(|e| e.to_string()));
            (started.elapsed(), result)
        };
        assert!(query().1.expect("through the proxy").is_some());
        // Down: the pooled connection fails; so would a new one, at once.
        proxy.set_mode(Mode::Refuse);
        let broken = query();
        let refused = query();
        // Hanging: a new connection is accepted and never answered.
        proxy.set_mode(Mode::Stall);
        let stalled = query();
        // Back: the next checkout opens a fresh connection.
        proxy.set_mode(Mode::Pass);
        let recovered = query().1;
        assert!(broken.1.is_err(), "{broken:?}");
        (refused, stalled, recovered, pool.state().open)
    });
    let ((refused_in, refused), (stalled_in, stalled), recovered, open) = outcome;
    assert!(refused.is_err(), "{refused:?}");
    assert!(refused_in < Duration::from_millis(400), "{refused_in:?}");
    assert!(stalled.is_err(), "{stalled:?}");
    assert!(
        stalled_in >= Duration::from_millis(450) && stalled_in < Duration::from_millis(2500),
        "a stalled database answers 503 after the deadline (500 ms), took {stalled_in:?}"
    );
    assert!(recovered.expect("recovered").is_some());
    assert_eq!(open, 1);
}

#[test]
fn a_query_on_a_stalled_connection_ends_by_its_deadline_and_the_connection_is_dropped() {
    let services = services();
    let (proxy, pool) = proxied_pool(&services, 2, 500);
    let (took, result, open) = on_coroutine(move |waits| {
        let mut conn = pool.get(waits).expect("a connection");
        proxy.set_mode(Mode::Stall);
        let started = Instant::now();
        let result = conn.user_by_id(waits, 1);
        let took = started.elapsed();
        drop(conn);
        (took, result, pool.state().open)
    });
    assert!(matches!(result, Err(DbError::Unavailable(_))), "{result:?}");
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    assert_eq!(open, 0, "the stalled connection is closed");
}

#[test]
fn the_pool_never_opens_more_than_its_size_and_the_rest_park_then_time_out() {
    let services = services();
    let (proxy, url) = proxied(&services);
    // Each query takes a round trip of 50 ms, so eight at once queue.
    proxy.set_round_trip(Duration::from_millis(50));
    let pool = pg_pool(&url, &services.redis_url, 2, 600);
    let most_open = Arc::new(AtomicUsize::new(0));
    let (ok, timed_out, waiters_seen) = on_coroutine({
        let most_open = Arc::clone(&most_open);
        move |waits| {
            // Two held: every other checkout parks.
            let held = [
                pool.get(waits).expect("first"),
                pool.get(waits).expect("second"),
            ];
            let waiters: Vec<_> = (0..3)
                .map(|_| {
                    let pool = pool.clone();
                    crate::virtual_threads::spawn::go("waiter", move || {
                        let started = Instant::now();
                        (
                            untimed(|waits| pool.get(waits).map(drop)),
                            started.elapsed(),
                        )
                    })
                    .expect("a waiter")
                })
                .collect();
            waits.sleep(Duration::from_millis(100));
            let waiters_seen = pool.state().waiters;
            let timed_out: Vec<_> = waiters.into_iter().filter_map(|w| w.join().ok()).collect();
            drop(held);
            // Eight queries at once on two connections: all answered in turn.
            let queries: Vec<_> = (0..8)
                .map(|_| {
                    let (pool, most_open) = (pool.clone(), Arc::clone(&most_open));
                    crate::virtual_threads::spawn::go("query", move || {
                        untimed(|waits| {
                            let mut conn = pool.get(waits).map_err(|e| e.to_string())?;
                            most_open.fetch_max(pool.state().open, Ordering::SeqCst);
                            conn.user_by_id(waits, 1).map_err(|e| e.to_string())
                        })
                    })
                    .expect("a query")
                })
                .collect();
            let ok = queries
                .into_iter()
                .map(|q| q.join())
                .filter(|answer| matches!(answer, Ok(Ok(Some(_)))))
                .count();
            most_open.fetch_max(pool.state().open, Ordering::SeqCst);
            (ok, timed_out, waiters_seen)
        }
    });
    assert_eq!(waiters_seen, 3, "three checkouts parked");
    assert_eq!(timed_out.len(), 3);
    for (result, waited) in &timed_out {
        assert!(result.is_err(), "{result:?}");
        assert!(
            *waited >= Duration::from_millis(550) && *waited < Duration::from_millis(2500),
            "a parked checkout gives up after the acquire timeout (600 ms): {waited:?}"
        );
    }
    // 8 queries of one 50-ms round trip on 2 connections: about 200 ms of
    // queueing, within the 600-ms acquire timeout.
    assert_eq!(ok, 8);
    assert!(most_open.load(Ordering::SeqCst) <= 2, "{most_open:?}");
}

#[test]
fn parked_checkouts_leave_the_one_carrier_free_for_other_coroutines() {
    let services = services();
    let pool = pg_pool(services.db.url(), &services.redis_url, 1, 1500);
    let (prompt, waiters_seen) = on_coroutine(move |waits| {
        let conn = pool.get(waits).expect("the one connection");
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let pool = pool.clone();
                crate::virtual_threads::spawn::go("waiter", move || {
                    untimed(|waits| pool.get(waits).map(drop))
                })
                .expect("a waiter")
            })
            .collect();
        let parked = wait_until(waits, Duration::from_secs(1), || pool.state().waiters == 4);
        // Another coroutine on the same (single) carrier, while four park.
        let started = Instant::now();
        let other = crate::virtual_threads::spawn::go("other", move || started.elapsed())
            .expect("another coroutine");
        let prompt = other.join().expect("the other coroutine");
        drop(conn);
        for w in waiters {
            let _ = w.join();
        }
        (prompt, parked)
    });
    assert!(waiters_seen, "four checkouts parked");
    assert!(
        prompt < Duration::from_millis(300),
        "another coroutine ran {prompt:?} after it was started, with four checkouts parked \
         (they time out after 1500 ms)"
    );
}
