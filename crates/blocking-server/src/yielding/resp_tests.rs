//! The yielding RESP client: its reply parser on bytes, then against a
//! real Redis (a fresh key prefix): a miss, the pipelined SETs, a hit, a
//! value it cannot read, an outage through the fault proxy and the
//! recovery after it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};
use redis::Commands as _;
use server_support::sync_redis::CacheError;

use super::pool::Pool;
use super::resp::{parse_reply, pool, RedisConn, Reply};
use super::test_support::{on_coroutine, redis_prefix, settings};
use local_services::RedisPrefix;

/// A pool of two Redis connections (the settings name a database these
/// tests never open).
fn redis_pool(redis_url: &str, acquire_ms: u64) -> Pool<RedisConn> {
    let unused_db = "postgres://postgres@127.0.0.1:9/unused";
    pool(&settings(unused_db, redis_url, 2, acquire_ms)).expect("the yielding pool")
}

/// A fresh key prefix (its guard, and the prefix itself), a fault proxy in
/// front of Redis, and a pool of two connections through it whose calls
/// end by `acquire_ms`.
fn pool_through_proxy(acquire_ms: u64) -> (RedisPrefix, String, Arc<FaultProxy>, Pool<RedisConn>) {
    let (prefix_guard, redis_url) = redis_prefix();
    let proxy =
        FaultProxy::start(url_addr(&redis_url).expect("redis address")).expect("a fault proxy");
    let redis_pool = redis_pool(&url_with_addr(&redis_url, proxy.addr()), acquire_ms);
    let prefix = prefix_guard.as_str().to_owned();
    (prefix_guard, prefix, Arc::new(proxy), redis_pool)
}

