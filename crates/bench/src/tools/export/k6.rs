//! k6 tests: one script per column (`k6/<column-id>.js`) whose `options` is
//! a JSON literal (so a test can parse it back), one scenario named after the
//! column with k6's own executor for bench's load, and a `handleSummary` that
//! writes `results/<column-id>.k6-summary.json` for `bench import --tool k6`.
//!
//! Loads: a closed loop is `constant-vus`; a counted load `shared-iterations`
//! (k6 shares one count between VUs, exactly as bench does); a burst is
//! `shared-iterations` with one iteration per VU; stages are `ramping-vus`;
//! the mixed group is a `constant-vus` background scenario next to a
//! `constant-arrival-rate` probe (k6's open model, as bench's).

use serde_json::{json, Value};

use crate::plan::{Load, Profile};
use crate::tools::export::{ExportColumn, Targets};

/// k6's duration text for a [`std::time::Duration`], in milliseconds.
fn k6_duration(d: std::time::Duration) -> String {
    format!("{}ms", d.as_millis())
}

/// The scenarios of a column's load, keyed by scenario name; the measured
/// scenario is named after the column, a background one `<id>-background`.
pub fn scenarios(id: &str, load: &Load) -> Value {
    let max_duration = "10m";
    match load {
        Load::Closed {
            connections,
            duration,
        } => json!({ id: {
            "executor": "constant-vus", "exec": "measured",
            "vus": connections, "duration": k6_duration(*duration),
        }}),
        Load::ClosedCount {
            connections,
            requests,
        } => json!({ id: {
            "executor": "shared-iterations", "exec": "measured",
            "vus": connections, "iterations": requests, "maxDuration": max_duration,
        }}),
        // Either burst: a VU opens its connection in its first request, as
        // JMeter does; k6 cannot open them all first.
        Load::Burst { requests, .. } => json!({ id: {
            "executor": "shared-iterations", "exec": "measured",
            "vus": requests, "iterations": requests, "maxDuration": max_duration,
        }}),
        Load::Stages(stages) => {
            let st: Vec<Value> = stages
                .iter()
                .map(|(d, n)| json!({"duration": k6_duration(*d), "target": n}))
                .collect();
            json!({ id: {
                "executor": "ramping-vus", "exec": "measured",
                "startVUs": 0, "stages": st, "gracefulRampDown": "30s",
            }})
        }
        // Not exported ([`super::columns`] leaves sweeps out).
        Load::Sweep(_) => json!({}),
        Load::Mixed {
            background,
            probe_rps,
            duration,
        } => json!({
            format!("{id}-background"): {
                "executor": "constant-vus", "exec": "background",
                "vus": background, "duration": k6_duration(*duration),
            },
            id: {
                "executor": "constant-arrival-rate", "exec": "measured",
                "rate": probe_rps.round() as u64, "timeUnit": "1s",
                "duration": k6_duration(*duration),
                "preAllocatedVUs": 50, "maxVUs": 1000,
            },
        }),
        // Never exported (`export::columns` leaves the idle group out).
        Load::Idle(_) => json!({}),
    }
}

/// The `options` object of a column's script.
pub fn options(id: &str, load: &Load) -> Value {
    let scenario = format!("{{scenario:{id}}}");
    json!({
        "scenarios": scenarios(id, load),
        // Always-true thresholds on the column's scenario: they make k6 put
        // the column's own figures in the summary (k6 only summarises
        // sub-metrics that a threshold names); the error rate is bench's
        // --strict line, no unexpected error.
        "thresholds": {
            format!("http_reqs{scenario}"): ["count>=0"],
            format!("http_req_duration{scenario}"): ["max>=0"],
            format!("http_req_failed{scenario}"): ["rate<=1"],
        },
        "summaryTrendStats": ["avg", "min", "med", "max", "p(95)", "p(99)"],
    })
}

/// The script of one column.
pub fn script(profile: &Profile, c: &ExportColumn, targets: &Targets) -> String {
    let id = c.column.id.as_str();
    let options = options(id, &c.load);
    let base = format!(
        "__ENV.{var} || {url}",
        var = super::url_var(c.column.target),
        url = json!(targets.for_target(c.column.target))
    );
    let request = match c.column.body {
        Some(body) => format!(
            "http.post(BASE + {path}, {body}, {{ headers: {{ 'Content-Type': 'application/json' }}, tags: {{ name: {name} }} }})",
            path = json!(c.path),
            body = json!(body),
            name = json!(id)
        ),
        None => format!(
            "http.get(BASE + {path}, {{ tags: {{ name: {name} }} }})",
            path = json!(c.path),
            name = json!(id)
        ),
    };
    let background = match c.column.background {
        Some(bg) => format!(
            "http.get(BASE + {path}, {{ tags: {{ name: {name} }} }})",
            path = json!(profile.path_values().fill(bg)),
            name = json!(format!("{id}-background"))
        ),
        None => "// this column has no background load".to_owned(),
    };
    format!(
        r#"// bench export for k6: column {id} of group {group}, profile {profile}.
// Load: {describe}.
// Run: k6 run -e {var}=http://SERVER:PORT k6/{id}.js  (see ../README.md)
import http from 'k6/http';

export const options = {options};

const BASE = {base};

export function measured() {{
  {request};
}}

export function background() {{
  {background};
}}

// The whole summary, for `bench import --tool k6 results/{id}.k6-summary.json`.
export function handleSummary(data) {{
  return {{ 'results/{id}.k6-summary.json': JSON.stringify(data, null, 1) }};
}}
"#,
        group = c.group.as_str(),
        profile = profile.name,
        describe = c.load.describe(),
        var = super::url_var(c.column.target),
        options = options,
    )
}

/// The export's README: how to run the scripts, alone or under `bench watch`.
pub fn readme(profile: &Profile, targets: &Targets, import_flags: &str) -> String {
    format!(
        r#"# bench matrix for k6 (profile {profile})

One script per column in `k6/`, named after the column id; its scenario and
its requests' `name` tag carry that id, and its `handleSummary` writes
`results/<column-id>.k6-summary.json`, which `bench import --tool k6` reads
(`k6 run --summary-export FILE` output is read too). Targets
default to {blocking} (blocking) and {asynchronous} (async); override with
`-e BLOCKING_URL=...` / `-e ASYNC_URL=...`.

## One machine

    mkdir -p results
    for f in k6/*.js; do
      id=$(basename "$f" .js)
      bench watch --column "$id" --blocking-url {blocking} --async-url {asynchronous} --out results -- k6 run "$f"
    done
    bench import --tool k6 {import_flags} --out report results/*.k6-summary.json

(`bench watch` samples the server's /metrics while k6 runs; the import reads
its `<column-id>.watch.json` beside each summary for the server rows.)

## Distributed

k6 has no master and workers of its own; run the same script from several
machines with `--execution-segment` (each runs its share of the VUs and
iterations), e.g. on two machines:

    k6 run --execution-segment "0:1/2"   --execution-segment-sequence "0,1/2,1" -e ASYNC_URL=http://SERVER:8081 k6/async-users.js
    k6 run --execution-segment "1/2:1"   --execution-segment-sequence "0,1/2,1" -e ASYNC_URL=http://SERVER:8081 k6/async-users.js

or on Kubernetes with k6-operator (`kind: TestRun`, `parallelism: 4`, the
script in a ConfigMap). Each instance writes its own summary; import them all
(they are rounds of the same column unless merged).
"#,
        profile = profile.name,
        blocking = targets.blocking,
        asynchronous = targets.asynchronous,
        import_flags = import_flags,
    )
}
