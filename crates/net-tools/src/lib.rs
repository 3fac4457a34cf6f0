//! The network tools bench and the tests share, so neither copies the other
//! and the tests need not depend on bench; the load generator reads its
//! answers with [`http_answer`] too.
//!
//! - [`proxy`]: a real TCP proxy in front of Postgres or Redis that passes,
//!   refuses or stalls connections, holds each chunk (a slow dependency), or
//!   adds a fixed latency per round trip (a database on another host), and
//!   measures the round trips it carries and how long each took.
//! - [`cold_start`]: the cold-start fairness probe (many keep-alive
//!   connections opened at once on a fresh server, each one's first answer).
//! - [`http_answer`]: the workspace's one reader of an HTTP/1.1 answer
//!   (head, then body by length, chunks or close): the probe's, bench's,
//!   the harness's raw client's, and loadgen's (its head and chunk parsing;
//!   its hot path keeps its own I/O loop on tokio).
//!
//! Plain std threads and sockets: a test or a bench group opens at most a
//! few hundred connections through these.

pub mod cold_start;
pub mod http_answer;
pub mod proxy;

pub use proxy::{FaultProxy, Mode, ProxyStats};
