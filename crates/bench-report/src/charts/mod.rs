//! SVG charts of a run, written by hand: a bar chart per group for
//! throughput (successful requests per second, as every printer counts it:
//! [`bench_model::figures`]) and p99 (the bar at the median over rounds, a whisker from the
//! lowest to the highest round), for the mixed group a line chart of /health
//! p99 over time, for the idle group RSS against idle connections, and for
//! a sweep throughput and p99 against connections; and the run at a glance
//! as a picture ([`glance_chart`]). No chart library: a few rectangles and
//! polylines are all these need.

mod bars;
mod glance;
mod lines;
mod svg;
mod sweep;

pub use bars::bar_chart;
pub use glance::{band, closeness, glance_chart, BAR_MAX};
pub use lines::{idle_rss_chart, line_chart};
pub use sweep::{sweep_chart, SweepSeries};

/// The file name of the run at a glance as a picture, beside the report
/// (crate::files writes it; the HTML report names it).
pub const GLANCE_SVG: &str = "glance.svg";

use bench_analysis::stats::column_spread;
use bench_model::figures::{p99_is_lower_bound, p99_ms, step_p99_ms, successful_rps};
use bench_model::{ColumnResult, GroupResult, Metric, RoundResult, RunResults, Spread};

/// The round of `c` whose p99 is the median one (the round a
/// latency-over-time line is drawn from).
fn median_round(c: &ColumnResult) -> Option<&bench_model::RoundResult> {
    bench_analysis::stats::median_round(c, p99_ms)
}

/// Every chart of a run, as (file name, SVG text).
pub fn all(results: &RunResults) -> Vec<(String, String)> {
    results.groups.iter().flat_map(of_group).collect()
}

/// The charts of one group, as (file name, SVG text).
pub fn of_group(g: &GroupResult) -> Vec<(String, String)> {
    let mut files = Vec::new();
    {
        if let Some(idle) = &g.idle {
            files.push((
                format!("{}-rss.svg", g.id),
                idle_rss_chart(&super::idle_table::rss_above_idle_mib(idle)),
            ));
            // No load-generator columns: no throughput or p99 bars.
            return files;
        }
        if let Some(info) = &g.sweep {
            files.extend(sweep_charts(g, info));
            return files;
        }
        files.push((
            format!("{}-throughput.svg", g.id),
            group_bars(g, "throughput", "req/s", (successful_rps, |_| false)),
        ));
        files.push((
            format!("{}-p99.svg", g.id),
            group_bars(g, "p99 latency", "ms", (p99_ms, p99_is_lower_bound)),
        ));
        if matches!(
            g.id,
            bench_model::GroupId::Mixed | bench_model::GroupId::RemoteMixed
        ) {
            let series = g
                .columns
                .iter()
                .filter_map(|c| Some((c, median_round(c)?)))
                .map(|(c, r)| {
                    (
                        c.label.clone(),
                        r.load
                            .timeline
                            .iter()
                            // A second in which nothing finished has no latency to draw.
                            .filter(|s| s.requests > 0)
                            .map(|s| (s.second as f64 + 1.0, s.p99_ms))
                            .collect(),
                    )
                })
                .collect::<Vec<_>>();
            files.push((
                format!("{}-latency-over-time.svg", g.id),
                line_chart(
                    (
                        "/health p99 per second next to each background load",
                        "the median round of each column",
                    ),
                    "ms (log scale)",
                    &series,
                ),
            ));
        }
    }
    files
}

/// A sweep group's two charts: successful throughput (with the blocking
/// cap, if any) and p99 (every request counted) against connections.
fn sweep_charts(g: &GroupResult, info: &bench_model::SweepInfo) -> Vec<(String, String)> {
    let series = |metric: Metric| -> Vec<SweepSeries> {
        g.columns
            .iter()
            .map(|c| {
                let points = info
                    .steps
                    .iter()
                    .filter_map(|&n| Some((n, bench_analysis::sweep::step_spread(c, n, metric)?)))
                    .collect();
                (c.label.clone(), points)
            })
            .collect()
    };
    let cap = info.cap.map(|c| {
        (
            c.rps,
            format!("blocking cap (Little's law): {:.0} req/s", c.rps),
        )
    });
    let rounds = format!(
        "median of {} round{} (whisker: min-max)",
        info.rounds,
        if info.rounds == 1 { "" } else { "s" }
    );
    vec![
        (
            format!("{}-throughput.svg", g.id),
            sweep_chart(
                (g.title.as_str(), &format!("successful req/s, {rounds}")),
                "req/s",
                &series(successful_rps),
                cap,
                false,
            ),
        ),
        (
            format!("{}-p99.svg", g.id),
            sweep_chart(
                (
                    g.title.as_str(),
                    &format!(
                        "p99, unanswered requests counted at their wait (a lower bound then), {rounds}"
                    ),
                ),
                "ms (log scale)",
                &series(step_p99_ms),
                None,
                true,
            ),
        ),
    ]
}

/// A group's bars of `metric`, each marked a lower bound where `bound`
/// says so of some round.
fn group_bars(
    g: &GroupResult,
    what: &str,
    unit: &str,
    (metric, bound): (Metric, fn(&RoundResult) -> bool),
) -> String {
    let bars: Vec<(String, Spread, bool)> = g
        .columns
        .iter()
        .filter_map(|c| {
            let at_least = c.rounds.iter().any(bound);
            Some((c.label.clone(), column_spread(c, metric)?, at_least))
        })
        .collect();
    let rounds = g.columns.iter().map(|c| c.rounds.len()).max().unwrap_or(0);
    bar_chart(
        &g.title,
        &format!("{what}, median of {rounds} rounds (whisker: min-max)"),
        unit,
        &bars,
    )
}
