//! The idle-connection findings: threads per idle keep-alive connection on
//! tiny_http and on the other two, and memory per idle connection.

use super::checks::Spec;
use super::Thresholds;
use crate::stats::{describe_ratio, verdict, Side};
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

/// tiny_http holds a thread per idle connection.
pub(super) fn tiny_http_thread_per_connection(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-tiny-http-thread-per-connection",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: format!(
                "tiny_http holds a thread per idle keep-alive connection: with the largest size it opened, its threads above idle are at least {} per connection",
                t.idle_threads_per_connection
            ),
            needs: vec![C::BlockingIdleTinyHttp],
            check: Box::new(|cx, t| {
                let (tiny, sizes) = cx.idle(C::BlockingIdleTinyHttp)?;
                let size = tiny.largest_measured(sizes)?;
                let steps = idle_steps(tiny, size);
                let per = Spread::of(steps.iter().filter_map(|(r, s)| s.threads_per_connection(&r.idle)))?;
                Some((
                    per,
                    verdict(&per, Side::Above, t.idle_threads_per_connection, t.margin),
                    format!(
                        "with {size} open: {:.3} threads per connection ({:.3}-{:.3} over {} rounds)",
                        per.median, per.min, per.max, per.n
                    ),
                ))
            }),
    }
}

/// nio and the event loop hold no thread per idle connection.
pub(super) fn nio_and_async_no_threads(t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-nio-and-async-no-threads",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: format!(
                "idle keep-alive connections cost our connector (nio) and the event loop no threads: with the largest size each opened, at most {:.0} threads above idle",
                t.idle_threads_allowance
            ),
            needs: vec![C::BlockingIdle, C::AsyncIdle],
            check: Box::new(|cx, t| {
                // Per round number, the worse of the two: the claim is about both.
                let mut worst: std::collections::BTreeMap<u32, f64> = Default::default();
                let mut text = Vec::new();
                for (id, name) in [(C::BlockingIdle, "nio"), (C::AsyncIdle, "async")] {
                    let (server, sizes) = cx.idle(id)?;
                    let size = server.largest_measured(sizes)?;
                    let steps = idle_steps(server, size);
                    let above = |(r, s): &(&IdleRound, &IdleStep)| s.threads_above(&r.idle) as f64;
                    let spread = Spread::of(steps.iter().map(above))?;
                    text.push(format!(
                        "{name} {:+.0} threads with {size} open ({:+.0} to {:+.0})",
                        spread.median, spread.min, spread.max
                    ));
                    for step in &steps {
                        let w = worst.entry(step.0.round).or_insert(f64::NEG_INFINITY);
                        *w = w.max(above(step));
                    }
                }
                let all = Spread::of(worst.into_values())?;
                Some((
                    all,
                    verdict(&all, Side::Below, t.idle_threads_allowance, t.margin),
                    text.join("; "),
                ))
            }),
    }
}

/// An idle connection costs the event loop less memory than tiny_http.
pub(super) fn async_less_memory_than_tiny_http(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "idle-async-less-memory-than-tiny-http",
            seed: "none (issue 9: idle keep-alive connections)",
            claim: "an idle keep-alive connection costs the event loop less resident memory than tiny_http's thread per connection: async's RSS above idle per connection is below tiny_http's at the largest size both opened".into(),
            needs: vec![C::AsyncIdle, C::BlockingIdleTinyHttp],
            check: Box::new(|cx, t| {
                let (a, sizes) = cx.idle(C::AsyncIdle)?;
                let (tiny, _) = cx.idle(C::BlockingIdleTinyHttp)?;
                let size = sizes.iter().rev().copied().find(|&n| {
                    !idle_steps(a, n).is_empty() && !idle_steps(tiny, n).is_empty()
                })?;
                let (sa, st) = (idle_steps(a, size), idle_steps(tiny, size));
                let ratio = Spread::of(sa.iter().filter_map(|(ra, xa)| {
                    let (rt, xt) = st.iter().find(|(rt, _)| rt.round == ra.round)?;
                    let (ka, kt) = (xa.kib_per_connection(&ra.idle)?, xt.kib_per_connection(&rt.idle)?);
                    (kt > 0.0).then(|| ka / kt)
                }))?;
                let kib = |steps: &[(&IdleRound, &IdleStep)]| {
                    Spread::of(steps.iter().filter_map(|(r, s)| s.kib_per_connection(&r.idle)))
                        .map_or(f64::NAN, |s| s.median)
                };
                Some((
                    ratio,
                    verdict(&ratio, Side::Below, 1.0, t.margin),
                    format!(
                        "with {size} open: {:.1} vs {:.1} KiB per connection (medians) = {}",
                        kib(&sa),
                        kib(&st),
                        describe_ratio(&ratio)
                    ),
                ))
            }),
    }
}
