//! `bench-analysis`: what a saved run means, as pure functions of it.
//!
//! Rounds into figures ([`stats`]: medians, spreads, round-by-round
//! ratios), which columns block by design ([`by_design`]) and the rate of
//! a group's equal-load windows ([`equal_load`]), the one rule every
//! verdict is made by ([`verdict`]: HELD, NOT HELD, SAME or INCONCLUSIVE
//! from each round's call), a concurrency sweep's
//! plateau, cap and crossover ([`sweep`]), the seeds' conclusions and this
//! project's checked against the rounds, each a prediction or a design
//! check ([`findings`]), which errors a run should not have had
//! ([`errors`]), and when a JVM's warm-up has settled ([`warm_up`]).
//! Which route a path is counted under is the contract's
//! `routes::label_of`, as in the servers.
//!
//! A run is judged by what it saved: its groups, columns, servers and
//! paths, never by today's matrix, so an old results.json is judged as it
//! was measured. No I/O.

pub mod by_design;
pub mod equal_load;
pub mod errors;
pub mod findings;
pub mod stats;
pub mod sweep;
pub mod verdict;
pub mod warm_up;
