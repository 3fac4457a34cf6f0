//! What each finding means for someone choosing a model, in one plain
//! sentence per verdict. Kept apart from the checks so that a saved run's
//! findings (which carry only their id and verdict) read the same sentence.

use bench_model::Verdict;

use super::checks::Why;

/// The sentence for a finding that held, and for one that did not.
struct Meaning {
    id: &'static str,
    held: &'static str,
    not_held: &'static str,
}

const MEANINGS: &[Meaning] = &[
    Meaning {
        id: "cpu-inline-hurts-async",
        held: "CPU-heavy work run inline on an event loop makes the async server worse than a thread pool: move it off the loop, or choose threads for CPU-bound services.",
        not_held: "Inline CPU work did not make the event loop worse than the thread pool here: with every core busy, both models wait for the same CPUs.",
    },
    Meaning {
        id: "cpu-offload-recovers",
        held: "Moving CPU work to a pool of its own gives the async server the thread pool's throughput with far fewer threads.",
        not_held: "Offloading CPU work did not bring the async server within reach of the thread pool here: the hand-off costs more than it saves at this load.",
    },
    Meaning {
        id: "db-async-driver-cheaper-at-equal-load",
        held: "At the same load the event loop with sqlx (two round trips a request: its pool pings each connection it takes back) spends less server CPU per database read than a thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the event loop with sqlx spent more server CPU per database read than the thread pool: with a database this close, neither the model nor a driver with a ping per request makes a read cheaper.",
    },
    Meaning {
        id: "db-inline-driver-worst",
        held: "A blocking driver called on the event loop is the worst of all choices: never call a JDBC-style driver from a reactive handler without a scheduler.",
        not_held: "The blocking driver on the event loop was not the slowest here: against a fast local database its calls are too short to hold the loop for long; it bites when the database slows down.",
    },
    Meaning {
        id: "db-spawn-blocking-close-at-equal-load",
        held: "A blocking driver on a pool of its own (BoundedElastic) costs about what the thread-per-request server does per request: a workable way to keep an old driver.",
        not_held: "A blocking driver on spawn_blocking cost the server more CPU per request than the thread pool by more than the margin: the hop to the pool and back is not free.",
    },
    Meaning {
        id: "cpu-inline-hurts-async-connect",
        held: "Under seed 000's burst as JMeter sent it, CPU work inline on the event loop makes the async server worse than a thread pool: the loop that computes is the loop that accepts.",
        not_held: "Even with every request connecting while the server computes, inline CPU work did not make the event loop worse than the thread pool here.",
    },
    Meaning {
        id: "cpu-offload-recovers-connect",
        held: "With every request connecting while the server computes, offloading CPU work gives the async server the thread pool's throughput.",
        not_held: "With every request connecting while the server computes, offloading CPU work did not bring the async server within reach of the thread pool here.",
    },
    Meaning {
        id: "db-async-driver-wins-connect",
        held: "Under seed 000's burst as JMeter sent it, the event loop with sqlx served more database reads than a thread pool.",
        not_held: "Under seed 000's burst as JMeter sent it, the event loop with sqlx did not beat the thread pool on database reads here.",
    },
    Meaning {
        id: "db-inline-driver-worst-connect",
        held: "With every request connecting while it serves, a blocking driver on the event loop is the worst choice: the calls hold the loop that accepts.",
        not_held: "With every request connecting while it serves, the blocking driver on the event loop was not the slowest here: its calls to a local database are short.",
    },
    Meaning {
        id: "db-spawn-blocking-recovers-connect",
        held: "Under seed 000's burst as JMeter sent it, a blocking driver on a pool of its own performs like the thread-per-request server.",
        not_held: "Under seed 000's burst as JMeter sent it, a blocking driver on spawn_blocking fell short of the thread-per-request server here.",
    },
    Meaning {
        id: "async-far-fewer-threads",
        held: "The async server does the same work on a fraction of the threads: it grows with connections, not with threads.",
        not_held: "The async server did not run on far fewer threads here.",
    },
    Meaning {
        id: "mixed-cpu",
        held: "CPU work on the event loop delays every other request on it: one heavy handler is everyone's latency.",
        not_held: "The CPU work here was too short to delay other requests by the factor: the harm grows with how long each call holds the loop.",
    },
    Meaning {
        id: "mixed-db-driver",
        held: "A blocking driver on the event loop delays every other request on it: one bad handler is everyone's latency.",
        not_held: "A blocking driver's calls to a local, idle database were too short to delay other requests by the factor; against a remote or busy database they are not.",
    },
    Meaning {
        id: "mixed-sleep",
        held: "A blocking wait on the event loop delays every other request on it: one bad handler is everyone's latency.",
        not_held: "The blocking wait did not delay other requests by the factor here.",
    },
    Meaning {
        id: "saturated-cores-hurt-thread-pool",
        held: "Saturated cores delay the requests beside them on a thread pool too: preemption shares the cores, it does not free one for the cheap request.",
        not_held: "The thread pool kept /health fast beside saturated cores here: its preempted threads left the cheap request a core in time.",
    },
    Meaning {
        id: "saturated-cores-hurt-event-loop",
        held: "CPU work inline on the event loop delays the requests beside it: they wait for the loop behind the work.",
        not_held: "The inline CPU work did not delay /health by the factor here: each call held the loop too briefly.",
    },
    Meaning {
        id: "saturated-cores-hurt-virtual-threads",
        held: "CPU work on virtual threads delays the requests beside it: a carrier runs a coroutine until it parks, and CPU work never parks.",
        not_held: "The CPU work on virtual threads did not delay /health by the factor here: each call held a carrier too briefly.",
    },
    Meaning {
        id: "saturated-cores-thread-pool-no-shield",
        held: "A thread pool does not shield cheap requests from saturated cores better than an event loop with the work inline: move CPU-heavy work to a bounded pool of its own on either model.",
        not_held: "The thread pool kept /health faster than the event loop with the work inline: the kernel's preemption gave the cheap request a core sooner than the loop did.",
    },
    Meaning {
        id: "cache-async-cheaper-at-equal-load",
        held: "At the same load the async server spends less CPU per Redis-backed request than the thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the async server spent more CPU per Redis-backed request than the thread pool: for short waits on few cores, the model does not make a request cheaper.",
    },
    Meaning {
        id: "baseline-async-cheaper-at-equal-load",
        held: "At the same load the event loop spends less CPU per immediate answer than a thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the event loop spent more CPU per immediate answer than the thread pool: with nothing to wait for, a thread per request costs little.",
    },
    Meaning {
        id: "ramp-async-cheaper-at-equal-load",
        held: "At the same load the async server with sqlx spends less CPU per database read of the ramp than the thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the async server with sqlx spent more CPU per database read of the ramp than the thread pool.",
    },
    Meaning {
        id: "baseline-cpu-per-request",
        held: "The event loop spends less CPU per trivial request than a thread pool: more headroom on the same machine.",
        not_held: "The thread pool spent no more CPU per trivial request than the event loop here.",
    },
    Meaning {
        id: "cache-shared-connection-beats-pool",
        held: "One multiplexed Redis connection shared by all requests (Lettuce's default) beats a pool: pipelining across requests is free throughput.",
        not_held: "A pool of Redis connections did as well as one shared connection here.",
    },
    Meaning {
        id: "cache-checkout-round-trip-costs",
        held: "A health check on every pool checkout costs a round trip per request: turn it off, or share one connection.",
        not_held: "The check on every checkout did not cost measurable throughput here.",
    },
    Meaning {
        id: "cache-checkout-round-trip-costs-cpu",
        held: "The round trip on every checkout costs server CPU too.",
        not_held: "The round trip on every checkout did not cost measurable server CPU here.",
    },
    Meaning {
        id: "cache-exclusive-checkout-costs-cpu",
        held: "Lending each request its own connection costs server CPU that sharing one does not.",
        not_held: "Lending each request its own connection cost no more CPU than sharing one here.",
    },
    Meaning {
        id: "tiny-http-cold-start-unfair",
        held: "tiny_http starves connections that arrive together on a fresh server: a load balancer opening many at once would see some hang.",
        not_held: "tiny_http answered every connection of a burst on a fresh server here, or our connector did not.",
    },
    Meaning {
        id: "tiny-http-thread-per-connection",
        held: "tiny_http runs a thread per open connection: its threads grow with clients, not with work.",
        not_held: "tiny_http did not run more threads than our fixed pool under this load.",
    },
    Meaning {
        id: "detector-marks-blocking-calls",
        held: "The blocking-call counter names exactly the routes that block the event loop, however short their calls: it can be trusted to find the bad handler.",
        not_held: "The blocking-call counter named the wrong routes: its marks must be fixed before it can be trusted.",
    },
    Meaning {
        id: "detector-timing-flags-blocking-routes",
        held: "Once blocking lasts longer than the threshold, its timing alone gives it away, even in code nobody marked.",
        not_held: "Timing alone did not single out the blocking routes here: check the slow-poll threshold against how long their calls last.",
    },
    Meaning {
        id: "idle-tiny-http-thread-per-connection",
        held: "Every idle keep-alive connection costs tiny_http a whole thread.",
        not_held: "Idle connections did not cost tiny_http a thread each here.",
    },
    Meaning {
        id: "idle-nio-and-async-no-threads",
        held: "Idle connections cost our NIO connector and the event loop no threads: both can hold thousands of parked clients.",
        not_held: "Idle connections cost our connector or the event loop threads here.",
    },
    Meaning {
        id: "idle-async-less-memory-than-tiny-http",
        held: "An idle connection costs the event loop less memory than a thread per connection does.",
        not_held: "An idle connection did not cost the event loop less memory than tiny_http's thread here.",
    },
    Meaning {
        id: "sweep-blocking-plateau-at-cap",
        held: "A thread pool's throughput is capped at threads divided by time per request (Little's law): when requests wait, the cap is the number to know.",
        not_held: "The thread pool's plateau did not sit at threads divided by time per request here.",
    },
    Meaning {
        id: "sweep-async-past-cap",
        held: "An event loop is not capped by a thread count: with slow downstream calls it goes far past the thread pool's ceiling.",
        not_held: "The event loop did not pass the thread pool's ceiling here.",
    },
    Meaning {
        id: "sweep-users-async-crossover",
        held: "On database reads the async server pulls ahead of the thread pool from the concurrency named on.",
        not_held: "On database reads neither model won by the margin at any concurrency here: the database and the cores, not the model, set the limit.",
    },
    Meaning {
        id: "sweep-virtual-past-cap",
        held: "Virtual threads are not capped by a thread count: the same blocking handlers serve waits far past what 200 platform threads can hold.",
        not_held: "Virtual threads did not get far past the thread pool's cap here: something else (the cores, the connections, the load generator) stopped them first.",
    },
    Meaning {
        id: "remote-db-yielding-reaches-pool",
        held: "With a driver that yields, virtual threads move the bottleneck to the connection pool: size the pool, not the threads.",
        not_held: "The yielding driver did not reach the pool's bound here: the cores or the proxy, not the pool, limited it.",
    },
    Meaning {
        id: "remote-db-pinning-caps-at-carriers",
        held: "A driver that pins its carrier turns virtual threads back into a pool of as many threads as carriers: the pinning trap, measured.",
        not_held: "The pinning driver's throughput did not sit at carriers / query time here: some of its time went elsewhere than the query on the carrier.",
    },
    Meaning {
        id: "remote-db-pinning-half-of-yielding",
        held: "Against a database a round trip away, a pinning driver costs virtual threads at least half their throughput: use a driver that yields.",
        not_held: "The pinning driver was not far behind the yielding one here: with the database this close or the cores this few, pinning costs little.",
    },
    Meaning {
        id: "remote-mixed-pinning-delays-health",
        held: "A pinning driver delays every request that shares its carriers, even ones that never touch the database.",
        not_held: "The pinning driver's calls did not delay /health by the factor here: they were too short to keep it waiting for a carrier for long.",
    },
    Meaning {
        id: "idle-virtual-no-threads",
        held: "An idle connection on virtual threads is a parked coroutine, not an OS thread: connections cost memory, not threads.",
        not_held: "Idle connections cost virtual threads OS threads here, which they should not.",
    },
    Meaning {
        id: "virtual-detector-marks-pinning-calls",
        held: "The pinning detector's marks name exactly the routes that hold a carrier: trust it to find pinning, as JFR's VirtualThreadPinned does.",
        not_held: "The pinning detector's marks missed a pinning route or named one that yields: read its counts with care.",
    },
    Meaning {
        id: "virtual-detector-timing-flags-pinning-routes",
        held: "Carrier stalls alone find the routes that pin once their blocking lasts: timing catches what the marks do not cover.",
        not_held: "Timing alone did not separate the pinning routes from the rest here: the marks are the surer half.",
    },
    Meaning {
        id: "remote-db-round-trips-per-request",
        held: "Each driver costs a request the round trips its design says: sqlx two (its ping on every connection it takes back), every other pooled driver one; with a pool, that halves or keeps what each connection serves.",
        not_held: "The round trips the proxy counted were not the drivers' designs here: read the counts per driver before trusting a bound made from them.",
    },
    Meaning {
        id: "remote-db-pool-is-the-queue",
        held: "With the database a round trip away, every pooled driver, on any model, serves what its pool allows: pool size over the time each request holds a connection. Size the pool, or stop holding a connection per query.",
        not_held: "Some pooled driver did not sit at its pool's bound here: something else than the pool (the cores, the threads, the load) limited it.",
    },
    Meaning {
        id: "remote-db-pipelined-over-blocking",
        held: "An event loop wins on a remote database when it keeps many queries in flight on one connection: the pipelined driver passes the bound every pool meets.",
        not_held: "The pipelined driver did not pass the pool's bound by the factor here: the cores or Postgres, not the round trip, limited it.",
    },
    Meaning {
        id: "db-async-deadpool-cheaper-at-equal-load",
        held: "On Spring's defaults (WebFlux with a pooled reactive driver against MVC with JDBC through HikariCP, both pools of 10), at the same load the event loop spends less server CPU per read of a local database than the thread pool: on a server of its own it would serve more, the seeds' promise kept.",
        not_held: "On Spring's defaults, at the same load the event loop spent more server CPU per read of a local database than the thread pool: with the same pool, the model does not make a read cheaper here.",
    },
    Meaning {
        id: "db-async-pipelined-cheaper-at-equal-load",
        held: "At the same load the async server with a pipelining driver spends less CPU per read of a local database than the thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the async server with a pipelining driver spent more CPU per read of a local database than the thread pool.",
    },
    Meaning {
        id: "ramp-async-deadpool-cheaper-at-equal-load",
        held: "On Spring's defaults, at the same load the event loop spends less server CPU per database read of the ramp than the thread pool: on a server of its own it would serve more.",
        not_held: "On Spring's defaults, at the same load the event loop spent more server CPU per database read of the ramp than the thread pool.",
    },
    Meaning {
        id: "ramp-async-pipelined-cheaper-at-equal-load",
        held: "At the same load the async server with a pipelining driver spends less CPU per database read of the ramp than the thread pool: on a server of its own it would serve more.",
        not_held: "At the same load the async server with a pipelining driver spent more CPU per database read of the ramp than the thread pool.",
    },
    Meaning {
        id: "remote-db-async-deadpool-wins",
        held: "On Spring's defaults the event loop served more reads of a database a round trip away than the thread pool.",
        not_held: "On Spring's defaults the event loop served no more reads of a database a round trip away than the thread pool: both wait on a pool of 10, and the pool, not the model, is the limit. Only a driver beyond the defaults (pipelining) passes it.",
    },
    Meaning {
        id: "remote-db-async-pipelined-wins",
        held: "The async server with a pipelining driver served more requests per second than the thread pool on a database a round trip away.",
        not_held: "The async server with a pipelining driver did not serve more than the thread pool on a database a round trip away here.",
    },
    Meaning {
        id: "remote-db-async-wins",
        held: "With sqlx the async server served more requests per second than the thread pool on a database a round trip away.",
        not_held: "With sqlx the async server did not serve more than the thread pool on a database a round trip away: its two round trips per request halve what each pooled connection serves.",
    },
    Meaning {
        id: "pool-sweep-pipelined-needs-no-pool",
        held: "A pooled driver is capped by its pool, whatever the model; a pipelined driver is not: two shared connections serve about what four do.",
        not_held: "The pool sweep did not show the pool as the queue and the pipelined driver free of it here: read the sweep's columns for what limited each.",
    },
    Meaning {
        id: "calibration-blocking-matches-tomcat",
        held: "Our blocking server serves waits as Tomcat does, to within a few percent at every concurrency: what this project says of the thread pool holds for Tomcat and Spring MVC.",
        not_held: "Our blocking server and Tomcat parted at some concurrency here: read the steps before carrying a thread-pool lesson over to Tomcat.",
    },
    Meaning {
        id: "calibration-netty-past-cap",
        held: "Netty, like our event loop, is not capped by a thread count: the async server's lesson is WebFlux's too.",
        not_held: "Netty did not get past the thread pool's cap here: something else (the cores, the connections, the load generator) stopped it first.",
    },
    Meaning {
        id: "calibration-health-cpu-not-above-tomcat",
        held: "A request costs our blocking server no more CPU than it costs Tomcat: where this project finds the thread pool slower, the model is to blame, not an implementation heavier than Java's.",
        not_held: "Our blocking server spent more CPU per request than Tomcat here: its per-request cost, not the model, is what to look at.",
    },
    Meaning {
        id: "loom-java21-caps-at-carriers",
        held: "On Java 21 a JDBC driver that waits inside synchronized (pgjdbc before 42.6) pins every carrier it waits on: Spring MVC on virtual threads then serves what a few threads serve. Upgrade the driver, or the JDK.",
        not_held: "Tomcat on virtual threads on Java 21 did not sit at the carriers' bound here: something else (the pool, the cores, the load) limited it; its pin counts say whether it pinned.",
    },
    Meaning {
        id: "loom-java25-reaches-pool",
        held: "On Java 25 the same driver no longer pins: virtual threads wait on the pool, not on the carriers, as our yielding driver does.",
        not_held: "Tomcat on virtual threads on Java 25 did not reach the pool's bound here: the cores or the load, not the pool, limited it.",
    },
    Meaning {
        id: "loom-pins-agree",
        held: "JFR's count of pinned virtual threads tells the two runtimes apart: on Java 21 every query pinned, on Java 25 none did. Watch jdk.VirtualThreadPinned before turning virtual threads on.",
        not_held: "The JVM's pin counts did not split the runtimes as predicted here: read each window's counts per route.",
    },
];

