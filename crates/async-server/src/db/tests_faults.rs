//! The three async Postgres drivers when things go wrong, through the
//! workspace's fault proxy in front of a real Postgres: an outage (refused,
//! then stalled) answered 503 within the deadline and served again without
//! a restart, the bound of each (a pool's size, a pipeline's depth) held
//! with the same 503 past it, and a shared connection killed under
//! pipelined queries.

use std::sync::Arc;
use std::time::{Duration, Instant};

use net_tools::proxy::{url_addr, url_with_addr, FaultProxy, Mode};

use super::tests::{fresh_database, side_connection, with_driver, DRIVERS};
use super::{AsyncDb, Driver};
use crate::error::AppError;
use crate::settings::PostgresDriver;

/// A proxy in front of `url`'s Postgres, and the URL through it.
fn proxied(url: &str) -> (FaultProxy, String) {
    let proxy = FaultProxy::start(url_addr(url).expect("database address")).expect("a proxy");
    let through = url_with_addr(url, proxy.addr());
    (proxy, through)
}

/// The contract's 503 for the database, whatever the cause.
fn assert_unavailable(answer: &Result<Option<contract::model::User>, AppError>, what: &str) {
    match answer {
        Err(e) => assert_eq!(
            e.error,
            contract::ApiError::unavailable("database"),
            "{what}: {e:?}"
        ),
        Ok(user) => panic!("{what}: expected 503, got {user:?}"),
    }
}

/// Asks for user 1 until it comes, or `limit` passes.
async fn served_again_within(db: &AsyncDb, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if matches!(db.find_user(1).await, Ok(Some(_))) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Postgres refused, then stalled: each driver answers 503 within its
/// deadline (1 s here, plus a wide margin for a busy machine), and serves
/// again once Postgres is back, with no restart.
#[test]
fn an_outage_is_a_503_within_the_deadline_and_each_driver_recovers() {
    let db = fresh_database();
    for driver in DRIVERS {
        let (proxy, url) = proxied(db.url());
        with_driver(
            &url,
            driver,
            &["--acquire-timeout-ms", "1000"],
            async |pg| {
                assert!(pg.find_user(1).await.expect("before the outage").is_some());
                for mode in [Mode::Refuse, Mode::Stall] {
                    proxy.set_mode(mode);
                    let started = Instant::now();
                    let answer = pg.find_user(1).await;
                    let took = started.elapsed();
                    assert_unavailable(&answer, &format!("{driver:?} {mode:?}"));
                    assert!(
                        took < Duration::from_secs(4),
                        "{driver:?} {mode:?}: {took:?}"
                    );
                    proxy.set_mode(Mode::Pass);
                    assert!(
                        served_again_within(&pg, Duration::from_secs(5)).await,
                        "{driver:?} did not recover after {mode:?}"
                    );
                }
            },
        );
    }
}

/// Opens every connection the driver may have while the proxy adds
/// nothing: pairs of lookups at once until the pool is full and idle.
async fn warm_up(pg: &Arc<AsyncDb>) {
    for _ in 0..20 {
        let pair: Vec<_> = (0..2)
            .map(|_| {
                let pg = pg.clone();
                tokio::spawn(async move { pg.find_user(1).await })
            })
            .collect();
        for lookup in pair {
            lookup
                .await
                .expect("a warm-up task")
                .expect("a warm-up query");
        }
        // Full, and every connection back in the pool (sqlx's ping on
        // release must be over before the round trip grows).
        for _ in 0..100 {
            let gauges = pg.pool_gauges();
            if gauges.size == gauges.max_size && gauges.idle == gauges.size {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    panic!("the pool never filled: {:?}", pg.pool_gauges());
}

/// Each driver's bound holds: a pool of 2 (or one shared connection with a
/// pipeline 2 deep) serves 2 of 6 lookups sent at once when each takes a
/// 600-ms round trip and a request may wait 900 ms; the other 4 get the
/// same 503 as a pool timeout. Without the bound all 6 would be served in
/// one round trip. The pipelined driver opens one connection for all.
#[test]
fn each_drivers_bound_holds_and_past_it_requests_get_503() {
    let db = fresh_database();
    for driver in DRIVERS {
        let (proxy, url) = proxied(db.url());
        let extra = [
            "--acquire-timeout-ms",
            "900",
            "--postgres-pipeline-depth",
            "2",
        ];
        let (served, unavailable, connections) = with_driver(&url, driver, &extra, async |pg| {
            warm_up(&pg).await;
            proxy.set_round_trip(Duration::from_millis(600));
            let lookups: Vec<_> = (0..6)
                .map(|i| {
                    let pg = pg.clone();
                    tokio::spawn(async move { pg.find_user(i + 1).await })
                })
                .collect();
            let (mut served, mut unavailable) = (0, 0);
            for lookup in lookups {
                match lookup.await.expect("a lookup task") {
                    Ok(Some(_)) => served += 1,
                    answer => {
                        assert_unavailable(&answer, &format!("{driver:?} past the bound"));
                        unavailable += 1;
                    }
                }
            }
            (served, unavailable, pg.pool_gauges().size)
        });
        assert_eq!((served, unavailable), (2, 4), "{driver:?}");
        let most = if driver == PostgresDriver::Pipelined {
            1
        } else {
            2
        };
        assert!(connections <= most, "{driver:?}: {connections} connections");
    }
}

/// Terminates the backends the driver opened on `database` (through a
/// side connection to `url`); how many there were.
async fn terminate_drivers_connections(url: &str, database: &str) -> u64 {
    let side = side_connection(url).await;
    let killed = side
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND application_name = $2",
            &[&database, &super::APPLICATION_NAME],
        )
        .await
        .expect("terminating the driver's backends");
    killed.len() as u64
}

/// The shared connection is killed (pg_terminate_backend) while 20
/// lookups are pipelined on it, a 400-ms round trip away: each of them
/// gets 503 (nothing is retried), and the next lookups are served on a
/// connection opened again, with no restart.
#[test]
fn a_shared_connection_killed_under_queries_in_flight_fails_them_and_is_opened_again() {
    let db = fresh_database();
    let (proxy, url) = proxied(db.url());
    let extra = ["--acquire-timeout-ms", "3000"];
    with_driver(&url, PostgresDriver::Pipelined, &extra, async |pg| {
        assert!(pg.find_user(1).await.expect("a first query").is_some());
        proxy.set_round_trip(Duration::from_millis(400));
        let lookups: Vec<_> = (0..20)
            .map(|i| {
                let pg: Arc<AsyncDb> = pg.clone();
                tokio::spawn(async move { pg.find_user(i + 1).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let killed = terminate_drivers_connections(db.url(), db.name()).await;
        assert_eq!(killed, 1, "one shared connection");
        for lookup in lookups {
            let answer = lookup.await.expect("a lookup task");
            assert_unavailable(&answer, "a lookup in flight on the killed connection");
        }
        proxy.set_round_trip(Duration::ZERO);
        for id in 1..=5 {
            let user = pg.find_user(id).await.expect("a lookup after the kill");
            assert_eq!(user.map(|u| u.id), Some(id));
        }
        let Driver::Pipelined(clients) = &pg.driver else {
            unreachable!()
        };
        assert_eq!(clients.gauges().opened, 2, "opened again once");
    });
}
