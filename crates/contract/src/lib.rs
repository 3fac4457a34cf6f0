//! What both reference servers promise, and nothing that does I/O.
//!
//! The blocking server and the async server are built so that a reader can put
//! them side by side and see only one difference: what a thread does while it
//! waits. Everything else — the routes, the JSON bodies, the error shape and its
//! status codes, the checks on a request head and its body framing, the CPU
//! workload, the SQL text, the Redis key names, the settings and how pools and
//! start-up retries follow from them — lives here, so the same request gets the
//! same answer from both. A rule both servers must follow is written once, here.
//!
//! This crate must never open a socket, a file or a connection: that keeps it a
//! description of the contract rather than a third implementation of it.

pub mod blocking_calls;
pub mod cache;
pub mod error;
pub mod framing;
pub mod head;
pub mod lag;
pub mod logging;
pub mod metrics;
pub mod model;
pub mod open_files;
pub mod params;
pub mod pool;
pub mod posts;
pub mod recent_durations;
pub mod routes;
pub mod settings;
pub mod sql;
pub mod startup;
pub mod workload;

pub use error::{ApiError, ErrorBody};
