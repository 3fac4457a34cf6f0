//! What both reference servers measure about themselves, and how `/metrics`
//! shows it: written once, so a figure means the same on either server.
//!
//! - [`metrics`]: the request counters (per route, method and status, with
//!   Spring Boot's histogram), the pool-wait counters, and the renderer of
//!   `/metrics` in the Prometheus text format;
//! - [`recent_durations`]: durations over the last minute, the summaries
//!   each server keeps about its own waiting;
//! - [`lag`]: how late a probe woke, the record of a stalled event loop or
//!   carrier;
//! - [`blocking_calls`]: the marker both stall detectors count blocking
//!   calls with (BlockHound's half).
//!
//! What the servers promise a client (routes, bodies, errors) is in
//! `contract`; this crate only counts and renders. It does no I/O: the
//! servers read `/proc` and pass the clock where a reading needs one.

pub mod blocking_calls;
pub mod lag;
pub mod metrics;
pub mod recent_durations;
