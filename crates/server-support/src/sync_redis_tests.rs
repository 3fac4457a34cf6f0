//! The sync Redis client against a real Redis (a fresh key prefix): a value
//! it cannot read is `Unreadable` and leaves the connection in use; a Redis
//! that is not there is `Unavailable`.

use contract::cache::{email_key, name_key};
use redis::Commands as _;

use crate::sync_redis::{get_user_fields, pool, CacheError, RedisManager};
use crate::test_settings::{closed_redis_url, redis_settings};

/// Users 5 and 6 with values no client can read: a name that is not
/// UTF-8, and an email key holding a list (Redis answers WRONGTYPE).
pub(crate) fn plant_unreadable_users(conn: &mut redis::Connection, prefix: &str) {
    let _: () = conn
        .set(name_key(prefix, 5), &[0xff_u8, 0xfe][..])
        .expect("SET");
    let _: () = conn.set(name_key(prefix, 6), "Di").expect("SET");
    let _: () = conn
        .rpush(email_key(prefix, 6), "di@example.com")
        .expect("RPUSH");
}

#[test]
fn a_value_it_cannot_read_is_unreadable_and_the_connection_is_kept() {
    let redis = local_services::redis().expect("redis for tests");
    let prefix = redis.fresh_prefix();
    let prefix = prefix.as_str();
    let pool = pool(&redis_settings(redis.url(), 2000)).expect("the pool");
    let mut conn = pool.get().expect("a connection");
    plant_unreadable_users(&mut conn, prefix);

    for id in [5, 6] {
        let read = get_user_fields(&mut conn, prefix, id).map_err(CacheError::from);
        assert!(
            matches!(read, Err(CacheError::Unreadable(_))),
            "user {id}: {read:?}"
        );
    }
    // The connection answered, and still does.
    assert_eq!(get_user_fields(&mut conn, prefix, 7), Ok((None, None)));
    drop(conn);
    assert_eq!(pool.state().connections, 1);
}

#[test]
fn a_redis_that_is_not_there_is_unavailable() {
    let url = closed_redis_url();
    let opened = RedisManager::new(&redis_settings(&url, 500))
        .expect("the manager")
        .open()
        .map(drop)
        .map_err(CacheError::from);
    assert!(
        matches!(opened, Err(CacheError::Unavailable(_))),
        "{opened:?}"
    );
}
