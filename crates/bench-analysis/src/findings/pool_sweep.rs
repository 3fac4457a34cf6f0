//! The pool sweep's finding: at a fixed concurrency, with Postgres a round
//! trip away, a pooled driver is capped by its pool (the pool is the
//! queue), so at pool 2 it serves a fraction of what a larger pool gives;
//! the pipelined driver needs no pool, so two shared clients serve about
//! as much as its best client count.

use super::checks::{across, larger, median, pct, Ctx, Kind, Needs, Outcome, Spec};
use super::Thresholds;
use crate::stats::share_words;
use crate::verdict::Side;
use bench_model::figures::successful_rps;
use bench_model::{ColumnId, ColumnResult};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![pipelined_needs_no_pool(t)]
}

/// Each pooled driver's columns, pool sizes 2, 5, 10, 20 and 40.
const POOLED: [(&str, [ColumnId; 5]); 4] = {
    use ColumnId as C;
    [
        (
            "blocking",
            [
                C::BlockingUsersPool2,
                C::BlockingUsersPool5,
                C::BlockingUsersPool10,
                C::BlockingUsersPool20,
                C::BlockingUsersPool40,
            ],
        ),
        (
            "virtual yielding",
            [
                C::VirtualYieldingUsersPool2,
                C::VirtualYieldingUsersPool5,
                C::VirtualYieldingUsersPool10,
                C::VirtualYieldingUsersPool20,
                C::VirtualYieldingUsersPool40,
            ],
        ),
        (
            "sqlx",
            [
                C::AsyncUsersPool2,
                C::AsyncUsersPool5,
                C::AsyncUsersPool10,
                C::AsyncUsersPool20,
                C::AsyncUsersPool40,
            ],
        ),
        (
            "deadpool",
            [
                C::AsyncUsersDeadpoolPool2,
                C::AsyncUsersDeadpoolPool5,
                C::AsyncUsersDeadpoolPool10,
                C::AsyncUsersDeadpoolPool20,
                C::AsyncUsersDeadpoolPool40,
            ],
        ),
    ]
};

/// The pool sizes of [`POOLED`]'s columns, in order.
const POOL_SIZES: [u32; 5] = [2, 5, 10, 20, 40];

/// The pipelined driver's columns: 1, 2 and 4 clients.
const PIPELINED: [ColumnId; 3] = [
    ColumnId::AsyncUsersPipelinedClients1,
    ColumnId::AsyncUsersPipelinedClients2,
    ColumnId::AsyncUsersPipelinedClients4,
];

/// The client counts of [`PIPELINED`]'s columns, in order.
const CLIENTS: [u32; 3] = [1, 2, 4];

/// Every column of the sweep.
fn every_column() -> Vec<ColumnId> {
    POOLED
        .iter()
        .flat_map(|(_, ids)| ids.iter().copied())
        .chain(PIPELINED)
        .collect()
}

fn pipelined_needs_no_pool(t: &Thresholds) -> Spec {
    Spec {
        id: "pool-sweep-pipelined-needs-no-pool",
        seed: "beyond the seeds: the pool is the queue, and a pipelined driver needs none",
        kind: Kind::Prediction("each column's measured throughput against the best of its own driver's columns, round by round"),
        claim: format!(
            "in the pool sweep (a fixed concurrency, Postgres a round trip away) the pipelined driver with two clients serves within {} of its best client count, while each pooled driver (the sync driver, virtual threads' yielding driver, sqlx, deadpool-postgres) serves below {}x its best pool size at pool 2",
            pct(t.pool_sweep_pipelined_within),
            t.pool_sweep_small_pool_share
        ),
        needs: Needs::Columns(every_column()),
        check: Box::new(check),
    }
}

/// Per round, what `columns[at]` served as a share of the best of
/// `columns` in the same round (rounds matched by number).
fn share_of_best(columns: &[&ColumnResult], at: usize) -> Vec<(u32, f64)> {
    columns[at]
        .rounds
        .iter()
        .filter_map(|r| {
            let best = columns
                .iter()
                .map(|c| {
                    c.rounds
                        .iter()
                        .find(|x| x.round == r.round)
                        .and_then(successful_rps)
                })
                .collect::<Option<Vec<f64>>>()?
                .into_iter()
                .fold(0.0, f64::max);
            Some((r.round, successful_rps(r)? / best))
        })
        .collect()
}

/// "pool 40, 3102 req/s": the size of `columns` with the best column
/// median, and that median.
fn best_words(columns: &[&ColumnResult], sizes: &[u32], what: &str) -> String {
    let (size, best) = columns
        .iter()
        .zip(sizes)
        .map(|(c, size)| (*size, median(c, successful_rps)))
        .fold((0, f64::MIN), |b, x| if x.1 > b.1 { x } else { b });
    format!("{what} {size}, {best:.0} req/s")
}

/// Per-round shares in words: "5.0%, 5.5%, 4.9% per round".
fn shares(per_round: &[(u32, f64)]) -> String {
    share_words(&per_round.iter().map(|p| p.1).collect::<Vec<_>>())
}

/// Each part of the claim as its figure over its line (below 1 where the
/// part clears it), per round; the round's figure is the largest of them,
/// so a round clears the claim when it clears every part and misses it
/// when it misses any.
fn check(cx: &Ctx<'_>, t: &Thresholds) -> Option<Outcome> {
    let columns = |ids: &[ColumnId]| {
        ids.iter()
            .map(|id| cx.col(*id))
            .collect::<Option<Vec<&ColumnResult>>>()
    };
    let pipelined = columns(&PIPELINED[..])?;
    let two = share_of_best(&pipelined, 1);
    let mut parts = vec![two
        .iter()
        .map(|(r, share)| (*r, (1.0 - share) / t.pool_sweep_pipelined_within))
        .collect::<Vec<_>>()];
    let mut each = vec![format!(
        "pipelined at 2 clients {} of its best ({})",
        shares(&two),
        best_words(&pipelined, &CLIENTS, "clients")
    )];
    for (name, ids) in &POOLED {
        let pooled = columns(&ids[..])?;
        let at_two = share_of_best(&pooled, 0);
        parts.push(
            at_two
                .iter()
                .map(|(r, share)| (*r, share / t.pool_sweep_small_pool_share))
                .collect(),
        );
        each.push(format!(
            "{name} at pool 2 {} of its best ({})",
            shares(&at_two),
            best_words(&pooled, &POOL_SIZES, "pool")
        ));
    }
    let worst = across(&parts, larger);
    let short = format!(
        "each part's figure over its line, the largest per round: {}",
        worst
            .iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let evidence = format!("{}; {short}", each.join("; "));
    Some(Outcome::judged(&worst, (Side::Below, 1.0), t, evidence).with_short(short))
}
