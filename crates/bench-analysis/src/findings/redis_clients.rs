//! The Redis client findings: one shared multiplexed connection against a
//! pool, and what a round trip on every checkout costs.

use super::checks::{beats_showing_cpu, spends_more_cpu_per_request, Kind, Needs, Spec};
use super::Thresholds;
use bench_model::ColumnId;

/// Two clients' measured figures compared: what real data can fail.
const COMPARISON: Kind = Kind::Prediction("two clients' measured figures compared round by round");

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![
        shared_connection_beats_pool(t),
        checkout_round_trip_costs(t),
        checkout_round_trip_costs_cpu(t),
        exclusive_checkout_costs_cpu(t),
    ]
}

/// One shared connection beats a pool that lends each request its own.
pub(super) fn shared_connection_beats_pool(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "cache-shared-connection-beats-pool",
            seed: "beyond the seeds: Spring's default Redis client shares one connection among all requests",
            kind: COMPARISON,
            claim: "one multiplexed Redis connection shared by every request serves more requests per second than a pool that lends each request its own".into(),
            needs: Needs::Columns(vec![C::AsyncCache, C::AsyncCachePool]),
            check: beats_showing_cpu(C::AsyncCache, C::AsyncCachePool),
    }
}

/// A round trip on every checkout costs throughput.
pub(super) fn checkout_round_trip_costs(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "cache-checkout-round-trip-costs",
            seed: "beyond the seeds: deadpool-redis sends UNWATCH and PING on every checkout",
            kind: COMPARISON,
            claim: "a round trip on every checkout costs throughput: the same pool without it (ours) serves more requests per second than deadpool-redis as shipped".into(),
            needs: Needs::Columns(vec![C::AsyncCachePool, C::AsyncCacheDeadpoolRedis]),
            check: beats_showing_cpu(C::AsyncCachePool, C::AsyncCacheDeadpoolRedis),
    }
}

/// A round trip on every checkout costs server CPU.
pub(super) fn checkout_round_trip_costs_cpu(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "cache-checkout-round-trip-costs-cpu",
            seed: "beyond the seeds: deadpool-redis sends UNWATCH and PING on every checkout",
            kind: COMPARISON,
            claim: "a round trip on every checkout costs server CPU: deadpool-redis as shipped spends more server CPU per request than the same pool without it (ours)".into(),
            needs: Needs::Columns(vec![C::AsyncCacheDeadpoolRedis, C::AsyncCachePool]),
            check: spends_more_cpu_per_request(C::AsyncCacheDeadpoolRedis, C::AsyncCachePool),
    }
}

/// Exclusive checkout costs server CPU.
pub(super) fn exclusive_checkout_costs_cpu(_t: &Thresholds) -> Spec {
    use ColumnId as C;
    Spec {
            id: "cache-exclusive-checkout-costs-cpu",
            seed: "beyond the seeds: Spring's default Redis client shares one connection among all requests",
            kind: COMPARISON,
            claim: "exclusive checkout costs server CPU: a pool that lends each request its own connection (ours) spends more server CPU per request than one shared multiplexed connection".into(),
            needs: Needs::Columns(vec![C::AsyncCachePool, C::AsyncCache]),
            check: spends_more_cpu_per_request(C::AsyncCachePool, C::AsyncCache),
    }
}
