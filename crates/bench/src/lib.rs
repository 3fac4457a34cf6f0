//! `bench`: the MVC-vs-WebFlux matrix, run on this machine.
//!
//! Pipeline: CLI -> profile and groups ([`plan`]) -> services and child
//! servers ([`servers`]) -> one load per column ([`load`], through the
//! `loadgen` library) with the server sampled from /proc -> [`model::RunResults`]
//! -> [`findings`] -> printers ([`report`]): a terminal table, `report.md`,
//! `results.json` and SVG charts under `results/<timestamp>/`.

pub mod cli;
pub mod findings;
pub mod load;
pub mod machine;
pub mod model;
pub mod plan;
pub mod report;
pub mod run;
pub mod servers;
pub mod write;
