//! The seed profile measures every finding: a run of every group and
//! column its matrix loads, each with plausible rounds (from bench-model's
//! fixtures; behind a proxy, the proxy's reading of each window too;
//! where the cores decide, the equal-load windows too),
//! leaves no finding NOT MEASURED. The matrix and the findings must name
//! the same columns.

use bench::plan::{groups, seed, Load, Network, EQUAL_LOAD_GROUPS};
use bench_analysis::equal_load::is_ranked;
use bench_analysis::findings::check;
use bench_model::fixtures::{group, idle_result, probed, results, steady, sweep_group};
use bench_model::{ColdStartResult, ColumnResult, EqualLoad, GroupId, GroupResult, ProxyWindow};
use bench_model::{Verdict, THRESHOLDS};

#[test]
fn the_seed_profile_measures_every_finding() {
    // Every column of every group the seed profile loads, with plausible rounds.
    let profile = seed();
    let matrix: Vec<GroupResult> = groups()
        .into_iter()
        .filter(|g| profile.load(g.id).is_some())
        .map(|g| {
            let columns = g
                .columns
                .iter()
                .map(|c| ColumnResult {
                    path: c.path.to_owned(),
                    background_path: c.background.map(str::to_owned),
                    ..steady(c.id.as_str(), c.target.name(), 100.0, 5.0, 20)
                })
                .collect();
            let mut result = group(g.id.as_str(), columns);
            if g.network != Network::Local {
                // A round trip of 2 ms per request, as the proxy counts.
                for r in result.columns.iter_mut().flat_map(|c| &mut c.rounds) {
                    r.postgres_proxy = Some(ProxyWindow {
                        connections: 0,
                        exchanges: r.load.ok_requests,
                        delivered_seconds: r.load.ok_requests as f64 * 0.002,
                        setting_ms: 2.0,
                    });
                }
            }
            if g.id == GroupId::Idle {
                result.columns.clear();
                result.idle = Some(idle_result(
                    &[1000],
                    &[
                        ("blocking-idle", 0),
                        ("blocking-idle-tiny-http", 1000),
                        ("async-idle", 0),
                        ("virtual-idle", 0),
                    ],
                ));
            }
            if let Some(Load::Sweep(sw)) = profile.load(g.id) {
                result = sweep_group(
                    g.id.as_str(),
                    &sw.steps,
                    |c, _, n| {
                        // Blocking (and Tomcat) flat at 600 from the second
                        // step, async (and Netty) climbing with the connections.
                        if c.starts_with("blocking") || c.starts_with("tomcat") {
                            (n as f64 * 10.0).min(600.0)
                        } else {
                            n as f64 * 10.0
                        }
                    },
                    &g.columns
                        .iter()
                        .map(|c| (c.id.as_str(), c.target.name()))
                        .collect::<Vec<_>>(),
                );
            }
            if EQUAL_LOAD_GROUPS.contains(&g.id) {
                result.equal_load = Some(every_ranked_column_again(&result));
            }
            if !g.cold_start_probe.is_empty() {
                result.cold_start = Some(ColdStartResult {
                    connections: 2,
                    run_for_ms: 1500.0,
                    servers: g
                        .cold_start_probe
                        .iter()
                        .map(|id| probed(id.as_str(), &[&[Some(3.0), Some(4.0)]]))
                        .collect(),
                });
            }
            result
        })
        .collect();
    let findings = check(&results(matrix), &THRESHOLDS);
    let unmeasured: Vec<&str> = findings
        .iter()
        .filter(|f| f.verdict == Verdict::NotMeasured)
        .map(|f| f.id.as_str())
        .collect();
    assert!(unmeasured.is_empty(), "not measured: {unmeasured:?}");
    // 49 before the Loom columns and the connect bursts, 3 Loom, 9 burst and neighbour.
    assert_eq!(findings.len(), 61);
}

/// `g`'s ranked columns again, with the same rounds, at one rate.
fn every_ranked_column_again(g: &GroupResult) -> EqualLoad {
    EqualLoad {
        share: 0.5,
        rate_rps: 50.0,
        lowest: g.columns[0].id,
        lowest_rps: 100.0,
        window_seconds: 3.0,
        warm_up_seconds: 1.0,
        columns: g.columns.iter().filter(|c| is_ranked(c)).cloned().collect(),
    }
}
