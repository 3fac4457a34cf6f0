//! The idle-connection findings: threads per idle keep-alive connection on
//! tiny_http and on the other two, and memory per idle connection.

use super::checks::{across, Ctx, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::{ratio_words, Line};
use crate::verdict::Side;
use bench_model::ColumnId;
use bench_model::Spread;
use bench_model::{IdleCell, IdleRound, IdleServer, IdleStep};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        tiny_http_thread_per_connection(t),
        nio_and_async_no_threads(t),
        async_less_memory_than_tiny_http(t),
    ]
}

/// The rounds of `server` that opened all of `size` idle connections.
fn idle_steps(server: &IdleServer, size: usize) -> Vec<(&IdleRound, &IdleStep)> {
    match server.cell(size) {
        IdleCell::Measured(steps) => steps,
        _ => Vec::new(),
    }
}

/// Each round's step at one size: the round, and what it measured.
type Steps<'a> = Vec<(&'a IdleRound, &'a IdleStep)>;

/// The largest size idle server `id` opened in full, and each round's
/// step at it; `None` when it opened none.
pub(super) fn at_largest<'a>(cx: &'a Ctx<'_>, id: ColumnId) -> Option<(usize, Steps<'a>)> {
    let (server, sizes) = cx.idle(id)?;
    let size = server.largest_measured(sizes)?;
    Some((size, idle_steps(server, size)))
}

/// At the largest size idle server `id` opened: its threads above idle,
/// round by round, and in words ("with 5000 open: threads above idle per
/// round +0, +1, +0").
pub(super) fn threads_above_at_largest(
    cx: &Ctx<'_>,
    id: ColumnId,
) -> Option<(Vec<(u32, f64)>, String)> {
    let (size, steps) = at_largest(cx, id)?;
    let above: Vec<(u32, f64)> = steps
        .iter()
        .map(|(r, s)| (r.round, s.threads_above(&r.idle) as f64))
        .collect();
    let each: Vec<String> = above.iter().map(|(_, n)| format!("{n:+.0}")).collect();
    let words = format!(
        "with {size} open: threads above idle per round {}",
        each.join(", ")
    );
    Some((above, words))
}

/// tiny_http holds a thread per idle connection.
pub(super) fn tiny_http_thread_per_connection(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-tiny-http-thread-per-connection",
            seed: "beyond the seeds: what an idle keep-alive connection costs",
            kind: Kind::DesignCheck("tiny_http starts a reader thread per connection by its design"),
            claim: format!(
                "tiny_http holds a thread per idle keep-alive connection: with the largest size it opened, its threads above idle are at least {} per connection",
                t.idle_threads_per_connection
            ),
            needs: Needs::Columns(vec![C::BlockingIdleTinyHttp]),
            check: Box::new(|cx, t| {
                let (size, steps) = at_largest(cx, C::BlockingIdleTinyHttp)?;
                let per: Vec<f64> = steps.iter().filter_map(|(r, s)| s.threads_per_connection(&r.idle)).collect();
                let each: Vec<String> = per.iter().map(|x| format!("{x:.3}")).collect();
                let evidence = format!("with {size} open: threads per connection per round {}", each.join(", "));
                Some(Outcome::judged(&per, (Side::Above, t.idle_threads_per_connection), t, evidence))
            }),
    }
}

/// nio and the event loop hold no thread per idle connection.
pub(super) fn nio_and_async_no_threads(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-nio-and-async-no-threads",
            seed: "beyond the seeds: what an idle keep-alive connection costs",
            kind: Kind::DesignCheck("nio's pool and the event loop's workers are fixed by settings, and an idle connection starts no thread in either"),
            claim: format!(
                "idle keep-alive connections cost our connector (nio) and the event loop no threads: with the largest size each opened, at most {:.0} threads above idle",
                t.idle_threads_allowance
            ),
            needs: Needs::Columns(vec![C::BlockingIdle, C::AsyncIdle]),
            check: Box::new(|cx, t| {
                let mut per_server = Vec::new();
                let mut text = Vec::new();
                for (id, name) in [(C::BlockingIdle, "nio"), (C::AsyncIdle, "async")] {
                    let (above, words) = threads_above_at_largest(cx, id)?;
                    text.push(format!("{name} {words}"));
                    per_server.push(above);
                }
                // Per round number, the worse of the two: the claim is about both.
                let worst = across(&per_server, f64::max);
                Some(Outcome::judged(&worst, (Side::Below, t.idle_threads_allowance), t, text.join("; ")))
            }),
    }
}

/// An idle connection costs the event loop less memory than tiny_http.
pub(super) fn async_less_memory_than_tiny_http(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-async-less-memory-than-tiny-http",
            seed: "beyond the seeds: what an idle keep-alive connection costs",
            kind: Kind::Prediction("resident memory measured per idle connection on two servers, which either could spend more of"),
            claim: "an idle keep-alive connection costs the event loop less resident memory than tiny_http's thread per connection: async's RSS above idle per connection is below tiny_http's at the largest size both opened".into(),
            needs: Needs::Columns(vec![C::AsyncIdle, C::BlockingIdleTinyHttp]),
            check: Box::new(|cx, t| {
                let (a, sizes) = cx.idle(C::AsyncIdle)?;
                let (tiny, _) = cx.idle(C::BlockingIdleTinyHttp)?;
                let size = sizes.iter().rev().copied().find(|&n| {
                    !idle_steps(a, n).is_empty() && !idle_steps(tiny, n).is_empty()
                })?;
                let (sa, st) = (idle_steps(a, size), idle_steps(tiny, size));
                let ratio: Vec<f64> = sa.iter().filter_map(|(ra, xa)| {
                    let (rt, xt) = st.iter().find(|(rt, _)| rt.round == ra.round)?;
                    let (ka, kt) = (xa.kib_per_connection(&ra.idle)?, xt.kib_per_connection(&rt.idle)?);
                    (kt > 0.0).then(|| ka / kt)
                }).collect();
                let kib = |steps: &[(&IdleRound, &IdleStep)]| {
                    Spread::of(steps.iter().filter_map(|(r, s)| s.kib_per_connection(&r.idle)))
                        .map_or(f64::NAN, |s| s.median)
                };
                let evidence = format!(
                    "with {size} open: {:.1} vs {:.1} KiB per connection (column medians); async / tiny_http: {}",
                    kib(&sa),
                    kib(&st),
                    ratio_words(&ratio, Some(Line { at: 1.0, margin: t.margin }))
                );
                Some(Outcome::compared(&ratio, (Side::Below, 1.0), t, evidence))
            }),
    }
}
