//! The seeds' conclusions, each stated as a check on this run's numbers.
//!
//! Every threshold lives in [`Thresholds`] and is printed with the report, so
//! a reader sees exactly what "within 15%" or "far below" meant. A finding
//! whose columns were not run is "not measured", never silently dropped.

use serde::{Deserialize, Serialize};

use crate::model::{ColumnResult, RunResults};

/// The numbers that turn the seeds' words into checks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// "Beats" and "is worse" need more than this fraction of difference, so
    /// run-to-run noise cannot decide a verdict (0.05: more than 5%).
    pub margin: f64,
    /// "An offload brings async close to blocking": within this fraction of blocking's throughput.
    pub offload_within: f64,
    /// "Far fewer threads": async peak threads at most this fraction of blocking's.
    pub thread_fraction: f64,
    /// "A blocked event loop stalls everyone": /health p99 next to an inline blocking
    /// load is at least this many times its p99 next to the offloaded or non-blocking load.
    pub mixed_p99_factor: f64,
}

pub const THRESHOLDS: Thresholds = Thresholds {
    margin: 0.05,
    offload_within: 0.15,
    thread_fraction: 0.25,
    mixed_p99_factor: 5.0,
};

/// One checked conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    /// The seed it comes from, e.g. "seed 000".
    pub seed: String,
    /// The conclusion, in words.
    pub claim: String,
    /// `Some(true)` held, `Some(false)` did not hold, `None` not measured in this run.
    pub held: Option<bool>,
    /// The numbers behind the verdict.
    pub evidence: String,
}

struct Ctx<'a> {
    results: &'a RunResults,
}

impl Ctx<'_> {
    fn col(&self, group: &str, id: &str) -> Option<&ColumnResult> {
        self.results
            .groups
            .iter()
            .find(|g| g.id == group)?
            .columns
            .iter()
            .find(|c| c.id == id)
    }

    fn group(&self, group: &str) -> Option<&[ColumnResult]> {
        self.results
            .groups
            .iter()
            .find(|g| g.id == group)
            .map(|g| g.columns.as_slice())
    }
}

fn rps(c: &ColumnResult) -> f64 {
    c.load.throughput_rps
}

/// Whether `a` served more requests per second than `b` by more than the margin, with the numbers.
fn faster(a: &ColumnResult, b: &ColumnResult, t: &Thresholds) -> (bool, String) {
    (
        rps(a) > rps(b) * (1.0 + t.margin),
        format!(
            "{:.0} vs {:.0} req/s = {:.2}x",
            rps(a),
            rps(b),
            rps(a) / rps(b)
        ),
    )
}

fn finding(id: &str, seed: &str, claim: String, verdict: Option<(bool, String)>) -> Finding {
    let (held, evidence) = match verdict {
        Some((held, evidence)) => (Some(held), evidence),
        None => (None, "not measured in this run".to_owned()),
    };
    Finding {
        id: id.to_owned(),
        seed: seed.to_owned(),
        claim,
        held,
        evidence,
    }
}

