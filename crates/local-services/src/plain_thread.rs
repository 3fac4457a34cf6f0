//! Runs blocking client code on a plain OS thread.
//!
//! The sync `postgres` client drives its own small tokio runtime, and tokio
//! panics when a runtime is started on a thread that is already inside one.
//! Tests of the async server call us from `#[tokio::test]` functions (and
//! `TestDatabase` may be dropped there), so every sync Postgres call goes
//! through [`run`], which is safe from any thread.

use std::thread;

/// Runs `work` on a new thread and waits for it. A panic inside `work` is
/// passed on to the caller.
pub(crate) fn run<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}
