//! Locust tests: one locustfile per column (`locust/<column-id>.py`), its load
//! model as a `LoadTestShape`, a `run-locust.sh` that runs every column with a
//! master and workers under `bench watch`, and the export's README.
//!
//! Why a shape and not `-u/-r/-t`: Locust's `--run-time` ends a distributed
//! run with `quit`, and the master waits only 0.5 s for the workers' last
//! stats (sent every 3 s) before it writes the CSV, so the counts come up
//! short. The shape instead ends the load by going to zero users (each user
//! finishing its request in flight, `stop_timeout`), waits [`DRAIN_SECONDS`]
//! so every worker reports, and only then quits. Its clock starts once the
//! workers report users running, not when the master sends the spawn: a
//! worker on a busy machine can take longer than a short stage to start.

use crate::plan::{Load, Profile};
use crate::tools::export::{ExportColumn, Targets};

/// Seconds at zero users after the load: more than Locust's worker report
/// interval (3 s), so the master has every request before it quits.
pub const DRAIN_SECONDS: f64 = 4.0;

/// Seconds a counted load (or burst) may run before the shape gives up.
const COUNT_LIMIT_SECONDS: u64 = 600;

/// A Python string literal.
fn py_str(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One stage of a Locust shape: (seconds, users, spawn rate per second).
pub type Stage = (f64, usize, f64);

/// The shape of a load: requests per user (None: loop) and the stages.
/// `None` when Locust cannot run it as bench does.
pub fn shape(load: &Load) -> Option<(Option<u64>, Vec<Stage>)> {
    // "All at once": Locust spawns at most `rate` users per second.
    let at_once = |n: usize| (n.max(1) * 1000) as f64;
    let limit = COUNT_LIMIT_SECONDS as f64;
    match load {
        Load::Closed {
            connections,
            duration,
        } => Some((
            None,
            vec![(duration.as_secs_f64(), *connections, at_once(*connections))],
        )),
        Load::ClosedCount {
            connections,
            requests,
        } => Some((
            Some((*requests / *connections as u64).max(1)),
            vec![(limit, *connections, at_once(*connections))],
        )),
        // Either burst: a user opens its connection in its first request,
        // as JMeter does; Locust cannot open them all first.
        Load::Burst { requests, .. } => {
            Some((Some(1), vec![(limit, *requests, at_once(*requests))]))
        }
        Load::Stages(stages) => {
            let mut prev = 0usize;
            let mut out = Vec::new();
            for (d, n) in stages {
                let secs = d.as_secs_f64().max(0.001);
                let rate = (n.abs_diff(prev) as f64 / secs).max(1.0);
                out.push((secs, *n, rate));
                prev = *n;
            }
            Some((None, out))
        }
        // Two request streams at once (a closed background and an open probe)
        // would need two user classes with a fixed split; not exported yet.
        Load::Mixed { .. } | Load::Sweep(_) => None,
        // Idle connections held open: bench's own group, never exported.
        Load::Idle(_) => None,
    }
}

/// The locustfile of one column, or `None` when its load cannot be exported.
#[allow(
    clippy::too_many_lines,
    reason = "a template: the Python file, one string with its values filled in"
)]
pub fn locustfile(profile: &Profile, c: &ExportColumn, targets: &Targets) -> Option<String> {
    let (per_user, stages) = shape(&c.load)?;
    let id = c.column.id.as_str();
    let stages_py: Vec<String> = stages
        .iter()
        .map(|(s, n, r)| format!("({s:?}, {n}, {r:?})"))
        .collect();
    let counted_note = match (&c.load, per_user) {
        (Load::ClosedCount { connections, .. }, Some(n)) => format!(
            "\n{connections} users send {n} requests each ({} in all): Locust cannot share one count between users.",
            *connections as u64 * n
        ),
        _ => String::new(),
    };
    Some(format!(
        r#""""bench export for Locust: column {id} of group {group}, profile {profile}.

Load: {describe}.{counted_note}
Every request is named {id:?}: `bench import --tool locust` maps it back by that name.
Run it with the commands in ../README.md (one machine, or a master and workers).
"""
import os

from locust import FastHttpUser, LoadTestShape, constant, events, task
from locust.exception import StopUser

COLUMN = {id_py}
METHOD = {method}
PATH = {path}
BODY = {body}
# The server under test; `--host` or the environment variable overrides it.
HOST = os.environ.get({var}, {url})
# Requests each user sends before it stops (None: loop until the stages end).
REQUESTS_PER_USER = {per_user}
# (seconds, users, spawn rate per second): the load, stage by stage.
STAGES = [{stages}]
# Zero users for this long after the load, so every worker's last stats
# report (sent every 3 s) reaches the master before it quits.
DRAIN_SECONDS = {drain:?}
# How long a user may finish its request in flight when stopped: a killed
# request is answered and counted by the server, but never by Locust.
STOP_TIMEOUT = 30
# How long the master waits for the workers' first users before it gives up.
USERS_UP_WITHIN = 60


@events.init.add_listener
def _graceful_stop(environment, **_kwargs):
    if not environment.stop_timeout:
        environment.stop_timeout = STOP_TIMEOUT


class ColumnUser(FastHttpUser):
    host = HOST
    wait_time = constant(0)

    def on_start(self):
        self.sent = 0

    @task
    def request(self):
        if REQUESTS_PER_USER is not None and self.sent >= REQUESTS_PER_USER:
            raise StopUser()
        self.sent += 1
        if METHOD == "POST":
            self.client.post(
                PATH, data=BODY, headers={{"Content-Type": "application/json"}}, name=COLUMN
            )
        else:
            self.client.get(PATH, name=COLUMN)


class ColumnShape(LoadTestShape):
    def __init__(self):
        super().__init__()
        self.seen_users = False
        self.up_at = None
        self.drain_from = None

    def load_at(self, t):
        if REQUESTS_PER_USER is not None:
            # A counted load ends when every user has sent its requests.
            _, users, rate = STAGES[0]
            if self.runner.user_count > 0:
                self.seen_users = True
            if (self.seen_users and self.runner.user_count == 0) or t > STAGES[0][0]:
                return None
            return (users, rate)
        start = 0.0
        for seconds, users, rate in STAGES:
            if t < start + seconds:
                return (users, rate)
            start += seconds
        return None

    def tick(self):
        t = self.get_run_time()
        if self.up_at is None:
            # The load's clock starts once the workers report users running
            # (or requests sent), as bench times a window once its
            # connections are open. Locust's own clock starts when the
            # master sends the spawn, and looks again a second later: a
            # worker slower than a short stage to start its users would
            # otherwise be stopped before it sent anything.
            if self.runner.user_count > 0 or self.runner.stats.total.num_requests > 0:
                self.up_at = t
            elif t < USERS_UP_WITHIN:
                _, users, rate = STAGES[0]
                return (users, rate)
            else:
                return None
        t -= self.up_at
        if self.drain_from is None:
            load = self.load_at(t)
            if load is not None:
                return load
            self.drain_from = t
        if t - self.drain_from < DRAIN_SECONDS:
            return (0, 1000)
        return None
"#,
        group = c.group.as_str(),
        describe = c.load.describe(),
        id_py = py_str(id),
        method = py_str(c.column.method),
        path = py_str(&c.path),
        body = c.column.body.map_or("None".to_owned(), py_str),
        var = py_str(super::url_var(c.column.target)),
        url = py_str(targets.for_target(c.column.target)),
        per_user = per_user.map_or("None".to_owned(), |n| n.to_string()),
        stages = stages_py.join(", "),
        drain = DRAIN_SECONDS,
        profile = profile.name,
    ))
}

/// `run-locust.sh`: every column in turn, a master and `$WORKERS` workers,
/// under `bench watch`, then `bench import`.
const RUN_SCRIPT: &str = r#"#!/bin/sh
# Runs every exported column with a Locust master and $WORKERS workers on this
# machine, each under `bench watch` (the server's /metrics sampled while the
# master runs), then imports the results into one report.
#   LOCUST=locust BENCH=bench WORKERS=2 MASTER_PORT=5557 \
#   BLOCKING_URL=http://127.0.0.1:8080 ASYNC_URL=http://127.0.0.1:8081 ./run-locust.sh
set -eu
cd "$(dirname "$0")"
LOCUST=${LOCUST:-locust}
BENCH=${BENCH:-bench}
WORKERS=${WORKERS:-2}
MASTER_PORT=${MASTER_PORT:-5557}
export BLOCKING_URL=${BLOCKING_URL:-http://127.0.0.1:8080}
export ASYNC_URL=${ASYNC_URL:-http://127.0.0.1:8081}
mkdir -p results
for file in locust/*.py; do
  id=$(basename "$file" .py)
  pids=""
  i=0
  while [ "$i" -lt "$WORKERS" ]; do
    "$LOCUST" -f "$file" --worker --master-port "$MASTER_PORT" --loglevel WARNING &
    pids="$pids $!"
    i=$((i + 1))
  done
  "$BENCH" watch --column "$id" --blocking-url "$BLOCKING_URL" --async-url "$ASYNC_URL" --out results -- \
    "$LOCUST" -f "$file" --master --headless --master-bind-port "$MASTER_PORT" \
    --expect-workers "$WORKERS" --expect-workers-max-wait 60 --csv "results/$id" --loglevel WARNING
  # shellcheck disable=SC2086
  wait $pids
done
"$BENCH" import --tool locust {IMPORT_FLAGS} --out report results/*_stats.csv
"#;

/// Every file of a Locust export, as (path under the export folder, text).
pub fn files(
    profile: &Profile,
    cols: &[ExportColumn],
    targets: &Targets,
    import_flags: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for c in cols {
        match locustfile(profile, c, targets) {
            Some(text) => out.push((format!("locust/{}.py", c.column.id.as_str()), text)),
            None => skipped.push(c.column.id.as_str()),
        }
    }
    out.push((
        "run-locust.sh".into(),
        RUN_SCRIPT.replace("{IMPORT_FLAGS}", import_flags),
    ));
    out.push((
        "README.md".into(),
        readme(profile, targets, &skipped, import_flags),
    ));
    out
}

fn readme(profile: &Profile, targets: &Targets, skipped: &[&str], import_flags: &str) -> String {
    let skipped_line = if skipped.is_empty() {
        String::new()
    } else {
        format!(
            "\nNot exported (Locust cannot send their load as bench does; run them with bench itself): {}.\n",
            skipped.join(", ")
        )
    };
    format!(
        r#"# bench matrix for Locust (profile {profile})

One locustfile per column in `locust/`, named after the column id; every
request carries that id as its name, so `bench import --tool locust` maps the
results back to the group and column. The load model is a `LoadTestShape` in
each file (ignore `-u`, `-r`, `-t`): closed loops as users with no wait, a
burst as one request per user, counted loads as a fixed count per user, k6
stages as linear ramps. The targets default to {blocking} (blocking) and
{asynchronous} (async); set `BLOCKING_URL` / `ASYNC_URL` (on every Locust
node) or pass `--host`.
{skipped_line}
## One machine, every column, master and two workers

    LOCUST=locust BENCH=bench WORKERS=2 ./run-locust.sh

This runs each column under `bench watch`, which samples the server's
`/metrics` while Locust runs (threads, memory, CPU and the server's own request
count), and finishes with `bench import --tool locust {import_flags} --out report results/*_stats.csv`.

## One column by hand

    locust -f locust/async-users.py --headless --csv results/async-users
    bench import --tool locust {import_flags} --out report results/async-users_stats.csv

## Distributed: servers on one host, Locust on others

On the master (it sends no load itself):

    export ASYNC_URL=http://SERVER:8081 BLOCKING_URL=http://SERVER:8080
    bench watch --column async-users --blocking-url $BLOCKING_URL --async-url $ASYNC_URL --out results -- \
      locust -f locust/async-users.py --master --headless --expect-workers 4 --csv results/async-users

On each load machine (as many workers per machine as it has cores):

    ASYNC_URL=http://SERVER:8081 locust -f locust/async-users.py --worker --master-host MASTER

Then `bench import --tool locust {import_flags} --out report results/*_stats.csv`. Each file
stops on its own: it goes to zero users (each finishing the request in flight),
waits {drain} s so every worker's last stats report arrives, and quits. Locust's
own `--run-time` quits after 0.5 s and loses the workers' last reports.
"#,
        profile = profile.name,
        blocking = targets.blocking,
        asynchronous = targets.asynchronous,
        drain = DRAIN_SECONDS,
        import_flags = import_flags,
    )
}
