//! Postgres restarted for real under load, on every driver and model: the
//! blocking server's sync driver on platform threads and on virtual threads
//! (pinning), the yielding driver, and the async server's sqlx, deadpool
//! and pipelined drivers, all against one Postgres cluster of the test's
//! own (`local_services::RestartablePostgres`; never the machine's), which
//! the test stops with a fast shutdown (every connection terminated, as by
//! `pg_ctl stop -m fast`) and starts again while client threads keep
//! asking every server for `/users/1`.
//!
//! The outage tests (faults.rs, outage_under_load.rs) take a dependency
//! away through a TCP proxy; here the database itself goes: the pools'
//! connections are cut by Postgres (SQLSTATE 57P01, then resets), new ones
//! are refused, and come back to a new postmaster. Every record must show:
//! - every request answered, each 200 or the contract's 503 (`database
//!   unavailable`), never a 500 and never a dropped connection;
//! - each server answered at least one 503 while Postgres was down;
//! - every request sent 5 s or more after Postgres answered again got 200,
//!   the server itself never restarted (it is the same in-process server
//!   throughout).
//!
//! It prints each server's recovery time (from Postgres answering again to
//! the end of the last answer that was not a 200):
//! `cargo test -p harness --test suites -- database_restart --nocapture`.

use std::time::{Duration, Instant};

use contract::ApiError;
use harness::steady_load::{Record, SteadyLoad};
use harness::{spawn_app_with, AppOptions, Server, TestApp};
use local_services::RestartablePostgres;

/// Every Postgres driver and model.
const SERVERS: [Server; 6] = [
    Server::Blocking,
    Server::Virtual,
    Server::VirtualYielding,
    Server::Async,
    Server::AsyncDeadpool,
    Server::AsyncPipelined,
];
const PATH: &str = "/users/1";
/// Client threads per server, each sending again a moment after each answer.
const CLIENTS: usize = 2;
const THINK_TIME: Duration = Duration::from_millis(10);
/// How long Postgres stays down.
const DOWN_FOR: Duration = Duration::from_secs(3);
/// Every request sent this long after Postgres answers again gets 200.
const RECOVER_WITHIN: Duration = Duration::from_secs(5);
/// The acquire timeout (1 s, the harness's) and a busy machine's margin.
const ANSWER_WITHIN: Duration = Duration::from_secs(8);

/// When Postgres stopped, and when it answered again.
struct Restart {
    down: Duration,
    up: Duration,
}

#[test]
fn every_driver_serves_again_after_postgres_restarts_under_load() {
    let _gate = harness::quiet();
    let mut postgres = RestartablePostgres::start()
        .expect("starting a Postgres cluster of the test's own")
        .expect("no initdb and postgres binaries: apt-get install postgresql");
    let url = postgres.url();
    let apps: Vec<TestApp> = std::thread::scope(|scope| {
        let starting: Vec<_> = SERVERS
            .iter()
            .map(|&server| {
                let options = AppOptions::with_args(["--database-url", url.as_str()]);
                scope.spawn(move || spawn_app_with(server, options))
            })
            .collect();
        starting
            .into_iter()
            .map(|s| s.join().expect("a server did not start"))
            .collect()
    });

    let start = Instant::now();
    let loads: Vec<SteadyLoad> = apps
        .iter()
        .map(|app| SteadyLoad::start(app.addr, &[PATH], CLIENTS, THINK_TIME, start))
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let down = start.elapsed();
    postgres.stop().expect("stopping Postgres");
    std::thread::sleep(DOWN_FOR);
    let took = postgres.start_again().expect("starting Postgres again");
    let up = start.elapsed();
    println!("Postgres down at {down:?}, answering again at {up:?} (its start took {took:?})");
    std::thread::sleep(RECOVER_WITHIN + Duration::from_secs(3));
    let records: Vec<Vec<Record>> = loads.into_iter().map(SteadyLoad::stop).collect();

    let restart = Restart { down, up };
    let failures: Vec<String> = apps
        .iter()
        .zip(&records)
        .filter_map(|(app, records)| check(app, records, &restart).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The promises of the module's documentation, on one server's records.
fn check(app: &TestApp, records: &[Record], restart: &Restart) -> Result<(), String> {
    let name = app.server.name();
    let unavailable = ApiError::unavailable("database").body_json();
    if records.len() < 20 {
        return Err(format!("{name}: only {} requests sent", records.len()));
    }
    let mut refused_while_down = 0;
    let mut last_failure_after_up = Duration::ZERO;
    for r in records {
        let at = format!(
            "{name}: {PATH} sent at {:?}, answered {:?} later",
            r.sent, r.took
        );
        let (status, body) = r
            .answer
            .as_ref()
            .map_err(|e| format!("{at}: no answer: {e}"))?;
        if r.took > ANSWER_WITHIN {
            return Err(format!("{at}: too slow"));
        }
        match status {
            200 => {}
            503 if *body == unavailable => {
                let answered = r.sent + r.took;
                if answered > restart.down && answered < restart.up {
                    refused_while_down += 1;
                }
            }
            _ => return Err(format!("{at}: {status} {}", String::from_utf8_lossy(body))),
        }
        if *status != 200 && r.sent >= restart.up {
            last_failure_after_up = last_failure_after_up.max(r.sent + r.took - restart.up);
        }
        if r.sent >= restart.up + RECOVER_WITHIN && *status != 200 {
            return Err(format!(
                "{at}: {status} {:?} after Postgres answered again",
                r.sent - restart.up
            ));
        }
    }
    if refused_while_down == 0 {
        return Err(format!(
            "{name}: no 503 answered while Postgres was down (from {:?} to {:?})",
            restart.down, restart.up
        ));
    }
    if app.get("/health").status != 200 {
        return Err(format!("{name}: /health after the restart"));
    }
    println!(
        "{name}: {} requests, {refused_while_down} answered 503 while Postgres was down, \
         served again {last_failure_after_up:?} after it answered",
        records.len()
    );
    Ok(())
}
