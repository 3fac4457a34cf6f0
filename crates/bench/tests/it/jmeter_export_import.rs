//! `bench export --tool jmeter` and `bench import --tool jmeter` on fixed
//! inputs. JMeter 5.x cannot run here (Debian's 2.13 fails on Java 17), so
//! every exported plan is parsed back as XML (Python's xml.etree, present
//! wherever the Locust test runs) and its thread groups, samplers and timings
//! compared with what the export meant; the import reads a small CSV JTL in
//! JMeter's documented default format, checked in under fixtures/jmeter.

use std::path::Path;
use std::process::Command;

use crate::common::{export, import, import_refused, strings, succeeded};

use serde_json::{json, Value};

/// A plan's test plan flag, thread groups and samplers, read by a real XML parser.
fn parse_plan(path: &Path) -> Value {
    const SCRIPT: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def props(e):
    return {p.get("name"): p.text for p in e if p.get("name")}
plan = root.find("./hashTree/TestPlan")
groups = []
for tg in root.iter("ThreadGroup"):
    p = props(tg)
    loop = props(tg.find("elementProp"))
    # the hashTree right after a ThreadGroup holds its sampler and timer
    parent = root.find(".//ThreadGroup/..")
    kids = list(parent)
    tree = kids[kids.index(tg) + 1]
    samplers = [dict(name=s.get("testname"), **{k.split(".")[1]: v for k, v in props(s).items() if k.startswith("HTTPSampler.")}) for s in tree.iter("HTTPSamplerProxy")]
    timers = [t.find("doubleProp/value").text for t in tree.iter("ConstantThroughputTimer")]
    groups.append(dict(name=tg.get("testname"), threads=p["ThreadGroup.num_threads"], scheduler=p["ThreadGroup.scheduler"], duration=p["ThreadGroup.duration"], ramp=p["ThreadGroup.ramp_time"], loops=loop["LoopController.loops"], samplers=samplers, timers=timers))
print(json.dumps(dict(serialize=props(plan)["TestPlan.serialize_threadgroups"], groups=groups)))
"#;
    let mut python = Command::new("python3");
    python.arg("-c").arg(SCRIPT).arg(path);
    let what = format!("{} is not a well-formed plan", path.display());
    let o = succeeded(&mut python, &what);
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
#[ignore = "needs python3: apt-get install python3 (parses every exported plan with xml.etree)"]
fn exported_plans_have_the_thread_groups_samplers_and_timings_meant() {
    let out = export("jmeter", Some("database,cpu,ramp,mixed,json"));
    let plan = |id: &str| parse_plan(&out.path().join(format!("jmeter/{id}.jmx")));

    // Closed loop, 32 threads for 1 s, no ramp, loop until the scheduler ends.
    let users = plan("async-users");
    assert_eq!(
        users["groups"],
        json!([{"name": "async-users", "threads": "32", "scheduler": "true", "duration": "1",
                "ramp": "0", "loops": "-1", "timers": [],
                "samplers": [{"name": "async-users", "domain": "${__P(async.host,127.0.0.1)}",
                  "port": "${__P(async.port,8081)}", "protocol": "http", "path": "/users/1",
                  "method": "GET", "follow_redirects": "false", "use_keepalive": "true"}]}])
    );
    // Counted: 16 threads x 12 loops, no scheduler.
    let cpu = &plan("blocking-cpu")["groups"][0];
    assert_eq!(
        (&cpu["threads"], &cpu["loops"], &cpu["scheduler"]),
        (&json!("16"), &json!("12"), &json!("false"))
    );
    assert_eq!(cpu["samplers"][0]["path"], "/cpu?n=1000000");
    assert_eq!(cpu["samplers"][0]["port"], "${__P(blocking.port,8080)}");
    // Stages as consecutive steps (0-user stage dropped), one after another.
    let ramp = plan("async-users-ramp");
    assert_eq!(ramp["serialize"], "true");
    let steps: Vec<(&str, &str)> = ramp["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["threads"].as_str().unwrap(),
                g["duration"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(steps, [("20", "1"), ("40", "1"), ("60", "1")]);
    // Mixed: background and a probe paced at 100/s (6000/min), together.
    let mixed = plan("blocking-health-next-to-posts");
    assert_eq!(mixed["serialize"], "false");
    assert_eq!(
        mixed["groups"][0]["name"],
        "blocking-health-next-to-posts-background"
    );
    assert_eq!(mixed["groups"][0]["samplers"][0]["path"], "/posts/1");
    assert_eq!(mixed["groups"][1]["samplers"][0]["path"], "/health");
    assert_eq!(mixed["groups"][1]["timers"], json!(["6000.0"]));
    // POST with the JSON body.
    let echo = &plan("async-echo")["groups"][0]["samplers"][0];
    assert_eq!(
        (&echo["method"], &echo["postBodyRaw"]),
        (&json!("POST"), &json!("true"))
    );
}

#[test]
fn a_jtl_imports_to_its_columns_exactly() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jmeter/database.jtl");
    let out = tempfile::tempdir().unwrap();
    let json = import("jmeter", out.path(), &[f]);
    assert_eq!(json["settings"]["measured_by"], "JMeter (CSV JTL)");
    let cols = json["groups"][0]["columns"].as_array().unwrap();
    let ids = strings(&json["groups"][0]["columns"], "id");
    assert_eq!(ids, ["blocking-users", "async-users"]);

    let b = &cols[0]["rounds"][0]["load"];
    assert_eq!(b["total_requests"], 6);
    assert_eq!(b["errors"], 2);
    assert_eq!(b["errors_by_kind"], json!({"connect": 1, "status_500": 1}));
    let elapsed = [12.0, 8.0, 10.0, 20.0, 150.0, 0.0_f64];
    let avg = elapsed.iter().sum::<f64>() / 6.0;
    let sd = (elapsed.iter().map(|v| (v - avg).powi(2)).sum::<f64>() / 6.0).sqrt();
    let close = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-9;
    let l = &b["latency_ms"];
    assert!(close(&l["avg"], avg) && close(&l["stdev"], sd), "{l}");
    assert_eq!((&l["min"], &l["max"]), (&json!(0.0), &json!(150.0)));
    assert_eq!(
        (&l["p50"], &l["p95"], &l["p99"]),
        (&json!(10.0), &json!(150.0), &json!(150.0))
    );
    // First start 400000 ms, last end 401100 ms.
    assert!(close(&b["duration_seconds"], 1.1));
    assert!(close(&b["throughput_rps"], 6.0 / 1.1));
    let a = &cols[1]["rounds"][0]["load"];
    assert_eq!((&a["total_requests"], &a["errors"]), (&json!(2), &json!(0)));

    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let row = |name: &str| {
        report
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .to_owned()
    };
    assert!(row("| Threads idle -> peak").contains("not measured"));
    assert!(!row("| Std. Dev.").contains("not measured"));
}

#[test]
fn a_jtl_with_no_rows_or_the_wrong_format_is_one_line_and_exit_2() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let cases = [
        (fixtures.join("jmeter/empty.jtl"), "has no samples"),
        (
            fixtures.join("locust/async-users_stats.csv"),
            "is not a JMeter CSV JTL",
        ),
    ];
    for (file, expected) in cases {
        let err = import_refused("jmeter", &file);
        assert!(err.contains(expected), "{err}");
    }
}
