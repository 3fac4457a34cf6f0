//! JMeter test plans (JMeter 5.x `.jmx`): one plan per column
//! (`jmeter/<column-id>.jmx`) whose thread groups and HTTP samplers are all
//! named after the column, so a JTL maps back to it. The targets are JMeter
//! properties (`-Jblocking.host=... -Jblocking.port=...`), defaulting to the
//! local servers.
//!
//! Loads: a closed loop is a thread group with the scheduler on for the
//! window (JMeter counts it in whole seconds, so sub-second windows round up);
//! a counted load loops each thread `requests / threads` times; a burst is one
//! loop of N threads with no ramp; k6 stages become consecutive thread groups
//! at each stage's target (steps, not ramps: core JMeter has no ramp-down);
//! the mixed group is a background thread group next to a probe paced by a
//! Constant Throughput Timer.

use crate::plan::{Load, Profile, Target};
use crate::tools::export::{ExportColumn, Targets};

/// XML text escaped for an element's content or an attribute.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The property prefix of a server: `blocking` or `async`.
fn prop(t: Target) -> &'static str {
    t.name()
}

/// (host, port) of a base URL like `http://127.0.0.1:8081`, for defaults.
fn host_port(url: &str) -> (String, String) {
    let rest = url.trim_start_matches("http://").trim_end_matches('/');
    match rest.rsplit_once(':') {
        Some((h, p)) => (h.to_owned(), p.to_owned()),
        None => (rest.to_owned(), "80".to_owned()),
    }
}

/// One thread group as the export means it, also what the tests check.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedGroup {
    pub name: String,
    pub threads: usize,
    /// Loops per thread; -1 loops until the scheduler's duration ends.
    pub loops: i64,
    /// Seconds, with the scheduler on; None: no scheduler.
    pub duration_seconds: Option<u64>,
    pub path: String,
    /// Requests per minute for a Constant Throughput Timer.
    pub throughput_per_minute: Option<f64>,
}

fn whole_seconds(d: std::time::Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// The thread groups of a column's load, in plan order.
pub fn thread_groups(c: &ExportColumn, profile: &Profile) -> Vec<PlannedGroup> {
    let id = c.column.id.as_str().to_owned();
    let g = |name: &str, threads, loops, duration_seconds, path: &str| PlannedGroup {
        name: name.to_owned(),
        threads,
        loops,
        duration_seconds,
        path: path.to_owned(),
        throughput_per_minute: None,
    };
    match &c.load {
        Load::Closed {
            connections,
            duration,
        } => vec![g(
            &id,
            *connections,
            -1,
            Some(whole_seconds(*duration)),
            &c.path,
        )],
        Load::ClosedCount {
            connections,
            requests,
        } => vec![g(
            &id,
            *connections,
            (*requests / *connections as u64).max(1) as i64,
            None,
            &c.path,
        )],
        // Either burst: each thread opens its connection in its sample,
        // the shape of seed 000's own run; JMeter cannot open them all first.
        Load::Burst { requests, .. } => vec![g(&id, *requests, 1, None, &c.path)],
        Load::Stages(stages) => stages
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(d, n)| g(&id, *n, -1, Some(whole_seconds(*d)), &c.path))
            .collect(),
        // Not exported ([`super::columns`] leaves sweeps out).
        Load::Sweep(_) => Vec::new(),
        Load::Mixed {
            background,
            probe_rps,
            duration,
        } => {
            let secs = Some(whole_seconds(*duration));
            let bg = c
                .column
                .background
                .map_or_else(|| "/health".to_owned(), |bg| profile.path_values().fill(bg));
            let mut probe = g(&id, 8, -1, secs, &c.path);
            probe.throughput_per_minute = Some(probe_rps * 60.0);
            vec![
                g(&format!("{id}-background"), *background, -1, secs, &bg),
                probe,
            ]
        }
        // Never exported (`export::columns` leaves the idle group out).
        Load::Idle(_) => Vec::new(),
    }
}

fn sampler(name: &str, c: &ExportColumn, path: &str, targets: &Targets) -> String {
    let p = prop(c.column.target);
    let (host, port) = host_port(targets.for_target(c.column.target));
    let body = match c.column.body {
        Some(b) => format!(
            r#"
          <boolProp name="HTTPSampler.postBodyRaw">true</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments">
            <collectionProp name="Arguments.arguments">
              <elementProp name="" elementType="HTTPArgument">
                <boolProp name="HTTPArgument.always_encode">false</boolProp>
                <stringProp name="Argument.value">{}</stringProp>
                <stringProp name="Argument.metadata">=</stringProp>
              </elementProp>
            </collectionProp>
          </elementProp>"#,
            esc(b)
        ),
        None => r#"
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments" guiclass="HTTPArgumentsPanel" testclass="Arguments">
            <collectionProp name="Arguments.arguments"/>
          </elementProp>"#
            .to_owned(),
    };
    let headers = if c.column.body.is_some() {
        r#"
          <HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="Content-Type">
            <collectionProp name="HeaderManager.headers">
              <elementProp name="" elementType="Header">
                <stringProp name="Header.name">Content-Type</stringProp>
                <stringProp name="Header.value">application/json</stringProp>
              </elementProp>
            </collectionProp>
          </HeaderManager>
          <hashTree/>"#
    } else {
        ""
    };
    format!(
        r#"
        <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}">
          <stringProp name="HTTPSampler.domain">${{__P({p}.host,{host})}}</stringProp>
          <stringProp name="HTTPSampler.port">${{__P({p}.port,{port})}}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">false</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>{body}
        </HTTPSamplerProxy>
        <hashTree>{headers}
        </hashTree>"#,
        name = esc(name),
        path = esc(path),
        method = c.column.method,
    )
}

