//! Printers of a run: pure functions from [`crate::model::RunResults`] to text.
//!
//! The terminal table, `report.md`, `results.json` and the SVG charts are all
//! made here from the same results, so they cannot disagree.

pub mod charts;
pub mod markdown;
pub mod table;
pub mod text;
