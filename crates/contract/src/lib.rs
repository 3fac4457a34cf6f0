//! What both reference servers promise, and nothing that does I/O.
//!
//! The blocking server and the async server are built so that a reader can put
//! them side by side and see only one difference: what a thread does while it
//! waits. Everything else — the routes, the JSON bodies, the error shape and its
//! status codes, the checks on a request head and its body framing, the CPU
//! workload, the slow downstream, the SQL text, the Redis key names, the
//! limits (body and head sizes, the connection cap, the start-up retries)
//! and the defaults — lives here, so the same request gets the same answer
//! from both. A rule both servers must follow is written once, here.
//!
//! This crate must never open a socket, a file or a connection: that keeps it a
//! description of the contract rather than a third implementation of it. What
//! the servers measure about themselves is `server-metrics`'; their shared
//! flags are `server-settings`'. Its dependencies are what the promise
//! itself is written in: serde for the bodies, chrono for their timestamps,
//! httparse for the head both servers check the same way.

pub mod cache;
pub mod chunked;
pub mod error;
pub mod framing;
pub mod head;
pub mod model;
pub mod open_files;
pub mod params;
pub mod posts;
pub mod request_scan;
pub mod routes;
pub mod settings;
pub mod sql;
pub mod startup;
pub mod workload;

pub use error::{ApiError, ErrorBody};
