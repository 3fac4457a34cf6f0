//! Runs built from fixed figures, for tests: a round, a sweep step, a
//! column, a group, an idle group, a cold-start probe, a sweep group, a
//! whole run. The one builder every test of bench-analysis, bench-report
//! and bench starts from, each case then setting the figures it tests.
//! Behind the `fixtures` feature, which only their dev-dependencies turn on.
//!
//! Ids are given as results.json spells them ("async-users", "async"), or
//! typed ([`column_of`], [`group_of`]); a name that is no id panics, as a
//! test's mistake should. The runs saved under docs/results are here too,
//! read as bench reads them ([`saved_run`], [`saved_runs`]).

mod saved;

use std::collections::BTreeMap;

use crate::*;
pub use saved::{read_run, saved_run, saved_runs, saved_runs_dir};

/// One round: throughput (every request a success), p99, peak threads;
/// everything else derived from them.
pub fn round(n: u32, rps: f64, p99: f64, threads: u64) -> RoundResult {
    RoundResult {
        round: n,
        position: n - 1,
        load: LoadStats {
            total_requests: (rps * 10.0) as u64,
            ok_requests: (rps * 10.0) as u64,
            errors: 0,
            errors_by_kind: BTreeMap::new(),
            duration_seconds: 10.0,
            throughput_rps: rps,
            successful_throughput_rps: rps,
            latency_ms: Latency {
                avg: p99 / 2.0,
                min: 1.0,
                max: p99 * 2.0,
                stdev: 3.0,
                p50: p99 / 2.0,
                p95: p99 * 0.9,
                p99,
                p99_9: Some(p99 * 1.5),
            },
            timeline: vec![],
            client_cpu_seconds: 1.0,
            connect_ms: None,
        },
        background_load: None,
        server_process: ServerStats {
            idle_threads: threads.min(3),
            peak_threads: threads,
            idle_rss_bytes: 8 * 1024 * 1024,
            peak_rss_bytes: 64 * 1024 * 1024,
            cpu_seconds: rps * 10.0 * 20e-6, // 20 us per request
            samples: 100,
        },
        cpu: CpuUse {
            window_seconds: 10.0,
            server_seconds: 2.0,
            load_generator_seconds: 1.0,
            postgres_seconds: 0.5,
            redis_seconds: 0.0,
            proxy_seconds: 0.0,
            softirq_seconds: 0.2,
            stolen_seconds: 0.0,
            other_seconds: 0.1,
            ticks: None,
        },
        server_counted_requests: Some((rps * 10.0) as u64),
        machine_cpu_measured: true,
        not_measured: Vec::new(),
        detector: None,
        step: None,
        postgres_proxy: None,
        jvm: None,
    }
}

/// A round at `rps` with a 5 ms p99 and 20 threads at peak.
pub fn bench_round(n: u32, rps: f64) -> RoundResult {
    round(n, rps, 5.0, 20)
}

/// `r` as a sweep step at `connections`: every request answered, its
/// latency the lower bound's.
pub fn at_step(mut r: RoundResult, connections: usize) -> RoundResult {
    r.step = Some(SweepStep {
        connections,
        fresh_server: false,
        latency_lower_bound_ms: r.load.latency_ms,
        unfinished: 0,
        timeouts: 0,
        listen_overflows: None,
    });
    r
}

/// The column spelled `id`.
pub fn column_id(id: &str) -> ColumnId {
    ColumnId::parse(id).unwrap_or_else(|| panic!("no column {id}"))
}

/// Column `id` on `server`, loading `GET path`, with `rounds`.
pub fn column_of(
    id: ColumnId,
    server: Target,
    path: &str,
    rounds: Vec<RoundResult>,
) -> ColumnResult {
    ColumnResult {
        id,
        label: id.to_string(),
        server,
        method: "GET".into(),
        path: path.into(),
        background_path: None,
        rounds,
        failure: None,
    }
}

/// A column whose rounds have these (throughput, p99) pairs and `threads`
/// at peak, on the server spelled `server` (blocking if none is).
pub fn column(id: &str, server: &str, rounds: &[(f64, f64)], threads: u64) -> ColumnResult {
    let rounds = rounds
        .iter()
        .enumerate()
        .map(|(i, (rps, p99))| round(i as u32 + 1, *rps, *p99, threads))
        .collect();
    column_of(
        column_id(id),
        Target::parse(server).unwrap_or(Target::Blocking),
        "/x",
        rounds,
    )
}

/// The same figures in each of three rounds.
pub fn steady(id: &str, server: &str, rps: f64, p99: f64, threads: u64) -> ColumnResult {
    column(id, server, &[(rps, p99); 3], threads)
}

