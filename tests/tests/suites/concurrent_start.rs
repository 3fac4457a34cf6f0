//! Every server mode started at the same instant against one empty database
//! and one Redis key prefix. Migrations and seeding must run once (the
//! servers take a Postgres advisory lock around them), every server must
//! become healthy, exactly 10,000 users must exist, and every user's two cache
//! keys must be set.
//!
//! In `cargo test` it repeats 3 times; `RELIABILITY_FULL=1` makes it 10.

use std::sync::{Arc, Barrier};

use contract::cache::{email_key, name_key};
use contract::sql::SEEDED_USERS;
use harness::{fresh_data, spawn_app_with, AppData, AppOptions, Server};

fn count_users(data: &AppData) -> (i64, i64) {
    let mut client = postgres::Client::connect(data.database_url(), postgres::NoTls)
        .unwrap_or_else(|e| panic!("connecting to the test database: {e}"));
    let row = client
        .query_one("SELECT count(*), count(DISTINCT email) FROM users", &[])
        .unwrap_or_else(|e| panic!("counting users: {e}"));
    (row.get(0), row.get(1))
}

/// How many of the seeded users' name and email keys hold a value.
fn count_cache_keys(data: &AppData) -> usize {
    let url = local_services::redis()
        .map(|r| r.url().to_owned())
        .unwrap_or_else(|e| panic!("redis for tests: {e}"));
    let mut conn = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .unwrap_or_else(|e| panic!("connecting to redis: {e}"));
    let prefix = data.redis_prefix();
    let mut set = 0;
    let ids: Vec<i64> = (1..=SEEDED_USERS).collect();
    for batch in ids.chunks(1_000) {
        let keys: Vec<String> = batch
            .iter()
            .flat_map(|&id| [name_key(prefix, id), email_key(prefix, id)])
            .collect();
        let values: Vec<Option<String>> = redis::cmd("MGET")
            .arg(&keys)
            .query(&mut conn)
            .unwrap_or_else(|e| panic!("reading cache keys: {e}"));
        set += values.iter().filter(|v| v.is_some()).count();
    }
    set
}

#[test]
fn every_server_starting_at_once_on_an_empty_database_seed_it_exactly_once() {
    let rounds = if harness::reliability_full() { 10 } else { 3 };
    for round in 1..=rounds {
        let data = fresh_data().unwrap_or_else(|e| panic!("fresh test data: {e:#}"));
        let start_together = Arc::new(Barrier::new(Server::ALL.len()));
        let starters: Vec<_> = Server::ALL
            .into_iter()
            .map(|server| {
                let (data, start_together) = (data.clone(), start_together.clone());
                std::thread::spawn(move || {
                    start_together.wait();
                    spawn_app_with(
                        server,
                        AppOptions {
                            shared_data: Some(data),
                            ..AppOptions::default()
                        },
                    )
                })
            })
            .collect();
        let apps: Vec<_> = starters
            .into_iter()
            .map(|s| s.join().expect("a server did not start (see above)"))
            .collect();

        for app in &apps {
            assert_eq!(
                app.get("/users/1").json()["name"],
                "seungwoo",
                "round {round}: {}",
                app.server.name()
            );
            assert_eq!(app.get("/users/10000").status, 200);
            assert_eq!(app.get("/users/10001").status, 404);
        }
        assert_eq!(
            count_users(&data),
            (SEEDED_USERS, SEEDED_USERS),
            "round {round}: users after concurrent starts"
        );
        assert_eq!(
            count_cache_keys(&data),
            2 * SEEDED_USERS as usize,
            "round {round}: cache keys after concurrent starts"
        );
        drop(apps);
    }
}
