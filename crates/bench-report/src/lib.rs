//! `bench-report`: a saved run, or two, as a reader sees them. Pure
//! printers from bench-model's results and bench-analysis's findings to
//! text: the terminal report ([`text`]), `report.md` ([`markdown`]),
//! `report.html` ([`html`]), the SVG charts ([`charts`]), the matrix
//! that opens each of them ([`glance`]: which model for which workload)
//! and the tables they share ([`table`], [`cold_start_table`],
//! [`idle_table`], [`sweep_table`], [`equal_load_table`], [`jvm_cells`]: a
//! Java column's JVM; [`group_parts`]: which of them a group shows;
//! [`lines`], [`headline`]: the predictions counted, the design checks
//! apart; [`numbers`]: how a figure is written); two
//! runs side by side ([`compare`]); the tables of README.md and docs/ made
//! from the runs they cite ([`doc_tables`]).
//!
//! Every file of a run's report is named and made in one place
//! ([`files::report_files`]), so the terminal, Markdown, HTML and SVG
//! cannot disagree. Pure: text in, text out. This crate reads and writes
//! no file (bench does, and a test holds this crate's sources to naming
//! no file-system call), and links no server and no runtime: rendering a
//! saved run needs nothing but the run (a test of `cargo tree` holds it to
//! that).

pub mod charts;
pub mod cold_start_table;
pub mod compare;
pub mod doc_tables;
pub mod equal_load_table;
pub mod files;
pub mod glance;
pub mod group_parts;
pub mod headline;
pub mod html;
pub mod idle_table;
pub mod jvm_cells;
pub mod lines;
pub mod markdown;
pub mod numbers;
pub mod sweep_table;
pub mod table;
pub mod text;
