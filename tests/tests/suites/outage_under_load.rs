//! A dependency outage *under steady load*, on every server mode.
//!
//! `faults` checks outage -> 503 -> recovery one request at a time; here
//! client threads keep sending requests on several routes, two threads on
//! each route, while Postgres and Redis (each behind a [`FaultProxy`])
//! refuse connections, or stall (accept and never answer), and come back:
//! a test for each server and each kind of outage. A thread sends its route
//! again a moment after each answer: a steady load, not one that takes the
//! machine's cores, so the test runs beside the others.
//!
//! Every request is recorded, and the record must show:
//! - no request hangs: every one is answered within the acquire timeout plus
//!   a wide margin, and none fails at the transport level;
//! - while a dependency is down, its routes answer 503 with the contract's
//!   body, and each of them got at least one 503 answered during the
//!   outage (so that check cannot pass on no requests at all, nor on a
//!   server that waits a short outage out);
//! - `/health` and `/cpu` answer 200 throughout;
//! - every request sent 5 s or more after the dependency returned answers 200.
//!
//! Each route has threads of its own, so that every dependency route is
//! asked throughout the outage: threads that each went round every route
//! could all be held by other routes' requests for a whole short outage
//! (on virtual threads with the pinning driver a stalled call holds its
//! carrier for the acquire timeout, and the other requests wait for a
//! carrier), and not ask the route once in it.
//!
//! The test prints the measured recovery time (from the moment the proxy
//! passes again to the last non-200 answer of a dependency route); run with
//! `--nocapture` to see it:
//! `cargo test -p harness --test suites -- outage_under_load --nocapture`.
//!
//! In `cargo test` each outage lasts 6 s; `RELIABILITY_FULL=1` makes it 15 s.

use std::time::{Duration, Instant};

use contract::ApiError;
use harness::steady_load::{Record, SteadyLoad};
use harness::{spawn_app_with, AppOptions, Server};
use net_tools::proxy::Mode;

/// The harness runs servers with `--acquire-timeout-ms 1000`.
const ACQUIRE_TIMEOUT: Duration = Duration::from_millis(1000);
/// What a busy 2-core machine cannot add to an answer.
const MARGIN: Duration = Duration::from_millis(3000);
/// Routes answer 200 again within 5 s of the dependency returning.
const RECOVER_WITHIN: Duration = Duration::from_secs(5);
/// Routes that need a dependency, and which one names itself in the 503.
const DEPENDENT: [(&str, &str); 2] = [("/users/5", "database"), ("/users/5/cache", "cache")];
/// Routes that need neither dependency.
const INDEPENDENT: [&str; 2] = ["/health", "/cpu?n=1000"];
/// Client threads on each route.
const THREADS_PER_ROUTE: usize = 2;
/// How long a client thread waits after an answer before it sends again.
const THINK_TIME: Duration = Duration::from_millis(10);

/// The longest an answer may take on `server`: the acquire timeout and the
/// margin where a wait parks (platform threads, the event loop, the
/// yielding driver). On virtual threads with the pinning driver, add the
/// waits for a carrier: a refused or stalled call holds its carrier for up
/// to the acquire timeout, and may serves a socket's events only on the
/// carrier its descriptor maps to (fd % carriers), once that carrier is
/// free and has run what it had queued. So each step of a request that
/// needs a carrier (its accept, its head, its handler) can wait behind the
/// pin of every dependent request in flight, one per client thread on a
/// dependent route. (A full-suite run once saw a `/users/5` wait behind four
/// pins, past the acquire timeout and the margin alone.)
fn answer_within(server: Server) -> Duration {
    let parks = ACQUIRE_TIMEOUT + MARGIN;
    if server != Server::Virtual {
        return parks;
    }
    let steps = 3;
    let pins_in_flight = (DEPENDENT.len() * THREADS_PER_ROUTE) as u32;
    parks + ACQUIRE_TIMEOUT * steps * pins_in_flight
}

/// One outage: when the proxies left `Pass` and when they returned to it.
struct Outage {
    mode: Mode,
    down: Duration,
    back: Duration,
    /// When the load stopped.
    until: Duration,
}

/// `server` under steady load while Postgres and Redis go `mode` (refuse or
/// stall) for a while and come back.
fn outage_under_load(server: Server, mode: Mode) {
    let (outage_for, up_for) = if harness::reliability_full() {
        (Duration::from_secs(15), Duration::from_secs(8))
    } else {
        // Longer than the first 503s of the dependent requests in flight
        // when it begins can take: on two carriers pinned by stalled calls,
        // one of four in flight can wait 3 s for its 503, so a 3-s outage
        // could end before any 503 came.
        (Duration::from_secs(6), Duration::from_secs(6))
    };
    let app = spawn_app_with(
        server,
        AppOptions {
            through_proxies: true,
            ..AppOptions::default()
        },
    );
    let proxies = [
        app.db_proxy.as_ref().expect("db proxy"),
        app.redis_proxy.as_ref().expect("redis proxy"),
    ];
    let start = Instant::now();
    let paths: Vec<&'static str> = DEPENDENT
        .iter()
        .map(|(p, _)| *p)
        .chain(INDEPENDENT)
        .collect();
    let load = SteadyLoad::start(app.addr, &paths, THREADS_PER_ROUTE, THINK_TIME, start);
    std::thread::sleep(Duration::from_secs(1));

    proxies.iter().for_each(|p| p.set_mode(mode));
    let down = start.elapsed();
    std::thread::sleep(outage_for);
    proxies.iter().for_each(|p| p.set_mode(Mode::Pass));
    let back = start.elapsed();
    std::thread::sleep(up_for);
    let until = start.elapsed();
    let records = load.stop();
    check(
        server,
        &records,
        &[Outage {
            mode,
            down,
            back,
            until,
        }],
    );
}

