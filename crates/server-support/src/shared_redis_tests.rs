//! The shared Redis connection against a real Redis (a fresh key prefix),
//! directly and through a real TCP proxy: many threads on the one
//! connection each get their own reply; a value it cannot read is
//! `Unreadable` and keeps the connection; an outage, refused or stalled,
//! gives `Unavailable` within the timeout, to the calls in flight too, and
//! the connection comes back without a new client.

use std::time::{Duration, Instant};

use contract::cache::{email_key, name_key};
use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};

use crate::shared_redis::SharedRedis;
use crate::sync_redis::CacheError;
use crate::sync_redis_tests::plant_unreadable_users;
use crate::test_settings::{closed_redis_url, redis_settings};

/// The acquire timeout of these tests.
const TIMEOUT_MS: u64 = 500;
/// What a busy 2-core machine may add to a wait bounded by the timeout.
const ANSWER_WITHIN: Duration = Duration::from_millis(TIMEOUT_MS + 3000);
/// Calls succeed again this soon after Redis returns (the servers' promise).
const RECOVER_WITHIN: Duration = Duration::from_secs(5);

fn direct(redis: &local_services::Redis) -> redis::Connection {
    redis::Client::open(redis.url())
        .and_then(|c| c.get_connection())
        .expect("a direct connection")
}

/// Users `ids`, each with values that name their own key.
fn plant_users(conn: &mut redis::Connection, prefix: &str, ids: std::ops::Range<i64>) {
    let mut pipe = redis::pipe();
    for id in ids {
        pipe.set(name_key(prefix, id), name_key(prefix, id))
            .ignore()
            .set(email_key(prefix, id), email_key(prefix, id))
            .ignore();
    }
    pipe.query::<()>(conn).expect("planting users");
}

#[test]
fn many_threads_on_the_one_connection_each_get_their_own_reply() {
    const THREADS: i64 = 64;
    const CALLS: i64 = 250; // two GETs each: 500 GETs per thread
    let redis = local_services::redis().expect("redis for tests");
    let prefix = redis.fresh_prefix();
    let prefix = prefix.as_str();
    plant_users(&mut direct(redis), prefix, 0..THREADS * CALLS);
    let shared = SharedRedis::new(&redis_settings(redis.url(), 5000)).expect("the client");

    let crossed: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let shared = &shared;
                scope.spawn(move || {
                    let mut crossed = Vec::new();
                    for id in t * CALLS..(t + 1) * CALLS {
                        let got = shared
                            .connection()
                            .and_then(|mut conn| conn.get_user_fields(prefix, id));
                        let want = (Some(name_key(prefix, id)), Some(email_key(prefix, id)));
                        if got.as_ref() != Ok(&want) {
                            crossed.push(format!("user {id}: {got:?}"));
                        }
                    }
                    crossed
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().expect("a calling thread"))
            .collect()
    });
    assert!(
        crossed.is_empty(),
        "{} of {} calls got another reply than their own, e.g. {:?}",
        crossed.len(),
        THREADS * CALLS,
        &crossed[..crossed.len().min(5)]
    );
    assert_eq!(shared.connections_opened(), 1, "all on one connection");
}

#[test]
fn a_value_it_cannot_read_is_unreadable_and_the_connection_is_kept() {
    let redis = local_services::redis().expect("redis for tests");
    let prefix = redis.fresh_prefix();
    let prefix = prefix.as_str();
    let mut conn = direct(redis);
    plant_unreadable_users(&mut conn, prefix);
    let shared = SharedRedis::new(&redis_settings(redis.url(), 2000)).expect("the client");

    for id in [5, 6] {
        let read = shared
            .connection()
            .and_then(|mut c| c.get_user_fields(prefix, id));
        assert!(
            matches!(read, Err(CacheError::Unreadable(_))),
            "user {id}: {read:?}"
        );
    }
    let read = shared
        .connection()
        .and_then(|mut c| c.get_user_fields(prefix, 7));
    assert_eq!(read, Ok((None, None)));
    assert_eq!(shared.connections_opened(), 1, "the connection was kept");
}

#[test]
fn a_redis_that_is_not_there_is_unavailable() {
    let url = closed_redis_url();
    let shared = SharedRedis::new(&redis_settings(&url, TIMEOUT_MS)).expect("built without Redis");
    let opened = shared.connection().map(drop);
    assert!(
        matches!(opened, Err(CacheError::Unavailable(_))),
        "{opened:?}"
    );
    assert!(!shared.is_open());
}

/// A user's name and email, as read.
type Fields = Result<(Option<String>, Option<String>), CacheError>;

/// One user's fields through `shared`, timed.
fn read_user(shared: &SharedRedis, prefix: &str) -> (Fields, Duration) {
    let started = Instant::now();
    let read = shared
        .connection()
        .and_then(|mut c| c.get_user_fields(prefix, 1));
    (read, started.elapsed())
}

#[test]
fn an_outage_is_unavailable_in_time_for_calls_in_flight_too_then_recovers() {
    let redis = local_services::redis().expect("redis for tests");
    let prefix = redis.fresh_prefix();
    let prefix = prefix.as_str();
    plant_users(&mut direct(redis), prefix, 1..2);
    let want = (Some(name_key(prefix, 1)), Some(email_key(prefix, 1)));
    let proxy = FaultProxy::start(url_addr(redis.url()).expect("redis address")).expect("proxy");
    let url = url_with_addr(redis.url(), proxy.addr());
    let shared = SharedRedis::new(&redis_settings(&url, TIMEOUT_MS)).expect("the client");

    for fault in [Mode::Refuse, Mode::Stall] {
        assert_eq!(
            read_user(&shared, prefix).0.as_ref(),
            Ok(&want),
            "{fault:?}"
        );
        let opened_before = shared.connections_opened();
        proxy.set_mode(fault);
        // Sixteen threads at once: on a stalled connection their GETs are
        // in flight together, each waiting for a reply that never comes.
        let reads: Vec<_> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..16)
                .map(|_| scope.spawn(|| read_user(&shared, prefix)))
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().expect("a calling thread"))
                .collect()
        });
        for (read, took) in reads {
            assert!(
                matches!(read, Err(CacheError::Unavailable(_))),
                "{fault:?}: {read:?}"
            );
            assert!(
                took < ANSWER_WITHIN,
                "{fault:?}: unavailable after {took:?}"
            );
        }
        proxy.set_mode(Mode::Pass);
        let back = Instant::now();
        while read_user(&shared, prefix).0.as_ref() != Ok(&want) {
            assert!(
                back.elapsed() < RECOVER_WITHIN,
                "{fault:?}: not back after {:?}",
                back.elapsed()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            shared.connections_opened() > opened_before,
            "{fault:?}: recovered on a new connection"
        );
    }
}
