//! A test that needs a process of its own, in the suites' one binary:
//! [`in_own_process!`](crate::in_own_process) re-runs the test binary with
//! only the calling test selected (rusty-fork), and that child runs the body.
//!
//! What is per process, and so would be shared with every other test of the
//! binary: the one tracing subscriber (a test that asserts a warning was
//! *not* logged would read another test's server's warnings), may's
//! configuration (the first virtual-thread server fixes the number of
//! carriers for the whole process), and the process's own thread count.
//! The parent stays in the test: it holds whatever load gate the test took
//! before the call, waits for the child, and fails with the child's output
//! when the child failed.

use std::io::{Read, Seek, SeekFrom};

/// Runs `$body` in a child process of its own: the test binary again, with
/// only the test `$test` (the calling test's function name) selected.
/// Everything before the call runs in both processes, the body only in the
/// child.
#[macro_export]
macro_rules! in_own_process {
    ($test:ident, $body:block) => {
        $crate::own_process::run(
            $crate::own_process::rusty_fork::rusty_fork_test_name!($test),
            $crate::own_process::rusty_fork::rusty_fork_id!(),
            || $body,
        )
    };
}

#[doc(hidden)]
pub use rusty_fork;

/// What [`in_own_process!`](crate::in_own_process) expands to.
pub fn run(test: &str, id: rusty_fork::RustyForkId, body: impl FnOnce()) {
    let (status, output) = rusty_fork::fork(
        test,
        id,
        |_| {},
        |child, output| (child.wait(), read_all(output)),
        body,
    )
    .unwrap_or_else(|e| panic!("running {test} in a process of its own: {e}"));
    let status = status.unwrap_or_else(|e| panic!("waiting for {test}'s process: {e}"));
    // The child names what it runs; a filter that selected nothing would
    // exit 0 without running the body.
    // rusty-fork has printed the child's output by now (shown on failure).
    assert!(
        output.contains("running 1 test"),
        "the child process did not select {test}"
    );
    assert!(
        status.success(),
        "{test} failed in its own process ({status})"
    );
}

/// The child's output so far (it writes to the start of `file`).
fn read_all(file: &mut std::fs::File) -> String {
    let mut bytes = Vec::new();
    let _ = file.seek(SeekFrom::Start(0));
    let _ = file.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}