/// Group `id` of `columns`, under a load named "test load".
pub fn group_of(id: GroupId, columns: Vec<ColumnResult>) -> GroupResult {
    GroupResult {
        id,
        title: id.to_string(),
        load: "test load".into(),
        warm_up: "none (cold start)".into(),
        columns,
        cold_start: None,
        idle: None,
        sweep: None,
        equal_load: None,
    }
}

/// The group spelled `id`, of `columns`.
pub fn group(id: &str, columns: Vec<ColumnResult>) -> GroupResult {
    group_of(
        GroupId::parse(id).unwrap_or_else(|| panic!("no group {id}")),
        columns,
    )
}

/// A probed server whose cold starts each had these first answers (ms;
/// `None`: never).
pub fn probed(id: &str, starts: &[&[Option<f64>]]) -> ColdStartServer {
    ColdStartServer {
        id: column_id(id),
        label: id.into(),
        starts: starts.iter().map(|s| s.to_vec()).collect(),
        failure: None,
    }
}

/// An idle group result: per server (id, threads above idle at every
/// size), three rounds at each size; RSS rises 20 KiB per connection on
/// async, 32 on tiny_http and 8 on nio.
pub fn idle_result(sizes: &[usize], servers: &[(&str, u64)]) -> IdleResult {
    let idle = ProcessFigures {
        threads: 10,
        rss_bytes: 20 << 20,
        open_fds: 12,
    };
    let probe = |p99_ms| ProbeStats {
        requests: 1000,
        errors: 0,
        p50_ms: 0.1,
        p99_ms,
    };
    let kib = |id: &str| match id {
        "async-idle" => 20,
        "blocking-idle-tiny-http" => 32,
        _ => 8,
    };
    let step = |id: &str, n: usize, threads_above: u64| IdleStep {
        connections: n,
        opened: n,
        open_seconds: 0.1,
        server: ProcessFigures {
            threads: idle.threads + threads_above,
            rss_bytes: idle.rss_bytes + n as u64 * kib(id) * 1024,
            open_fds: idle.open_fds + n as u64,
        },
        probe: Some(probe(0.5)),
        still_open: n,
        failure: None,
    };
    let server = |id: &str, threads_above: u64| IdleServer {
        id: column_id(id),
        label: id.into(),
        failure: None,
        rounds: (1..=3)
            .map(|round| IdleRound {
                round,
                position: round - 1,
                idle,
                probe_none_open: probe(0.3),
                steps: sizes.iter().map(|&n| step(id, n, threads_above)).collect(),
                stopped: None,
                after_close: Some(idle),
                closed_within_ms: Some(12.0),
            })
            .collect(),
    };
    IdleResult {
        sizes: sizes.to_vec(),
        servers: servers
            .iter()
            .map(|&(id, threads_above)| server(id, threads_above))
            .collect(),
    }
}

/// A whole run of `groups` on a two-core test machine, with bench's
/// default settings.
pub fn results(groups: Vec<GroupResult>) -> RunResults {
    RunResults {
        schema_version: SCHEMA_VERSION,
        started_at: "2026-11-30T00:00:00Z".into(),
        wall_seconds: 1.0,
        machine: Machine {
            cores: 2,
            cpu_model: "Test CPU".into(),
            memory_bytes: 1 << 30,
            os: "Linux".into(),
            load_average_at_start: 0.5,
        },
        settings: RunSettings {
            profile: "quick".into(),
            cold_start: Some(false),
            rounds: 3,
            blocking_handler_threads: 200,
            async_worker_threads: 2,
            async_blocking_threads: 20,
            async_rayon_threads: 2,
            db_pool_size: 10,
            redis_pool_size: 10,
            blocking_redis_client: None,
            virtual_carriers: Some(2),
            remote_db_round_trip_ms: Some(2.0),
            loadgen_threads: 2,
            cpu_n: 1000,
            targets: "started by bench".into(),
            blocking_url: None,
            async_url: None,
            measured_by: None,
            server_figures_from: None,
            jvm: None,
        },
        groups,
        skipped: vec![],
        cpu_accounting: None,
        source: None,
        interrupted: false,
    }
}

/// A sweep group: every column at every step in three rounds, its
/// successful throughput `rps(column, round, connections)`; the posts
/// sweeps with the blocking server's cap (200 handler threads, 300 ms).
pub fn sweep_group(
    id: &str,
    steps: &[usize],
    rps: impl Fn(&str, u32, usize) -> f64,
    columns: &[(&str, &str)],
) -> GroupResult {
    let columns = columns
        .iter()
        .map(|(c, server)| {
            let mut col = column(c, server, &[], 20);
            // A real route, so the stall detector's finding looks at it.
            col.path = if id == "sweep-posts" {
                "/posts/1"
            } else {
                "/users/1"
            }
            .into();
            for round in 1..=3 {
                for &n in steps {
                    col.rounds
                        .push(at_step(bench_round(round, rps(c, round, n)), n));
                }
            }
            col
        })
        .collect();
    let mut g = group(id, columns);
    // Little's law, as bench_analysis::sweep::littles_law_cap gives it.
    let cap = LittleCap {
        handler_threads: 200,
        latency_ms: 300.0,
        rps: 200.0 * 1000.0 / 300.0,
    };
    g.sweep = Some(SweepInfo {
        steps: steps.to_vec(),
        rounds: 3,
        window_seconds: 2.1,
        warm_up_seconds: 1.0,
        cap: (id == "sweep-posts" || id == "calibration-posts").then_some(cap),
        cap_note: "test".into(),
    });
    g
}

