//! [`Interrupt`]: a handle that stops a run early from outside it (the
//! CLI's Ctrl-C and SIGTERM), so the report of what ran is still made.
//!
//! What a run does when it is triggered is in crate::runner: no request
//! starts after it, those in flight get [`INTERRUPT_GRACE`] to land, and the
//! report counts what ended by then, marked `interrupted`. That is what wrk,
//! oha and k6 do on Ctrl-C: print what they measured.

use std::time::Duration;

use tokio::sync::watch;

/// How long requests in flight at an interrupt may still take to land and
/// be counted; after it the run ends whatever is left.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(1);

/// Stops a run early; cheap to clone, usable from any thread (a signal
/// handler's, for one). A run given a handle that is never triggered runs
/// as it would without one.
#[derive(Debug, Clone)]
pub struct Interrupt {
    // A watch channel: it keeps the value, so a run that starts watching
    // after the trigger still sees it, and it wakes tasks on any runtime.
    sender: std::sync::Arc<watch::Sender<bool>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt {
            sender: std::sync::Arc::new(watch::channel(false).0),
        }
    }
}

impl Interrupt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the runs watching this handle (and any started later with it).
    pub fn trigger(&self) {
        self.sender.send_replace(true);
    }

    pub fn is_triggered(&self) -> bool {
        *self.sender.borrow()
    }

    /// Resolves once [`Interrupt::trigger`] has been called.
    pub(crate) async fn triggered(&self) {
        let mut watching = self.sender.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = watching.wait_for(|triggered| *triggered).await;
    }
}
