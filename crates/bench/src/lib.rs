//! `bench`: the MVC-vs-WebFlux matrix, run on this machine.
//!
//! Pipeline: CLI -> profile and groups ([`plan`]) -> services, then for every
//! group and round a fresh child server per column ([`servers`], [`run`]) ->
//! one warm-up and one measured window per column round ([`load`], through the
//! `loadgen` library) with the server sampled from /proc and the machine's CPU
//! accounted ([`cpu_account`]) -> [`model::RunResults`] -> medians and spreads
//! ([`stats`]) -> [`findings`] (HELD / NOT HELD / INCONCLUSIVE) -> printers
//! ([`report`]): a terminal table, `report.md`, `results.json` and SVG charts
//! under `results/<timestamp>/`.

pub mod cli;
pub mod commands;
pub mod cpu_account;
pub mod detector;
pub mod export;
pub mod idle_connections;
pub mod idle_cost;
pub mod import;
pub mod load;
pub mod machine;
pub mod plan;
pub mod remote_metrics;
pub mod run;
pub mod servers;
pub mod watch;
pub mod write;
