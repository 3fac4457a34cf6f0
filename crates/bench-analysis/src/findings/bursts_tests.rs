//! Seed 000's findings under its two bursts, on runs built from fixed
//! figures: each judges its own group's columns and names its burst.

use super::test_runs::judged;
use bench_model::fixtures::{group, results, steady};
use bench_model::Verdict;

#[test]
fn each_burst_is_judged_on_its_own_group_and_named_in_the_claim() {
    // With every connection opened first the event loop keeps up with
    // the thread pool; with the connect in each request it falls behind.
    let run = results(vec![
        group(
            "cpu",
            vec![
                steady("blocking-cpu", "blocking", 1100.0, 9000.0, 210),
                steady("async-cpu", "async", 1200.0, 8000.0, 21),
            ],
        ),
        group(
            "cpu-connect-in-request",
            vec![
                steady("blocking-cpu-connect", "blocking", 1100.0, 9000.0, 210),
                steady("async-cpu-connect", "async", 550.0, 18000.0, 21),
            ],
        ),
    ]);
    let first = judged(&run, "cpu-inline-hurts-async", Verdict::NotHeld);
    let connect = judged(&run, "cpu-inline-hurts-async-connect", Verdict::Held);
    assert!(
        first.claim.contains("every connection opened first"),
        "{}",
        first.claim
    );
    assert!(
        connect.claim.contains("as JMeter sent it"),
        "{}",
        connect.claim
    );
    assert_eq!(
        connect
            .columns
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>(),
        ["blocking-cpu-connect", "async-cpu-connect"]
    );
    // The database's twins need their own group's columns.
    judged(&run, "db-inline-driver-worst-connect", Verdict::NotMeasured);
}