/// Bytes, and the reply they hold with its length (`None`: not whole yet).
type ParseCase = (&'static [u8], Option<(Reply, usize)>);

#[test]
fn replies_are_parsed_whole_or_not_at_all() {
    let cases: [ParseCase; 9] = [
        (b"+OK\r\n", Some((Reply::Simple("OK".into()), 5))),
        (
            b"-ERR wrong type\r\n",
            Some((Reply::Error("ERR wrong type".into()), 17)),
        ),
        (b":42\r\n", Some((Reply::Integer(42), 5))),
        (
            b"$5\r\nhello\r\n+OK\r\n",
            Some((Reply::Bulk(Some(b"hello".to_vec())), 11)),
        ),
        (b"$0\r\n\r\n", Some((Reply::Bulk(Some(Vec::new())), 6))),
        (b"$-1\r\n", Some((Reply::Bulk(None), 5))),
        // Not all there yet: read more.
        (b"$5\r\nhel", None),
        (b"+O", None),
        (b"", None),
    ];
    for (bytes, expected) in cases {
        assert_eq!(
            parse_reply(bytes).expect("a valid reply"),
            expected,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    for bad in [&b"$5\r\nhelloXX"[..], b"*1\r\n", b"\r\n", b":x\r\n"] {
        assert!(parse_reply(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_miss_then_pipelined_sets_then_a_hit() {
    let (prefix_guard, redis_url) = redis_prefix();
    let redis_pool = redis_pool(&redis_url, 2000);
    let prefix = prefix_guard.as_str().to_owned();
    let (miss, set, hit) = on_coroutine(move |waits| {
        let mut conn = redis_pool.get(waits).expect("a connection");
        let miss = conn.get_user_fields(waits, &prefix, 7);
        let set = conn.set_user_fields(waits, &prefix, 7, "Ada", "ada@example.com");
        let hit = conn.get_user_fields(waits, &prefix, 7);
        (miss, set, hit)
    });
    assert_eq!(miss, Ok((None, None)));
    assert_eq!(set, Ok(()));
    assert_eq!(
        hit,
        Ok((Some("Ada".into()), Some("ada@example.com".into())))
    );
    // What the redis crate reads: the same keys as server_support::sync_redis, no expiry.
    let mut check = redis::Client::open(redis_url.as_str())
        .and_then(|c| c.get_connection())
        .expect("a redis connection");
    let key = contract::cache::name_key(prefix_guard.as_str(), 7);
    let value: String = check.get(&key).expect("GET");
    let ttl: i64 = check.ttl(&key).expect("TTL");
    assert_eq!((value.as_str(), ttl), ("Ada", -1));
}

#[test]
fn a_value_it_cannot_read_is_unreadable_and_the_connection_stays() {
    let (prefix_guard, redis_url) = redis_prefix();
    let mut plant = redis::Client::open(redis_url.as_str())
        .and_then(|c| c.get_connection())
        .expect("a redis connection");
    let prefix = prefix_guard.as_str().to_owned();
    // User 5: a name that is not UTF-8; user 6: an email key holding a list.
    let _: () = plant
        .set(contract::cache::name_key(&prefix, 5), &[0xff_u8, 0xfe][..])
        .expect("SET");
    let _: () = plant
        .set(contract::cache::name_key(&prefix, 6), "Di")
        .expect("SET");
    let _: () = plant
        .rpush(contract::cache::email_key(&prefix, 6), "di@example.com")
        .expect("RPUSH");
    let redis_pool = redis_pool(&redis_url, 2000);
    let (not_utf8, wrong_type, open) = on_coroutine(move |waits| {
        let mut conn = redis_pool.get(waits).expect("a connection");
        let not_utf8 = conn.get_user_fields(waits, &prefix, 5);
        let wrong_type = conn.get_user_fields(waits, &prefix, 6);
        drop(conn);
        (not_utf8, wrong_type, redis_pool.state().open)
    });
    assert!(
        matches!(&not_utf8, Err(CacheError::Unreadable(cause)) if cause.contains("UTF-8")),
        "{not_utf8:?}"
    );
    assert!(
        matches!(&wrong_type, Err(CacheError::Unreadable(cause)) if cause.contains("WRONGTYPE")),
        "{wrong_type:?}"
    );
    assert_eq!(
        open, 1,
        "an answer it cannot read leaves the connection open"
    );
}

#[test]
fn the_two_sets_take_one_round_trip() {
    let (_prefix_guard, prefix, proxy, redis_pool) = pool_through_proxy(3000);
    proxy.set_round_trip(Duration::from_millis(200));
    let (sets, gets) = on_coroutine(move |waits| {
        let mut conn = redis_pool.get(waits).expect("a connection");
        let started = Instant::now();
        conn.set_user_fields(waits, &prefix, 8, "Bo", "bo@example.com")
            .expect("SETs");
        let sets = started.elapsed();
        let started = Instant::now();
        conn.get_user_fields(waits, &prefix, 8).expect("GETs");
        (sets, started.elapsed())
    });
    // One 200-ms round trip for both SETs; the two GETs take one each.
    assert!(
        sets >= Duration::from_millis(190) && sets < Duration::from_millis(330),
        "{sets:?}"
    );
    assert!(gets >= Duration::from_millis(390), "{gets:?}");
}

#[test]
fn an_outage_is_an_error_by_the_deadline_and_recovery_needs_no_restart() {
    let (_prefix_guard, prefix, proxy, redis_pool) = pool_through_proxy(500);
    let p = Arc::clone(&proxy);
    let (refused, stalled, recovered, open) = on_coroutine(move |waits| {
        let read = || {
            let started = Instant::now();
            let result = redis_pool
                .get(waits)
                .map_err(CacheError::Unavailable)
                .and_then(|mut c| c.get_user_fields(waits, &prefix, 9));
            (started.elapsed(), result)
        };
        assert_eq!(read().1, Ok((None, None)));
        p.set_mode(Mode::Refuse);
        let broken = read();
        assert!(broken.1.is_err(), "{broken:?}");
        let refused = read();
        p.set_mode(Mode::Stall);
        let stalled = read();
        p.set_mode(Mode::Pass);
        let recovered = read().1;
        (refused, stalled, recovered, redis_pool.state().open)
    });
    assert!(refused.1.is_err(), "{refused:?}");
    assert!(refused.0 < Duration::from_millis(400), "{refused:?}");
    assert!(stalled.1.is_err(), "{stalled:?}");
    assert!(
        stalled.0 >= Duration::from_millis(450) && stalled.0 < Duration::from_millis(2500),
        "a stalled Redis is an error after the deadline (500 ms): {stalled:?}"
    );
    assert_eq!(recovered, Ok((None, None)));
    assert_eq!(open, 1, "the broken connections were closed");
}

#[test]
fn a_command_on_a_stalled_connection_ends_by_its_deadline() {
    let (_prefix_guard, prefix, proxy, redis_pool) = pool_through_proxy(500);
    let p = Arc::clone(&proxy);
    let (took, result, open) = on_coroutine(move |waits| {
        let mut conn = redis_pool.get(waits).expect("a connection");
        p.set_mode(Mode::Stall);
        let started = Instant::now();
        let result = conn.set_user_fields(waits, &prefix, 9, "Cy", "cy@example.com");
        let took = started.elapsed();
        drop(conn);
        (took, result, redis_pool.state().open)
    });
    assert!(result.is_err(), "{result:?}");
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    assert_eq!(open, 0);
}
