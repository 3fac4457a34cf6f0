//! The one place that starts coroutines, and so the blocking server's one
//! place with `unsafe` (the workspace denies it everywhere but the files
//! ARCHITECTURE.md lists), with the one other thing may offers only
//! unsafely: adopting the std listener the server was given.
//!
//! may makes spawning `unsafe` for two reasons, and each is answered here
//! for every coroutine this server starts:
//!
//! - **Thread-local storage read across a yield.** A coroutine may resume
//!   on another carrier after it parks, so a thread-local it read before
//!   the yield may be another thread's after it. Our handlers and clients
//!   keep no thread-local across a yield: the pinning marker is set and
//!   cleared around each call that never yields
//!   (`crate::virtual_threads::pinning`), the per-request route and its
//!   timing are on the coroutine's stack (the request's `Waits`,
//!   crate::executor), and the metrics use atomics. The sync clients
//!   of the pinning driver (r2d2, tokio-postgres' `block_on`, redis) use
//!   thread-locals, but they never yield: they block the carrier, which is
//!   the point of that driver.
//! - **Stack overflow.** A coroutine's stack is fixed (`--coroutine-stack-kib`);
//!   past its guard page the whole process ends. The default is the deepest
//!   route's measured use with a margin (docs/servers.md says how it was
//!   measured), and `--coroutine-stack-kib` raises it.

#![allow(unsafe_code)]

use std::io;

use may::coroutine::{Builder, JoinHandle};

/// Starts `f` on a coroutine named `name`, with the process's coroutine
/// stack size (`may::config().set_stack_size`, set by
/// [`super::configure`]).
pub(crate) fn go<F, T>(name: &str, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let builder = Builder::new().name(name.to_owned());
    // SAFETY: the two hazards may names are answered for every coroutine we
    // start, in this module's documentation: no thread-local is held across
    // a yield, and the stack size is the measured deepest use with a margin.
    unsafe { builder.spawn(f) }
}

/// Starts `f` on a coroutine that may's scheduler first queues on carrier
/// `carrier` (the carrier probes, one per carrier: crate::virtual_threads::pinning).
/// Work stealing may still move it; what it measures does not depend on it.
pub(crate) fn go_on<F, T>(carrier: usize, name: &str, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let builder = Builder::new().name(name.to_owned()).id(carrier);
    // SAFETY: as in `go`.
    unsafe { builder.spawn(f) }
}

/// The server's listening socket, handed to may's reactor: accepting on it
/// parks the acceptor coroutine instead of blocking a carrier.
pub(crate) fn adopt_listener(listener: std::net::TcpListener) -> io::Result<may::net::TcpListener> {
    use std::os::fd::{FromRawFd, IntoRawFd};
    let fd = listener.into_raw_fd();
    // SAFETY: `fd` is an open listening socket we own: `into_raw_fd` gave up
    // the std listener's ownership of it, and nothing else holds it.
    Ok(unsafe { may::net::TcpListener::from_raw_fd(fd) })
}
