//! The cold-start check on the blocking server: a freshly started server
//! must answer every one of 64 keep-alive connections opened back to back
//! within 1 s, on every one of several cold starts. tiny_http 0.12 fails this
//! (bench measures it: the finding `tiny-http-cold-start-unfair`, tested in
//! crates/bench/tests/cold_start_fairness.rs); our connector must not. Only
//! this server has a connector of its own, so the test lives beside it.

use std::time::Duration;

use harness::{spawn_app_with, AppOptions, Server};
use net_tools::cold_start::probe;

const CONNECTIONS: usize = 64;
const RUN_FOR: Duration = Duration::from_millis(1500);
const FIRST_ANSWER_WITHIN: Duration = Duration::from_secs(1);
const COLD_STARTS: usize = 4;

#[test]
fn every_connection_of_a_burst_is_served_on_every_cold_start() {
    let mut failures = Vec::new();
    for start in 1..=COLD_STARTS {
        // A new server each time (fresh database, threads and pools), at
        // Tomcat's default thread count: the configuration a benchmark runs.
        let app = spawn_app_with(
            Server::Blocking,
            AppOptions {
                extra_args: vec!["--handler-threads".into(), "200".into()],
                ..AppOptions::default()
            },
        );
        let report = probe(app.addr, CONNECTIONS, RUN_FOR).expect("probe connects");
        let late = report.late(FIRST_ANSWER_WITHIN);
        let slowest = report.first_answer.iter().flatten().max();
        eprintln!(
            "cold start {start}: {late} late connections, slowest first answer {slowest:?}, {} answers",
            report.total_answers()
        );
        if late > 0 {
            failures.push(format!(
                "cold start {start}: {late} of {CONNECTIONS} connections had no answer within {FIRST_ANSWER_WITHIN:?} (first answers: {:?})",
                report.first_answer
            ));
        }
        assert!(report.total_answers() >= CONNECTIONS as u64);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
