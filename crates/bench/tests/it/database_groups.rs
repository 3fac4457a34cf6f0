//! The groups whose servers reach Postgres through a proxy, run as a user
//! runs them: real `bench proxy` children in front of real Postgres and
//! Redis, real servers with each driver. The proxy's counts come back per
//! window (round trips per request by driver, the delivered round trip
//! near its setting), and a small pool sweep runs every column of its
//! group and is judged.

use crate::common::run_flags;

/// bench on `group` of `profile`, one round per column of `window` after
/// `warm_up`, with `more` flags and the machine to itself (it loads it):
/// its stdout, results.json and the group's columns.
fn one_round(
    (profile, group): (&str, &str),
    (window, warm_up): (&str, &str),
    more: &[&str],
) -> (String, serde_json::Value, Vec<serde_json::Value>) {
    let _machine = harness::exclusive();
    let timing = ["--duration", window, "--warm-up", warm_up];
    let args = run_flags(profile, group, "1", &[&timing[..], more].concat());
    let run = crate::common::run_bench(&args, &[]);
    let columns = columns(&run.json, group).clone();
    (run.stdout, run.json, columns)
}

fn columns<'a>(json: &'a serde_json::Value, id: &str) -> &'a Vec<serde_json::Value> {
    json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id)
        .unwrap_or_else(|| panic!("no group {id}"))["columns"]
        .as_array()
        .unwrap()
}

/// What the proxy counted over one round: round trips per successful
/// request, the delivered round trip in ms, and its setting.
fn proxy_figures(r: &serde_json::Value) -> (f64, f64, f64) {
    let p = &r["postgres_proxy"];
    let exchanges = p["exchanges"].as_f64().unwrap();
    let ok = r["load"]["ok_requests"].as_f64().unwrap();
    let delivered = p["delivered_seconds"].as_f64().unwrap() * 1000.0 / exchanges;
    (exchanges / ok, delivered, p["setting_ms"].as_f64().unwrap())
}

/// On the remote-database group at 5 ms: sqlx makes two round trips per
/// request, every other pooled driver one, the pipelined driver at most
/// one; delivered within a few ms of the setting (the median window).
#[test]
fn the_proxy_in_front_of_postgres_counts_each_drivers_round_trips() {
    // Every pool's connections open before the window: their start-up
    // exchanges (and Postgres' fork) are not the requests'.
    let more = ["--db-latency", "5ms"];
    let (stdout, _, cols) = one_round(("tiny", "remote-db"), ("500ms", "1s"), &more);
    assert_eq!(cols.len(), 6);
    let figures: Vec<String> = cols
        .iter()
        .map(|c| format!("{}: {:?}", c["id"], proxy_figures(&c["rounds"][0])))
        .collect();
    eprintln!("{}", figures.join("\n"));
    for c in &cols {
        let id = c["id"].as_str().unwrap();
        assert!(c["failure"].is_null(), "{id}: {}", c["failure"]);
        let (per_request, delivered, setting) = proxy_figures(&c["rounds"][0]);
        let design = match id {
            "async-users-remote" => 2.0,
            _ => 1.0,
        };
        if id.contains("pipelined") {
            assert!(
                per_request <= 1.1,
                "{id}: {per_request} round trips per request"
            );
        } else {
            assert!(
                (per_request / design - 1.0).abs() < 0.1,
                "{id}: {per_request} round trips per request, {design} by design"
            );
        }
        assert_eq!(setting, 5.0, "{id}");
        // Never under the setting; over it by what Postgres and the proxy's
        // threads took, which on a busy 2-core machine can be several ms
        // in one window.
        assert!(
            (5.0..30.0).contains(&delivered),
            "{id}: delivered {delivered:.2} ms with 5 ms set"
        );
    }
    // Over the six windows, within a few ms of the setting.
    let mut delivered: Vec<f64> = cols
        .iter()
        .map(|c| proxy_figures(&c["rounds"][0]).1)
        .collect();
    delivered.sort_by(f64::total_cmp);
    let median = (delivered[2] + delivered[3]) / 2.0;
    assert!(median < 8.0, "delivered {delivered:?} ms with 5 ms set");
    // The report shows both per column.
    for row in [
        "Postgres round trips per request",
        "Postgres round trip delivered (ms)",
    ] {
        assert!(stdout.contains(row), "no row {row} in\n{stdout}");
    }
}

/// The pool sweep, small: every column (each pooled driver at five pool
/// sizes, the pipelined one at three client counts) measured on its own
/// server behind the proxy, and the sweep's finding judged, not missing.
#[test]
fn a_small_pool_sweep_runs_every_column_and_is_judged() {
    let more = ["--connections", "16"];
    let (_, json, cols) = one_round(("seed", "pool-sweep"), ("200ms", "50ms"), &more);
    assert_eq!(cols.len(), 23);
    for c in &cols {
        let id = c["id"].as_str().unwrap();
        assert!(c["failure"].is_null(), "{id}: {}", c["failure"]);
        let r = &c["rounds"][0];
        assert!(r["load"]["ok_requests"].as_u64() > Some(0), "{id}: {r}");
        assert!(
            r["postgres_proxy"]["exchanges"].as_u64() > Some(0),
            "{id}: {r}"
        );
    }
    let finding = crate::common::finding(&json, "pool-sweep-pipelined-needs-no-pool");
    assert_ne!(finding["verdict"], "NOT MEASURED", "{finding}");
}