/// Checks every conclusion against `results`.
pub fn check(results: &RunResults, t: &Thresholds) -> Vec<Finding> {
    let cx = Ctx { results };
    let pct = |f: f64| format!("{:.0}%", f * 100.0);
    let mut out = Vec::new();

    out.push(finding(
        "cpu-inline-hurts-async",
        "seed 000",
        format!("CPU work inline on the event loop: async has lower throughput or a higher p99 than blocking, by more than {}", pct(t.margin)),
        (|| {
            let (b, a) = (cx.col("cpu", "blocking-cpu")?, cx.col("cpu", "async-cpu")?);
            let held = rps(a) < rps(b) * (1.0 - t.margin)
                || a.load.latency_ms.p99 > b.load.latency_ms.p99 * (1.0 + t.margin);
            Some((held, format!(
                "throughput {:.0} vs {:.0} req/s, p99 {:.1} vs {:.1} ms (async inline vs blocking)",
                rps(a), rps(b), a.load.latency_ms.p99, b.load.latency_ms.p99
            )))
        })(),
    ));

    out.push(finding(
        "cpu-offload-recovers",
        "seed 000",
        format!(
            "moving CPU work off the event loop brings async within {} of blocking's throughput",
            pct(t.offload_within)
        ),
        (|| {
            let b = cx.col("cpu", "blocking-cpu")?;
            let best = ["async-cpu-rayon", "async-cpu-spawn-blocking"]
                .iter()
                .filter_map(|id| cx.col("cpu", id))
                .max_by(|x, y| rps(x).total_cmp(&rps(y)))?;
            let ratio = rps(best) / rps(b);
            Some((
                ratio >= 1.0 - t.offload_within,
                format!(
                    "{} {:.0} req/s = {:.2}x blocking's {:.0}",
                    best.label,
                    rps(best),
                    ratio,
                    rps(b)
                ),
            ))
        })(),
    ));

    out.push(finding(
        "db-async-driver-wins",
        "seed 000, 001, 002",
        format!(
            "with a non-blocking driver (sqlx, like R2DBC) async beats blocking on the database group by more than {}",
            pct(t.margin)
        ),
        (|| {
            let (b, a) = (
                cx.col("database", "blocking-users")?,
                cx.col("database", "async-users")?,
            );
            Some(faster(a, b, t))
        })(),
    ));

    out.push(finding(
        "db-inline-driver-worst",
        "seed 000",
        "a blocking driver called on the event loop (JDBC without scheduler) is the worst of the database group".into(),
        (|| {
            let cols = cx.group("database")?;
            let inline = cx.col("database", "async-users-blocking")?;
            let worst = cols.iter().min_by(|x, y| rps(x).total_cmp(&rps(y)))?;
            Some((worst.id == inline.id, format!(
                "lowest throughput: {} ({:.0} req/s); inline driver {:.0} req/s", worst.label, rps(worst), rps(inline)
            )))
        })(),
    ));

    out.push(finding(
        "db-spawn-blocking-recovers",
        "seed 000",
        format!("the blocking driver through spawn_blocking (JDBC on BoundedElastic) comes within {} of blocking", pct(t.offload_within)),
        (|| {
            let (b, s) = (cx.col("database", "blocking-users")?, cx.col("database", "async-users-spawn-blocking")?);
            let ratio = rps(s) / rps(b);
            Some((ratio >= 1.0 - t.offload_within, format!("{:.0} vs {:.0} req/s = {:.2}x", rps(s), rps(b), ratio)))
        })(),
    ));

    out.push(finding(
        "async-far-fewer-threads",
        "seed 000",
        format!(
            "async peaks at no more than {} of blocking's thread count",
            pct(t.thread_fraction)
        ),
        thread_verdict(&cx, t),
    ));

    for (id, inline, offloaded, what) in [
        (
            "mixed-cpu",
            "async-health-next-to-cpu",
            "async-health-next-to-cpu-rayon",
            "CPU work",
        ),
        (
            "mixed-db-driver",
            "async-health-next-to-users-blocking",
            "async-health-next-to-users",
            "a blocking database driver",
        ),
        (
            "mixed-sleep",
            "async-health-next-to-posts-blocking",
            "async-health-next-to-posts",
            "a blocking sleep",
        ),
    ] {
        out.push(finding(
            id,
            "none (the lesson the seeds imply)",
            format!("{what} on the event loop delays unrelated requests: /health p99 next to it is at least {}x its p99 next to the non-blocking version", t.mixed_p99_factor),
            (|| {
                let (i, o) = (cx.col("mixed", inline)?, cx.col("mixed", offloaded)?);
                let (pi, po) = (i.load.latency_ms.p99, o.load.latency_ms.p99);
                let factor = pi / po.max(0.001);
                Some((factor >= t.mixed_p99_factor, format!("/health p99 {pi:.1} ms vs {po:.1} ms = {factor:.1}x")))
            })(),
        ));
    }

    for (id, group, seed, what) in [
        (
            "cache-async-wins",
            "cache",
            "seed 001",
            "Redis reads (two GETs)",
        ),
        (
            "baseline-async-wins",
            "baseline",
            "seed 001",
            "an immediate answer (/health)",
        ),
        (
            "ramp-async-wins",
            "ramp",
            "seed 002",
            "a database read under ramping load",
        ),
    ] {
        out.push(finding(
            id,
            seed,
            format!(
                "async serves more requests per second than blocking on {what}, by more than {}",
                pct(t.margin)
            ),
            (|| {
                let cols = cx.group(group)?;
                let b = cols.iter().find(|c| c.server == "blocking")?;
                let a = cols.iter().find(|c| c.server == "async")?;
                Some(faster(a, b, t))
            })(),
        ));
    }
    out
}

/// The worst (highest) async/blocking peak-thread ratio over the CPU and database groups.
fn thread_verdict(cx: &Ctx<'_>, t: &Thresholds) -> Option<(bool, String)> {
    let pairs = [
        ("cpu", "blocking-cpu", "async-cpu"),
        ("database", "blocking-users", "async-users"),
    ];
    let mut worst: Option<(f64, String)> = None;
    for (g, b, a) in pairs {
        let (Some(b), Some(a)) = (cx.col(g, b), cx.col(g, a)) else {
            continue;
        };
        if b.server_process.samples == 0 || a.server_process.samples == 0 {
            continue;
        }
        let f = a.server_process.peak_threads as f64 / b.server_process.peak_threads.max(1) as f64;
        let text = format!(
            "{g}: {} vs {} threads ({:.2}x)",
            a.server_process.peak_threads, b.server_process.peak_threads, f
        );
        if worst.as_ref().is_none_or(|(w, _)| f > *w) {
            worst = Some((f, text));
        }
    }
    worst.map(|(f, text)| (f <= t.thread_fraction, text))
}