fn check(server: Server, records: &[Record], outages: &[Outage]) {
    let name = server.name();
    let answer_within = answer_within(server);
    assert!(
        records.len() > 50,
        "{name}: only {} requests sent",
        records.len()
    );
    for r in records {
        let (status, body) = match &r.answer {
            Ok(answer) => answer,
            Err(e) => panic!("{name} {} sent at {:?}: no answer: {e}", r.path, r.sent),
        };
        assert!(
            r.took < answer_within,
            "{name} {} sent at {:?} took {:?}",
            r.path,
            r.sent,
            r.took
        );
        if INDEPENDENT.contains(&r.path) {
            assert_eq!(*status, 200, "{name} {} at {:?}", r.path, r.sent);
        }
        let Some((_, dependency)) = DEPENDENT.iter().find(|(p, _)| *p == r.path) else {
            continue;
        };
        for o in outages {
            // Sent after the proxy went down and answered before it came back.
            if r.sent > o.down && r.sent + r.took < o.back {
                assert_eq!(
                    (*status, body.clone()),
                    (503, ApiError::unavailable(dependency).body_json()),
                    "{name} {} at {:?} during the {:?} outage: {}",
                    r.path,
                    r.sent,
                    o.mode,
                    String::from_utf8_lossy(body)
                );
            }
            if r.sent > o.back + RECOVER_WITHIN && r.sent + r.took < o.until {
                assert_eq!(
                    *status,
                    200,
                    "{name} {} sent {:?} after the {:?} outage ended: {}",
                    r.path,
                    r.sent - o.back,
                    o.mode,
                    String::from_utf8_lossy(body)
                );
            }
        }
    }

    for o in outages {
        each_outage_was_felt_and_recovered_from(name, records, o);
    }
}

/// From the proxy passing again to the end of the last answer that was not
/// a 200: the measured figure. Each dependency route sent during the outage
/// got at least one 503.
/// Every request in flight during `o`, one per line, for a failure message.
fn met_the_outage(records: &[Record], o: &Outage) -> String {
    records
        .iter()
        .filter(|r| r.sent < o.back && r.sent + r.took > o.down)
        .map(|r| {
            let answer = r.answer.as_ref().map(|(status, _)| status);
            format!(
                "\n{} sent at {:?}, answered {:?} later: {answer:?}",
                r.path, r.sent, r.took
            )
        })
        .collect()
}

fn each_outage_was_felt_and_recovered_from(name: &str, records: &[Record], o: &Outage) {
    let last_failure = records
        .iter()
        .filter(|r| DEPENDENT.iter().any(|(p, _)| *p == r.path))
        .filter(|r| r.sent >= o.back && r.sent + r.took < o.until)
        .filter(|r| !matches!(r.answer, Ok((200, _))))
        .map(|r| r.sent + r.took - o.back)
        .max()
        .unwrap_or(Duration::ZERO);
    let during = records
        .iter()
        .filter(|r| r.sent > o.down && r.sent < o.back)
        .count();
    // The outage was felt: each dependency route got at least one 503
    // answered while the dependency was down. Counted by when the answer
    // came, not when the request was sent: a request sent just before the
    // outage meets it as fully as one sent during it, and one sent less
    // than an acquire timeout before the dependency returns may rightly be
    // served once it is back. A server that waited a short outage out
    // would answer nothing before the dependency returned, and fail here.
    for (path, _) in DEPENDENT {
        let refused = records
            .iter()
            .filter(|r| r.path == path && r.sent + r.took > o.down && r.sent + r.took < o.back)
            .filter(|r| matches!(r.answer, Ok((503, _))))
            .count();
        assert!(
            refused >= 1,
            "{name}: no {path} was answered 503 during the {:?} outage (from {:?} to {:?}); \
             the requests that met it:{}",
            o.mode,
            o.down,
            o.back,
            met_the_outage(records, o)
        );
    }
    println!(
        "{name}: {:?} outage of {:?} under load ({during} requests during it): \
         recovered {last_failure:?} after the dependency returned",
        o.mode,
        o.back - o.down
    );
    assert!(
        last_failure < RECOVER_WITHIN,
        "{name}: a dependency route still failed {last_failure:?} after the {:?} outage",
        o.mode
    );
}

// The virtual-thread servers in a process of their own: a server slowed
// behind proxies has may's carriers to itself, and in this process it would
// keep every other virtual-thread test waiting for them for the whole test.
harness::test_cases! {
    outage_under_load, gate: quiet;
    blocking_server_rides_out_refused_connections_under_load(Server::Blocking, Mode::Refuse);
    blocking_server_rides_out_a_stalled_dependency_under_load(Server::Blocking, Mode::Stall);
    blocking_server_with_a_redis_pool_rides_out_refused_connections_under_load(Server::BlockingRedisPool, Mode::Refuse);
    blocking_server_with_a_redis_pool_rides_out_a_stalled_dependency_under_load(Server::BlockingRedisPool, Mode::Stall);
    async_server_rides_out_refused_connections_under_load(Server::Async, Mode::Refuse);
    async_server_rides_out_a_stalled_dependency_under_load(Server::Async, Mode::Stall);
    in_own_process virtual_threads_ride_out_refused_connections_under_load(Server::Virtual, Mode::Refuse);
    in_own_process virtual_threads_ride_out_a_stalled_dependency_under_load(Server::Virtual, Mode::Stall);
    in_own_process virtual_threads_yielding_ride_out_refused_connections_under_load(Server::VirtualYielding, Mode::Refuse);
    in_own_process virtual_threads_yielding_ride_out_a_stalled_dependency_under_load(Server::VirtualYielding, Mode::Stall);
}