/// What a finding of `id` with `verdict` means for someone choosing a model;
/// `None` for an id this build has no sentence for (a finding it dropped).
/// INCONCLUSIVE and SAME get their general sentence here: a finding judged
/// now says why ([`meaning_judged`]).
pub fn meaning(id: &str, verdict: Verdict) -> Option<&'static str> {
    let m = MEANINGS.iter().find(|m| m.id == id)?;
    Some(match verdict {
        Verdict::Held => m.held,
        Verdict::NotHeld => m.not_held,
        Verdict::Same => SAME,
        Verdict::Inconclusive => {
            "The rounds could not tell, so this run cannot say either way: a quieter machine or more rounds (--rounds) may."
        }
        Verdict::NotMeasured => "Not measured: the columns it needs did not run.",
    })
}

/// A tie, for any comparison.
const SAME: &str = "The two came out the same within the margin: no difference either way here, which is an answer, not a doubt.";

/// The sentence of a finding judged now: [`meaning`]'s, but for an
/// INCONCLUSIVE verdict why the rounds decide nothing and what could
/// ("Rounds disagree: 2 clear the line and 1 within its margin, so this
/// run cannot say either way: more rounds ... may tell."), and for SAME
/// how close the rounds were.
pub(super) fn meaning_judged(id: &str, verdict: Verdict, why: Option<&Why>) -> String {
    let general = meaning(id, verdict).unwrap_or_default();
    match (verdict, why) {
        (Verdict::Inconclusive, Some(Why::Undecided(u))) => format!(
            "{}, so this run cannot say either way: {}.",
            capitalised(&u.words()),
            u.advice()
        ),
        (Verdict::Same, Some(Why::Same(words))) => format!("{}. {SAME}", capitalised(words)),
        _ => general.to_owned(),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_of_this_build_has_a_sentence_for_each_verdict() {
        let results: bench_model::RunResults = serde_json::from_str(include_str!(
            "../../../../docs/results/seed-2026-12-02/results.json"
        ))
        .unwrap();
        let ids: Vec<String> = super::super::check(&results, &bench_model::THRESHOLDS)
            .into_iter()
            .map(|f| f.id)
            .collect();
        assert!(ids.len() > 20);
        for id in &ids {
            for v in [Verdict::Held, Verdict::NotHeld] {
                assert!(meaning(id, v).is_some(), "no sentence for {id}");
            }
        }
        // And none for a finding that no longer exists.
        assert!(
            MEANINGS.iter().all(|m| ids.iter().any(|id| id == m.id)),
            "a sentence for a finding this build does not check"
        );
        assert_eq!(
            meaning("detector-flags-blocking-routes", Verdict::Held),
            None
        );
    }
}
