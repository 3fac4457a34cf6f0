//! The cold-start check of issue 2, used by crates/blocking-server/tests/cold_start.rs
//! and tests/tiny_http_differences.rs: bench's probe (`bench::cold_start`),
//! the one implementation, which bench also runs on fresh servers for its
//! tiny_http-vs-nio finding.

pub use bench::cold_start::{probe, ProbeReport};
