//! `bench`: the MVC-vs-WebFlux matrix, run on this machine. The binary
//! crate: the only one that links the servers.
//!
//! Pipeline: the command line ([`cli`]) -> the run's plan, made once from
//! it and the profile ([`plan::RunPlan`]: every group's load, rounds,
//! warm-up, network and columns' server arguments, and what is skipped) ->
//! the run carries it out ([`run`], which never sees the command line):
//! services, then for every group and round a fresh child server per column
//! ([`servers`]) -> one warm-up and one measured window per column
//! round, the server sampled and the machine's CPU accounted ([`measure`])
//! -> bench-model's `RunResults` -> bench-analysis's findings (HELD / NOT
//! HELD / SAME / INCONCLUSIVE) -> the run's files, written in one place
//! ([`output`]): results.json, and bench-report's terminal report,
//! `report.md`, `report.html` and SVG charts under `results/<timestamp>/`.
//! The external load tools (Locust, k6, JMeter) get the matrix and give
//! their results back through [`tools`].

pub mod cli;
pub mod measure;
pub mod output;
pub mod plan;
pub mod run;
pub mod servers;
pub mod tools;
