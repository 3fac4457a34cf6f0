//! The one reader of an HTTP/1.1 answer in the workspace: its head (status,
//! headers, keep-alive), then its body by `Content-Length`, chunked, or
//! until the server closes.
//!
//! Two halves, so the load generator's hot path and the plain clients share
//! every rule without sharing an I/O loop:
//! - [`head`] and [`chunked`] read bytes already in a buffer and do no I/O:
//!   where the head ends, how the body ends, where a chunked body ends. They
//!   allocate nothing, so loadgen runs them on its reused buffers, on tokio.
//! - [`blocking`] is the loop around them on a std socket, keeping the
//!   headers and the body: the harness's raw client, bench's server helpers,
//!   the cold-start probe and bench's idle connections read through it.

pub mod blocking;
pub mod chunked;
pub mod head;

pub use blocking::{read_answer, read_answer_from, Answer, ByDeadline};
pub use chunked::{ChunkedBody, Progress};
pub use head::{parse_head, Framing, Head, Malformed};