/// Equal-load windows at `rate_rps` (half of `lowest`'s throughput), a
/// column per (id, server, server CPU per request in us in each of three
/// rounds); every request a success at the rate, p99 1 ms.
pub fn equal_load(rate_rps: f64, lowest: &str, columns: &[(&str, &str, [f64; 3])]) -> EqualLoad {
    let columns = columns
        .iter()
        .map(|(id, server, us)| {
            let mut c = column(id, server, &[(rate_rps, 1.0); 3], 20);
            for (r, us) in c.rounds.iter_mut().zip(us) {
                r.server_process.cpu_seconds = r.load.total_requests as f64 * us * 1e-6;
            }
            c
        })
        .collect();
    EqualLoad {
        share: 0.5,
        rate_rps,
        lowest: column_id(lowest),
        lowest_rps: rate_rps * 2.0,
        window_seconds: 10.0,
        warm_up_seconds: 1.0,
        columns,
    }
}

/// The baseline group: blocking serves more in the closed loop (1500 vs
/// 1200 req/s, three rounds each); at 600 req/s each (half async's), each
/// server's CPU per request in us, round by round.
pub fn health_at_equal_load(blocking_us: [f64; 3], async_us: [f64; 3]) -> GroupResult {
    let mut g = group(
        "baseline",
        vec![
            steady("blocking-health", "blocking", 1500.0, 2.0, 220),
            steady("async-health", "async", 1200.0, 2.0, 8),
        ],
    );
    g.equal_load = Some(equal_load(
        600.0,
        "async-health",
        &[
            ("blocking-health", "blocking", blocking_us),
            ("async-health", "async", async_us),
        ],
    ));
    g
}

/// The mixed and remote-mixed groups: /health next to the background its
/// column's id names (/cpu, /cpu on rayon, /posts/1, or in remote-mixed the
/// remote database's /users/1), a column per (id, server, its /health p99
/// in ms in each of three rounds), at 50 req/s.
pub fn mixed_groups(columns: &[(&str, &str, [f64; 3])]) -> RunResults {
    let of = |group_id: &str| {
        let columns = columns
            .iter()
            .filter(|(id, ..)| id.ends_with("users-remote") == (group_id == "remote-mixed"))
            .map(|(id, server, p99s)| {
                let mut c = column(id, server, &p99s.map(|p99| (50.0, p99)), 20);
                c.path = "/health".into();
                c.background_path = Some(background_of(id).into());
                c
            })
            .collect();
        group(group_id, columns)
    };
    results(vec![of("mixed"), of("remote-mixed")])
}

/// The route a mixed column's id says /health is next to.
fn background_of(id: &str) -> &'static str {
    match id.split("-next-to-").nth(1).unwrap_or_default() {
        "cpu" => "/cpu?n=5",
        "cpu-rayon" => "/cpu/rayon?n=5",
        "posts" => "/posts/1",
        "users-remote" => "/users/1",
        _ => panic!("{id} names no background this fixture knows"),
    }
}

/// Every round of every column of `run`, to set a figure in all of them.
pub fn rounds_mut(run: &mut RunResults) -> impl Iterator<Item = &mut RoundResult> {
    run.groups
        .iter_mut()
        .flat_map(|g| &mut g.columns)
        .flat_map(|c| &mut c.rounds)
}

/// Column `id` of `run`; panics when the run has none.
pub fn column_in(run: &RunResults, id: ColumnId) -> &ColumnResult {
    run.groups
        .iter()
        .flat_map(|g| &g.columns)
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no column {id} in the run"))
}

/// Column `id` of `run`, to change; panics when the run has none.
pub fn column_in_mut(run: &mut RunResults, id: ColumnId) -> &mut ColumnResult {
    run.groups
        .iter_mut()
        .flat_map(|g| &mut g.columns)
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no column {id} in the run"))
}

/// `run` with its group `id` made of `columns`, in place of its own.
pub fn replace_group(run: &mut RunResults, id: GroupId, columns: Vec<ColumnResult>) {
    run.groups.retain(|g| g.id != id);
    run.groups.push(group_of(id, columns));
}