/// The `.jmx` of one column.
pub fn plan(profile: &Profile, c: &ExportColumn, targets: &Targets) -> String {
    let groups = thread_groups(c, profile);
    // Stages run one after another; the mixed group's two run together.
    let serialize = matches!(c.load, Load::Stages(_));
    let mut body = String::new();
    for tg in &groups {
        let scheduler = tg.duration_seconds.is_some();
        let timer = match tg.throughput_per_minute {
            Some(t) => format!(
                r#"
        <ConstantThroughputTimer guiclass="TestBeanGUI" testclass="ConstantThroughputTimer" testname="{name} pacing">
          <intProp name="calcMode">1</intProp>
          <doubleProp>
            <name>throughput</name>
            <value>{t:.1}</value>
            <savedValue>0.0</savedValue>
          </doubleProp>
        </ConstantThroughputTimer>
        <hashTree/>"#,
                name = esc(&tg.name)
            ),
            None => String::new(),
        };
        body.push_str(&format!(
            r#"
      <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="{name}">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">{scheduler}</boolProp>
        <stringProp name="ThreadGroup.duration">{duration}</stringProp>
        <stringProp name="ThreadGroup.delay">0</stringProp>
        <boolProp name="ThreadGroup.same_user_on_next_iteration">true</boolProp>
      </ThreadGroup>
      <hashTree>{sampler}{timer}
      </hashTree>"#,
            name = esc(&tg.name),
            loops = tg.loops,
            threads = tg.threads,
            duration = tg.duration_seconds.map_or(String::new(), |s| s.to_string()),
            sampler = sampler(&tg.name, c, &tg.path, targets),
        ));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- bench export for JMeter 5.x: column {id} of group {group}, profile {profile}.
     Load: {describe}. -->
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="bench {id}">
      <boolProp name="TestPlan.functional_mode">false</boolProp>
      <boolProp name="TestPlan.serialize_threadgroups">{serialize}</boolProp>
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" testname="User Defined Variables">
        <collectionProp name="Arguments.arguments"/>
      </elementProp>
    </TestPlan>
    <hashTree>{body}
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"#,
        id = c.column.id.as_str(),
        group = c.group.as_str(),
        profile = profile.name,
        describe = esc(&c.load.describe()),
    )
}

/// The export's README: how to run the plans, alone or under `bench watch`.
pub fn readme(profile: &Profile, targets: &Targets, import_flags: &str) -> String {
    let (bh, bp) = host_port(&targets.blocking);
    let (ah, ap) = host_port(&targets.asynchronous);
    format!(
        r#"# bench matrix for JMeter 5.x (profile {profile})

One plan per column in `jmeter/`; its thread groups and samplers are named
after the column id, which is how `bench import --tool jmeter` maps a JTL's
`label` back. Targets are properties: `-Jblocking.host={bh} -Jblocking.port={bp}
-Jasync.host={ah} -Jasync.port={ap}` (those are the defaults).

## One machine

    mkdir -p results
    for f in jmeter/*.jmx; do
      id=$(basename "$f" .jmx)
      bench watch --column "$id" --blocking-url {blocking} --async-url {asynchronous} --out results -- \
        jmeter -n -t "$f" -l "results/$id.jtl" -Jjmeter.save.saveservice.output_format=csv
    done
    bench import --tool jmeter {import_flags} --out report results/*.jtl

## Distributed: remote engines

Start `jmeter-server` on each load machine (same JMeter version, RMI ports
open, `server.rmi.ssl.disable=true` or keystores set up), then from the
controller:

    jmeter -n -t jmeter/async-users.jmx -R engine1,engine2 -Gasync.host=SERVER -Gasync.port=8081 \
      -l results/async-users.jtl -Jjmeter.save.saveservice.output_format=csv

Use `-G` (not `-J`) so the engines get the target; every engine runs the
whole plan, so N engines send N times the threads. Sub-second windows are
rounded up to whole seconds (JMeter's scheduler counts seconds); k6 stages
run as steps at each stage's target.
"#,
        profile = profile.name,
        blocking = targets.blocking,
        asynchronous = targets.asynchronous,
    )
}
