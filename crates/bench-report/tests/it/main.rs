//! bench-report's integration tests, one test binary (each file under
//! tests/ would be a binary of its own, linked and run apart): the report
//! and findings from fixed runs, the run at a glance, report.html, every saved run of
//! docs/results, the doc tables' check, and that this crate links no
//! server. None starts a process but `cargo tree`; none needs a runtime.

mod build;
mod doc_tables;
mod glance;
mod html_rendering;
mod links_no_server;
mod report_rendering;
mod saved_runs;
